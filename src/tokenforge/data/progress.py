"""A one-line progress display for dataset jobs on stderr: bytes read (of the total),
documents, tokens and input MB/s, redrawn at most five times a second.

Example:
    >>> p = Progress(total_bytes=10, show=False)
    >>> p.update(10, 2, 7)
    >>> p.line().split("  ")[1:3]
    ['2 docs', '7 tokens']
"""

from __future__ import annotations

import sys
import time

from tokenforge.training.progress import _human_bytes


def _count(n: int) -> str:
    for unit, size in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if n >= size:
            return f"{n / size:.1f}{unit}"
    return str(n)


class Progress:
    """Running totals, drawn on stderr when `show`."""

    def __init__(self, total_bytes: int | None, show: bool, label: str = "tokenize") -> None:
        self.total = total_bytes
        self.show = show
        self.label = label
        self.bytes = self.docs = self.tokens = 0
        self.base_bytes = 0  # already done before this run (resume): not in the rate
        self.started = time.monotonic()
        self._drawn = 0.0

    def update(self, nbytes: int, docs: int, tokens: int) -> None:
        self.bytes += nbytes
        self.docs += docs
        self.tokens += tokens
        now = time.monotonic()
        if self.show and now - self._drawn >= 0.2:
            self._drawn = now
            sys.stderr.write("\r" + self.line())
            sys.stderr.flush()

    def line(self) -> str:
        elapsed = max(time.monotonic() - self.started, 1e-9)
        done = _human_bytes(self.bytes) + (f" / {_human_bytes(self.total)}" if self.total else "")
        rate = (self.bytes - self.base_bytes) / elapsed / 1e6
        return f"{self.label} {done}  {_count(self.docs)} docs  {_count(self.tokens)} tokens  {rate:.1f} MB/s  {elapsed:.1f} s"

    def close(self) -> None:
        if self.show:
            sys.stderr.write("\r" + self.line() + "\n")
            sys.stderr.flush()
