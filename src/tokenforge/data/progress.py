"""A one-line progress display for dataset jobs on stderr: bytes read (of the total),
documents, tokens and input MB/s.  On a terminal the line is redrawn in place (after a
carriage return) at most five times a second; otherwise (a log file, a pipe, a CI job) a
plain line is printed every `Progress.plain_every` seconds, and the final one when done, so
a log holds a few readable lines and no carriage returns.

Example:
    >>> p = Progress(total_bytes=10, show=False)
    >>> p.update(10, 2, 7)
    >>> p.line().split("  ")[1:3]
    ['2 docs', '7 tokens']
"""

from __future__ import annotations

import sys
import time

from tokenforge.training.progress import PLAIN_EVERY, _human_bytes, is_terminal


def _count(n: int) -> str:
    for unit, size in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if n >= size:
            return f"{n / size:.1f}{unit}"
    return str(n)


REDRAW_EVERY = 0.2  # seconds between redraws on a terminal


class Progress:
    """Running totals, drawn on stderr when `show` (redrawn in place on a terminal, a plain
    line every `plain_every` seconds otherwise)."""

    def __init__(self, total_bytes: int | None, show: bool, label: str = "tokenize",
                 plain_every: float = PLAIN_EVERY) -> None:
        self.total = total_bytes
        self.show = show
        self.label = label
        self.plain_every = plain_every
        self.bytes = self.docs = self.tokens = 0
        self.base_bytes = 0  # already done before this run (resume): not in the rate
        self.started = time.monotonic()
        self.terminal = show and is_terminal(sys.stderr)
        self._drawn = 0.0 if self.terminal else self.started

    def update(self, nbytes: int, docs: int, tokens: int) -> None:
        self.bytes += nbytes
        self.docs += docs
        self.tokens += tokens
        now = time.monotonic()
        if self.show and now - self._drawn >= (REDRAW_EVERY if self.terminal else self.plain_every):
            self._drawn = now
            self._write(self.line(), final=False)

    def _write(self, line: str, final: bool) -> None:
        if self.terminal:
            sys.stderr.write("\r" + line + ("\n" if final else ""))
        else:
            sys.stderr.write(line + "\n")
        sys.stderr.flush()

    def line(self) -> str:
        elapsed = max(time.monotonic() - self.started, 1e-9)
        done = _human_bytes(self.bytes) + (f" / {_human_bytes(self.total)}" if self.total else "")
        rate = (self.bytes - self.base_bytes) / elapsed / 1e6
        return f"{self.label} {done}  {_count(self.docs)} docs  {_count(self.tokens)} tokens  {rate:.1f} MB/s  {elapsed:.1f} s"

    def close(self) -> None:
        """Prints the final line."""
        if self.show:
            self._write(self.line(), final=True)
