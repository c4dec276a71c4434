"""Pre-tokenizers of a `tokenizer.json` pipeline, one class per `tokenizers` type.

Each has `split(NormalizedString) -> list[NormalizedString]` (pieces keep their original
spans) and `to_dict()`; :func:`from_dict` raises `ValueError` naming an unknown type.

Example:
    >>> p = from_dict({"type": "Sequence", "pretokenizers": [{"type": "WhitespaceSplit"}, {"type": "Digits", "individual_digits": True}]})
    >>> p.pre_tokenize_str("ab 12")
    [('ab', (0, 2)), ('1', (3, 4)), ('2', (4, 5))]
"""

from __future__ import annotations

from tokenforge._component import build

from tokenforge.normalizers.normalized_string import NormalizedString
from tokenforge.pre_tokenizers.byte_level import ByteLevel
from tokenforge.pre_tokenizers.metaspace import Metaspace
from tokenforge.pre_tokenizers.simple import (BertPreTokenizer, CharDelimiterSplit, Digits, FixedLength, Punctuation,
                                             Whitespace, WhitespaceSplit)
from tokenforge.pre_tokenizers.split import Split
from tokenforge.pre_tokenizers.unicode_scripts import UnicodeScripts


class Sequence:
    """Applies pre-tokenizers in order, each to every piece of the one before."""

    def __init__(self, pretokenizers: list) -> None:
        self.pretokenizers = list(pretokenizers)

    def split(self, ns: NormalizedString) -> list[NormalizedString]:
        pieces = [ns]
        for p in self.pretokenizers:
            pieces = [q for piece in pieces for q in p.split(piece)]
        return pieces

    def to_dict(self) -> dict:
        return {"type": "Sequence", "pretokenizers": [p.to_dict() for p in self.pretokenizers]}


def _pre_tokenize_str(self, text: str) -> list[tuple[str, tuple[int, int]]]:
    return [(p.text, (p.align[0][0], p.align[-1][1]) if p.align else (p.start, p.end))
            for p in self.split(NormalizedString.from_text(text))]


_TYPES = (Sequence, ByteLevel, Metaspace, Split, BertPreTokenizer, Whitespace, WhitespaceSplit, Punctuation, Digits,
          CharDelimiterSplit, FixedLength, UnicodeScripts)
for _c in _TYPES:
    _c.pre_tokenize_str = _pre_tokenize_str


def from_dict(d: dict | None):
    """The pre-tokenizer described by a tokenizer.json object (None for null).

    Raises:
        ValueError: an unknown type or a malformed field.
    """
    return build("pre-tokenizer", d, {
        "Sequence": lambda d: Sequence([from_dict(x) for x in d["pretokenizers"]]),
        "ByteLevel": lambda d: ByteLevel(d.get("add_prefix_space", True), d.get("trim_offsets", True),
                                         d.get("use_regex", True)),
        "Metaspace": Metaspace.from_dict,
        "Split": lambda d: Split(d["pattern"], d["behavior"], d.get("invert", False)),
        "Punctuation": lambda d: Punctuation(d.get("behavior", "Isolated")),
        "Digits": lambda d: Digits(d.get("individual_digits", False)),
        "BertPreTokenizer": lambda d: BertPreTokenizer(),
        "Whitespace": lambda d: Whitespace(),
        "WhitespaceSplit": lambda d: WhitespaceSplit(),
        "CharDelimiterSplit": lambda d: CharDelimiterSplit(d["delimiter"]),
        "FixedLength": lambda d: FixedLength(d.get("length", 5)),
        "UnicodeScripts": lambda d: UnicodeScripts(),
    })


__all__ = ["BertPreTokenizer", "ByteLevel", "CharDelimiterSplit", "Digits", "FixedLength", "Metaspace", "Punctuation",
           "Sequence", "Split", "UnicodeScripts", "Whitespace", "WhitespaceSplit", "from_dict"]
