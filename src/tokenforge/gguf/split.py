"""Splitting text with a sequence of regexes, the way llama.cpp's ``unicode_regex_split`` does.

Each regex cuts every piece made so far: a match becomes a piece, and so does the text
between two matches (Hugging Face's ``Split(pattern, behavior="Isolated")``); an empty
match only marks a cut.  With one regex that matches every character somewhere this is the
same as ``regex.findall`` -- tokenforge then runs the native scanner instead (see
:mod:`tokenforge.gguf.bytelevel`); this pure-Python splitter runs the other pre-tokenizers.

What this module leaves out: byte-level encoding of the pieces and merging them.

Example:
    >>> s = SequenceSplitter([r"\\p{N}", r" ?\\p{L}+"])
    >>> s.split("ab 123 cd!")
    ['ab', ' ', '1', '2', '3', ' cd', '!']
"""

from __future__ import annotations

import regex


class SequenceSplitter:
    """Applies regexes one after the other, keeping the text between matches."""

    def __init__(self, patterns: list[str] | tuple[str, ...]) -> None:
        """Compiles the regexes.

        Raises:
            ValueError: a regex does not compile (the message names it).
        """
        self._regexes = []
        for p in patterns:
            try:
                self._regexes.append(regex.compile(p))
            except regex.error as e:
                raise ValueError(f"split regex {p!r} does not compile: {e}") from None

    def split(self, text: str) -> list[str]:
        """The pieces of `text`; their concatenation is `text`.

        >>> SequenceSplitter([r"(?=(\\d{3})+(?!\\d))"]).split("1234567")
        ['1', '234', '567']
        """
        pieces = [text] if text else []
        for rx in self._regexes:
            out: list[str] = []
            for piece in pieces:
                last = 0
                for m in rx.finditer(piece):
                    start, end = m.span()
                    if start > last:
                        out.append(piece[last:start])
                    if end > start:
                        out.append(piece[start:end])
                    last = end
                if last < len(piece):
                    out.append(piece[last:])
            pieces = out
        return pieces
