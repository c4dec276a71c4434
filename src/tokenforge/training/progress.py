"""A one-line progress bar on stderr, fed by polling a native counter from the main thread.

The native work runs in a helper thread with the GIL released; the main thread redraws the
bar every 0.1 s from a counter the native code updates (on a terminal; to a log or pipe it
prints a plain line every PLAIN_EVERY seconds and the last one, with no carriage returns).
Nothing here knows about BPE.

Example:
    >>> run_with_progress(lambda: 42, poll=lambda: 0, total=1, label="noop", show=False)
    42
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")
_WIDTH = 30
PLAIN_EVERY = 30.0  # seconds between plain lines when stderr is not a terminal


def is_terminal(stream) -> bool:
    """Whether `stream` is a terminal (a bar is redrawn in place only there; a log or pipe
    gets plain lines, without carriage returns)."""
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False


def _human_bytes(n: float) -> str:
    for unit in ("B", "kB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    return f"{n:.1f} GB"


def draw(label: str, done: float, total: float | None, started: float, unit: str) -> str:
    """One frame of the bar.

    >>> draw("merges", 5, 10, time.monotonic(), "")[:43]
    'merges    [###############...............] '
    """
    fmt = _human_bytes if unit == "B" else (lambda n: f"{int(n)}")
    elapsed = time.monotonic() - started
    if total:
        filled = int(_WIDTH * min(1.0, done / total))
        bar = "#" * filled + "." * (_WIDTH - filled)
        return f"{label:<10}[{bar}] {fmt(done)} / {fmt(total)}  {elapsed:.1f} s"
    return f"{label:<10}{fmt(done)}  {elapsed:.1f} s"


def run_with_progress(
    work: Callable[[], T], poll: Callable[[], float], total: float | None, label: str, show: bool, unit: str = ""
) -> T:
    """Runs `work()` and returns its result; if `show`, draws a bar from `poll()` meanwhile.

    Args:
        work: the (GIL-releasing) call to run.
        poll: reads the progress counter; called from this thread while `work` runs.
        total: the counter's final value, or None if unknown.
        label: shown before the bar.
        show: draw nothing when False (work then runs on this thread).
        unit: "B" to print the counter as bytes.

    Raises:
        Whatever `work` raises.
    """
    if not show:
        return work()
    result: list = []
    error: list[BaseException] = []

    def target() -> None:
        try:
            result.append(work())
        except BaseException as e:  # handed to the caller below
            error.append(e)

    started = time.monotonic()
    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    terminal = is_terminal(sys.stderr)
    drawn = started
    while thread.is_alive():
        thread.join(0.1)
        if terminal:
            sys.stderr.write("\r" + draw(label, poll(), total, started, unit))
        elif time.monotonic() - drawn >= PLAIN_EVERY:
            drawn = time.monotonic()
            sys.stderr.write(draw(label, poll(), total, started, unit) + "\n")
        sys.stderr.flush()
    sys.stderr.write(("\r" if terminal else "") + draw(label, poll(), total, started, unit) + "\n")  # where it stopped
    sys.stderr.flush()
    if error:
        raise error[0]
    return result[0]
