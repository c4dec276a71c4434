"""How many native threads a call uses: its `num_threads` argument, else the
``TOKENFORGE_NUM_THREADS`` environment variable, else the CPUs this process may run on
(``os.sched_getaffinity``, so a container's or ``taskset``'s limit is honoured).

Example:
    >>> resolve_threads(3)
    3
    >>> resolve_threads(None) >= 1
    True
"""

from __future__ import annotations

import os

ENV = "TOKENFORGE_NUM_THREADS"


def usable_cpus() -> int:
    """The CPUs this process may run on (at least 1)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def resolve_threads(num_threads: int | None) -> int:
    """The thread count to use, >= 1.

    Raises:
        ValueError: `num_threads` or the environment variable is not a positive integer.
    """
    if num_threads is not None:
        if isinstance(num_threads, bool) or not isinstance(num_threads, int) or num_threads < 1:
            raise ValueError(f"num_threads must be a positive integer, not {num_threads!r}")
        return num_threads
    value = os.environ.get(ENV, "").strip()
    if value:
        try:
            n = int(value)
        except ValueError:
            n = 0
        if n < 1:
            raise ValueError(f"{ENV}={value!r}: expected a positive integer")
        return n
    return usable_cpus()
