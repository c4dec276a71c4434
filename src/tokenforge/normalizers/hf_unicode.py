"""`tokenizers`' Unicode, where it is not this Python's `unicodedata`: lookups over the tables
`scripts/gen_hf_unicode_tables.py` reads off `tokenizers` (hf_unicode_tables.py).

- normalization (NFD/NFKD/NFC/NFKC) is Unicode 11.0's: a code point 11.0 leaves unassigned
  is a starter that never changes (`is_inert`), whatever a newer `unicodedata` says; and its
  combining classes are older still: the marks of Unicode 10.0 and 11.0 are starters
  (`combining`);
- Lowercase is Rust's, one character at a time (`lower`);
- StripAccents removes its own table of marks (`is_stripped_mark`), not exactly category Mn,
  and BertNormalizer's strip_accents another (`is_bert_mark`);
- BertNormalizer's clean_text drops its own table of controls (`is_bert_control`);
- the Punctuation/Bert pre-tokenizers' punctuation and the Digits pre-tokenizer's digits are
  tables of their own (`is_punctuation`, `is_numeric`).

Example:
    >>> is_inert("\\U00011938"), is_inert("é"), lower("A"), is_stripped_mark("\\u0301")
    (True, False, 'a', True)
"""

from __future__ import annotations

import bisect
import functools
import re
import unicodedata

from tokenforge.normalizers import hf_unicode_tables as _tables


class _Ranges:
    """Membership in sorted, disjoint, inclusive ranges of code points."""

    def __init__(self, ranges: list[tuple[int, int]]) -> None:
        self.starts = [a for a, _ in ranges]
        self.ends = [b for _, b in ranges]
        self.regex = re.compile("[" + "".join(f"\\U{a:08x}-\\U{b:08x}" for a, b in ranges) + "]")

    def __contains__(self, o: int) -> bool:
        i = bisect.bisect_right(self.starts, o) - 1
        return i >= 0 and o <= self.ends[i]


_UNASSIGNED = _Ranges(_tables.UNASSIGNED_IN_NORMALIZATION)
_STARTERS = frozenset(c for a, b in _tables.STARTERS_IN_NORMALIZATION for c in range(a, b + 1))
_MARKS = frozenset(c for a, b in _tables.STRIP_ACCENTS_MARKS for c in range(a, b + 1))
_BERT_MARKS = frozenset(c for a, b in _tables.BERT_MARKS for c in range(a, b + 1))
_DROPPED = _Ranges(_tables.BERT_DROPPED)
_PUNCTUATION = frozenset(chr(c) for a, b in _tables.PUNCTUATION for c in range(a, b + 1))
_NUMERIC = frozenset(chr(c) for a, b in _tables.NUMERIC for c in range(a, b + 1))
_LOWER = _tables.LOWERCASE


def has_inert(text: str) -> bool:
    """True if some character of `text` is unassigned in Unicode 11.0 (see `is_inert`).
    Asked of each distinct character, remembered (a character class of this many ranges
    is a linear scan per character in `re`)."""
    return not text.isascii() and any(map(_inert_char, set(text)))


@functools.lru_cache(maxsize=1 << 16)
def _inert_char(ch: str) -> bool:
    return ord(ch) in _UNASSIGNED


def is_inert(ch: str) -> bool:
    """True if `tokenizers`' normalization leaves `ch` alone as an unassigned starter."""
    return ord(ch) in _UNASSIGNED


def combining(ch: str) -> int:
    """The combining class `tokenizers`' normalizers give `ch` (0: a starter)."""
    o = ord(ch)
    if o in _STARTERS or o in _UNASSIGNED:
        return 0
    return unicodedata.combining(ch)


def lower(ch: str) -> str:
    """`tokenizers`' Lowercase of one character."""
    return _LOWER.get(ord(ch), ch)


def is_stripped_mark(ch: str) -> bool:
    """True if `tokenizers`' StripAccents removes `ch`."""
    return ord(ch) in _MARKS


def is_bert_mark(ch: str) -> bool:
    """True if BertNormalizer's strip_accents removes `ch` (after NFD)."""
    return ord(ch) in _BERT_MARKS


def is_bert_control(ch: str) -> bool:
    """True if BertNormalizer's clean_text drops `ch` (its controls, NUL and U+FFFD)."""
    return ord(ch) in _DROPPED


def is_punctuation(ch: str) -> bool:
    """True if the Punctuation and Bert pre-tokenizers take `ch` as punctuation."""
    return ch in _PUNCTUATION


def is_numeric(ch: str) -> bool:
    """True if the Digits pre-tokenizer takes `ch` as a digit."""
    return ch in _NUMERIC
