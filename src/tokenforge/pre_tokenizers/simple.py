"""Character-class pre-tokenizers: Whitespace, WhitespaceSplit, Punctuation, Digits, CharDelimiterSplit,
FixedLength, BertPreTokenizer.

Classes as in `tokenizers`: whitespace is Unicode White_Space, punctuation and digits are its
own tables (normalizers/hf_unicode.py), and Whitespace's `\\w+|[^\\w\\s]+` keeps words and runs
of symbols, with the Rust regex crate's classes (tokenizers runs that one on its own regex).

Example:
    >>> from tokenforge.normalizers.normalized_string import NormalizedString
    >>> [p.text for p in BertPreTokenizer().split(NormalizedString.from_text("Hi, you!"))]
    ['Hi', ',', 'you', '!']
"""

from __future__ import annotations

import functools

import regex

from tokenforge.normalizers.bert import WHITE_SPACE
from tokenforge.normalizers.normalized_string import NormalizedString
from tokenforge.normalizers.pattern import ranges_text
from tokenforge.pre_tokenizers.split import behavior_of, char_matches, split_by


@functools.cache
def _words():
    """`\\w+|[^\\w\\s]+` with the Rust regex crate's classes, as tokenizers' Whitespace runs it."""
    from tokenforge.normalizers.hf_unicode_tables import RUST_SPACE, RUST_WORD

    word, space = ranges_text(RUST_WORD), ranges_text(RUST_SPACE)
    return regex.compile(f"[{word}]+|[^{word}{space}]+")


def is_punctuation(c: str) -> bool:
    """tokenizers' punctuation (its own Unicode table: normalizers/hf_unicode.py)."""
    from tokenforge.normalizers.hf_unicode import is_punctuation as punct

    return punct(c)


def _ws(c: str) -> bool:
    return c in WHITE_SPACE


class WhitespaceSplit:
    """Splits on whitespace, dropping it."""

    def split(self, ns: NormalizedString) -> list[NormalizedString]:
        return split_by(ns, char_matches(ns.text, _ws), "Removed")

    def to_dict(self) -> dict:
        return {"type": "WhitespaceSplit"}


class Whitespace:
    """Keeps runs of word characters and runs of other non-space characters."""

    def split(self, ns: NormalizedString) -> list[NormalizedString]:
        return split_by(ns, [m.span() for m in _words().finditer(ns.text)], "Removed", invert=True)

    def to_dict(self) -> dict:
        return {"type": "Whitespace"}


class Punctuation:
    """Splits off punctuation characters (behavior Isolated by default)."""

    def __init__(self, behavior: str = "isolated") -> None:
        self.behavior = behavior_of(behavior)

    def split(self, ns: NormalizedString) -> list[NormalizedString]:
        return split_by(ns, char_matches(ns.text, is_punctuation), self.behavior)

    def to_dict(self) -> dict:
        return {"type": "Punctuation", "behavior": self.behavior}


class Digits:
    """Splits digits off: each alone (`individual_digits`) or as runs."""

    def __init__(self, individual_digits: bool = False) -> None:
        self.individual_digits = individual_digits

    def split(self, ns: NormalizedString) -> list[NormalizedString]:
        from tokenforge.normalizers.hf_unicode import is_numeric

        m = char_matches(ns.text, is_numeric)
        return split_by(ns, m, "Isolated" if self.individual_digits else "Contiguous")

    def to_dict(self) -> dict:
        return {"type": "Digits", "individual_digits": self.individual_digits}


class CharDelimiterSplit:
    """Splits on one character, dropping it."""

    def __init__(self, delimiter: str) -> None:
        if not isinstance(delimiter, str) or len(delimiter) != 1:
            raise ValueError(f"CharDelimiterSplit delimiter must be one character, got {delimiter!r}")
        self.delimiter = delimiter

    def split(self, ns: NormalizedString) -> list[NormalizedString]:
        return split_by(ns, char_matches(ns.text, self.delimiter.__eq__), "Removed")

    def to_dict(self) -> dict:
        return {"type": "CharDelimiterSplit", "delimiter": self.delimiter}


class FixedLength:
    """Cuts the text into pieces of `length` characters (the last may be shorter)."""

    def __init__(self, length: int = 5) -> None:
        if not isinstance(length, int) or isinstance(length, bool) or length < 1:
            raise ValueError(f"FixedLength length must be a positive integer, got {length!r}")
        self.length = length

    def split(self, ns: NormalizedString) -> list[NormalizedString]:
        n, k = len(ns.text), self.length
        return split_by(ns, [(i, min(i + k, n)) for i in range(0, n, k)], "Isolated")

    def to_dict(self) -> dict:
        return {"type": "FixedLength", "length": self.length}


class BertPreTokenizer:
    """Whitespace removed, then each punctuation character isolated."""

    def split(self, ns: NormalizedString) -> list[NormalizedString]:
        out = []
        for piece in split_by(ns, char_matches(ns.text, _ws), "Removed"):
            out.extend(split_by(piece, char_matches(piece.text, is_punctuation), "Isolated"))
        return out

    def to_dict(self) -> dict:
        return {"type": "BertPreTokenizer"}
