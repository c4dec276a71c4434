"""Token: what a model's `tokenize` gives per piece, as `tokenizers.Token`.

A named tuple (id, value, offsets): the pipeline unpacks it as a plain tuple, a `tokenizers`
user reads `.id`, `.value` and `.offsets` (byte offsets in the sequence, as tokenizers gives
them) or calls `as_tuple()`.

Example:
    >>> t = Token(7, "hi", (0, 2))
    >>> t.id, t.value, t.offsets, t.as_tuple()
    (7, 'hi', (0, 2), (7, 'hi', (0, 2)))
"""

from __future__ import annotations

from typing import NamedTuple


class Token(NamedTuple):
    id: int
    value: str
    offsets: tuple[int, int]

    def as_tuple(self) -> tuple[int, str, tuple[int, int]]:
        return tuple(self)
