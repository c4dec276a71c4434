"""Character-class pre-tokenizers: Whitespace, WhitespaceSplit, Punctuation, Digits, BertPreTokenizer.

Classes as in `tokenizers` (Rust's char predicates): whitespace is Unicode White_Space,
punctuation is ASCII punctuation or a P* category, digits are N* categories, and Whitespace's
`\\w+|[^\\w\\s]+` keeps words and runs of symbols.

Example:
    >>> from tokenforge.normalizers.normalized_string import NormalizedString
    >>> [p.text for p in BertPreTokenizer().split(NormalizedString.from_text("Hi, you!"))]
    ['Hi', ',', 'you', '!']
"""

from __future__ import annotations

import string
import unicodedata

import regex

from tokenforge.normalizers.bert import WHITE_SPACE
from tokenforge.normalizers.normalized_string import NormalizedString
from tokenforge.pre_tokenizers.punctuation_table import EXTRA_PUNCT, NOT_PUNCT, UNICODE_VERSION
from tokenforge.pre_tokenizers.split import char_matches, split_by

_ASCII_PUNCT = frozenset(string.punctuation)
# tokenizers' punctuation class comes from an older Unicode than unicodedata's: the table
# (generated against this Python's Unicode version) lists the characters where they differ.
_NOT_PUNCT = frozenset(chr(c) for a, b in NOT_PUNCT for c in range(a, b + 1)) \
    if UNICODE_VERSION == unicodedata.unidata_version else frozenset()
_EXTRA_PUNCT = frozenset(chr(c) for a, b in EXTRA_PUNCT for c in range(a, b + 1))
_WORDS = regex.compile(r"\w+|[^\w\s]+")


def is_punctuation(c: str) -> bool:
    if c in _ASCII_PUNCT or c in _EXTRA_PUNCT:
        return True
    return c not in _NOT_PUNCT and unicodedata.category(c).startswith("P")


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
        return split_by(ns, [m.span() for m in _WORDS.finditer(ns.text)], "Removed", invert=True)

    def to_dict(self) -> dict:
        return {"type": "Whitespace"}


class Punctuation:
    """Splits off punctuation characters (behavior Isolated by default)."""

    def __init__(self, behavior: str = "Isolated") -> None:
        self.behavior = behavior

    def split(self, ns: NormalizedString) -> list[NormalizedString]:
        return split_by(ns, char_matches(ns.text, is_punctuation), self.behavior)

    def to_dict(self) -> dict:
        return {"type": "Punctuation", "behavior": self.behavior}


class Digits:
    """Splits digits off: each alone (`individual_digits`) or as runs."""

    def __init__(self, individual_digits: bool = False) -> None:
        self.individual_digits = individual_digits

    def split(self, ns: NormalizedString) -> list[NormalizedString]:
        m = char_matches(ns.text, lambda c: unicodedata.category(c).startswith("N"))
        return split_by(ns, m, "Isolated" if self.individual_digits else "Contiguous")

    def to_dict(self) -> dict:
        return {"type": "Digits", "individual_digits": self.individual_digits}


class BertPreTokenizer:
    """Whitespace removed, then each punctuation character isolated."""

    def split(self, ns: NormalizedString) -> list[NormalizedString]:
        out = []
        for piece in split_by(ns, char_matches(ns.text, _ws), "Removed"):
            out.extend(split_by(piece, char_matches(piece.text, is_punctuation), "Isolated"))
        return out

    def to_dict(self) -> dict:
        return {"type": "BertPreTokenizer"}
