"""Splitting a UBPE document into parts, and its symbols into ids: `ubpe`'s split pipeline.

A document (a `str`, `bytes`, list or tuple of symbols) is cut, in this order, at known
words (the longest one starting at each position, scanning left to right), then inside the
text between them at break tokens, at the `regex_str` pattern (on `str` text only) and at
stop tokens.  Merges never cross a cut.  Known words, break and stop tokens become parts of
one id when encoding (`keep_separators=True`) and are dropped when fitting.

`ubpe` splits with `re.findall`, which drops the text between matches (so with `[A-Za-z]+`,
"Hello, world 42!" decodes as "Helloworld").  Here that text is kept as parts of its own;
`lossy_regex=True` gives ubpe's split.  Fitting and encoding are in the model classes.

Example:
    >>> s = Splitter({c: i for i, c in enumerate("ab ")}, regex_str=r"[ab]+")
    >>> s("ab ba", keep_separators=True)
    [[0, 1], [2], [1, 0]]
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Sequence
from typing import Any

Doc = Any  # str | bytes | list | tuple of symbols


class Splitter:
    """Cuts documents into parts of symbol ids (see the module docstring)."""

    def __init__(self, alphabet: dict[Hashable, int], *,
                 known_words: dict[Any, int] | None = None,
                 break_tokens: set[Hashable] | None = None,
                 stop_tokens: set[Hashable] | None = None,
                 regex_str: str | None = None, lossy_regex: bool = False):
        self.alphabet = alphabet
        # known word as a tuple of symbols -> id; the lengths to try, longest first
        self.known = {tuple(k): v for k, v in (known_words or {}).items()}
        self.known_lengths = sorted({len(k) for k in self.known}, reverse=True)
        self.break_tokens = break_tokens or set()
        self.stop_tokens = stop_tokens or set()
        try:
            self.regex = re.compile(regex_str) if regex_str else None
        except re.error as e:
            raise ValueError(f"regex_str {regex_str!r} does not compile: {e}") from None
        self.lossy_regex = lossy_regex
        # bytes map to themselves when the alphabet is 0..255 (or more) as ints
        self.bytes_identity = len(alphabet) >= 256 and all(
            type(s) is int and alphabet[s] == s for s in alphabet)
        self.trivial = not (self.known or self.break_tokens or self.stop_tokens or self.regex)

    def to_ids(self, part: Sequence[Hashable]) -> list[int]:
        """Maps symbols to ids.

        Raises:
            ValueError: a symbol is not in the alphabet.
        """
        if self.bytes_identity and isinstance(part, (bytes, bytearray)):
            return list(part)
        amap = self.alphabet
        try:
            return [amap[s] for s in part]
        except (KeyError, TypeError):
            bad = next(s for s in part if not _in(amap, s))
            raise ValueError(f"symbol {bad!r} is not in the alphabet") from None

    def __call__(self, doc: Doc, *, keep_separators: bool) -> list[list[int]]:
        """The parts of `doc` as lists of ids."""
        if self.trivial:
            return [self.to_ids(doc)]
        if isinstance(doc, list):
            doc = tuple(doc)
        if not self.known:
            return [self.to_ids(p) for p in self._split_text(doc, keep_separators)]
        parts: list[list[int]] = []
        start = pos = 0
        while pos < len(doc):
            word = self._known_at(doc, pos)
            if word is None:
                pos += 1
                continue
            length, wid = word
            if pos != start:
                parts.extend(self.to_ids(p) for p in self._split_text(doc[start:pos], keep_separators))
            if keep_separators:
                parts.append([wid])
            start = pos = pos + length
        if start < len(doc):
            parts.extend(self.to_ids(p) for p in self._split_text(doc[start:], keep_separators))
        return parts

    def _known_at(self, doc: Doc, pos: int) -> tuple[int, int] | None:
        for length in self.known_lengths:
            wid = self.known.get(tuple(doc[pos:pos + length]))
            if wid is not None and pos + length <= len(doc):
                return length, wid
        return None

    def _split_text(self, text: Doc, keep: bool) -> list[Doc]:
        parts = _cut_at(text, self.break_tokens, keep) if self.break_tokens else [text]
        if self.regex is not None:
            parts = [p for part in parts for p in self._split_regex(part)]
        if self.stop_tokens:
            parts = [p for part in parts for p in _cut_at(part, self.stop_tokens, keep)]
        return parts

    def _split_regex(self, part: Doc) -> list[Doc]:
        if not isinstance(part, str):
            return [part]
        assert self.regex is not None
        if self.lossy_regex:
            return self.regex.findall(part)
        if not part:
            return [part]
        pieces: list[str] = []
        end = 0
        for m in self.regex.finditer(part):
            if m.start() > end:
                pieces.append(part[end:m.start()])
            if m.end() > m.start():
                pieces.append(m.group(0))
            end = max(end, m.end())
        if end < len(part):
            pieces.append(part[end:])
        return pieces


def _in(mapping: dict, key: Any) -> bool:
    try:
        return key in mapping
    except TypeError:
        return False


def _cut_at(part: Doc, separators: set[Hashable], keep: bool) -> list[Doc]:
    """Cuts at each separator symbol, keeping it as a part of its own when `keep`.

    Example: part="a,b", separators={","}, keep=True -> ["a", ",", "b"]
    """
    pieces = []
    start = 0
    for i, s in enumerate(part):
        if s not in separators:
            continue
        if i != start:
            pieces.append(part[start:i])
        if keep:
            pieces.append(part[i:i + 1])
        start = i + 1
    if start < len(part):
        pieces.append(part[start:])
    return pieces
