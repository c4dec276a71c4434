"""Normalizers of a `tokenizer.json` pipeline, one class per `tokenizers` type.

Each has `normalize(NormalizedString)` (edits the text and keeps each character's original
span) and `to_dict()`; :func:`from_dict` builds one from its JSON object and raises
`ValueError` naming a type it does not know.  Unicode facts are `tokenizers`' own where they
differ from this Python's `unicodedata` (hf_unicode.py: normalization as Unicode 11.0, Rust's
lowercase, its mark and control tables).

Example:
    >>> n = from_dict({"type": "Sequence", "normalizers": [{"type": "NFKC"}, {"type": "Lowercase"}]})
    >>> n.normalize_str("ＡB")
    'ab'
"""

from __future__ import annotations

from tokenforge._component import build

from tokenforge.normalizers.bert import BertNormalizer
from tokenforge.normalizers.normalized_string import NormalizedString
from tokenforge.normalizers.precompiled import Precompiled
from tokenforge.normalizers.text import ByteLevel, Nmt, Prepend, Replace, Strip
from tokenforge.normalizers.unicode import NFC, NFD, NFKC, NFKD, Lowercase, StripAccents


class Sequence:
    """Applies normalizers in order (an empty list does nothing)."""

    def __init__(self, normalizers: list) -> None:
        self.normalizers = list(normalizers)

    def normalize(self, ns: NormalizedString) -> None:
        for n in self.normalizers:
            n.normalize(ns)

    def to_dict(self) -> dict:
        return {"type": "Sequence", "normalizers": [n.to_dict() for n in self.normalizers]}


def _normalize_str(self, text: str) -> str:
    ns = NormalizedString.from_text(text)
    self.normalize(ns)
    return ns.text


_TYPES = {c.__name__: c for c in (Sequence, BertNormalizer, Precompiled, Prepend, Replace, Strip,
                                  NFC, NFD, NFKC, NFKD, Lowercase, StripAccents, Nmt, ByteLevel)}
for _c in _TYPES.values():
    _c.normalize_str = _normalize_str


def from_dict(d: dict | None):
    """The normalizer described by a tokenizer.json object (None for null).

    Raises:
        ValueError: an unknown type or a malformed field.
    """
    return build("normalizer", d, {
        "Sequence": lambda d: Sequence([from_dict(x) for x in d["normalizers"]]),
        "BertNormalizer": lambda d: BertNormalizer(d.get("clean_text", True), d.get("handle_chinese_chars", True),
                                                   d.get("strip_accents"), d.get("lowercase", True)),
        "Precompiled": lambda d: Precompiled(d.get("precompiled_charsmap") or ""),
        "Prepend": lambda d: Prepend(d["prepend"]),
        "Replace": lambda d: Replace(d["pattern"], d["content"]),
        "Strip": lambda d: Strip(d.get("strip_left", True), d.get("strip_right", True)),
        **{k: (lambda d, k=k: _TYPES[k]()) for k in ("NFC", "NFD", "NFKC", "NFKD", "Lowercase", "StripAccents", "Nmt",
                                                            "ByteLevel")},
    })


__all__ = ["BertNormalizer", "ByteLevel", "Lowercase", "NFC", "NFD", "NFKC", "NFKD", "Nmt", "NormalizedString",
           "Precompiled", "Prepend", "Replace", "Sequence", "Strip", "StripAccents", "from_dict"]
