"""Decoders: turn tokens back into text, one class per `tokenizers` type.

Each has `decode_chain(tokens) -> tokens` (a decoder may join, split or edit tokens) and
`decode(tokens) -> str` (the chain, joined).  :func:`from_dict` raises `ValueError` naming an
unknown type.  `DecodeStream` decodes one id at a time, as `tokenizers.decoders.DecodeStream`.

Example:
    >>> d = from_dict({"type": "Sequence", "decoders": [{"type": "ByteFallback"}, {"type": "Fuse"}]})
    >>> d.decode(["<0xC3>", "<0xA9>", "!"])
    'é!'
"""

from __future__ import annotations

from tokenforge._component import build

from tokenforge.decoders.stream import DecodeStream
from tokenforge.decoders.text import CTC, BPEDecoder, ByteFallback, ByteLevel, Fuse, Metaspace, Replace, Strip, WordPiece


class Sequence:
    """Chains decoders."""

    def __init__(self, decoders: list) -> None:
        self.decoders = list(decoders)

    def decode_chain(self, tokens: list[str]) -> list[str]:
        for d in self.decoders:
            tokens = d.decode_chain(tokens)
        return tokens

    def decode(self, tokens: list[str]) -> str:
        return "".join(self.decode_chain(list(tokens)))

    def to_dict(self) -> dict:
        return {"type": "Sequence", "decoders": [d.to_dict() for d in self.decoders]}


def _metaspace(d: dict) -> Metaspace:
    from tokenforge.pre_tokenizers.metaspace import Metaspace as PreMetaspace

    m = PreMetaspace.from_dict(d)
    return Metaspace(m.replacement, m.prepend_scheme, m.split_)


def from_dict(d: dict | None):
    """The decoder described by a tokenizer.json object (None for null).

    Raises:
        ValueError: an unknown type or a malformed field.
    """
    return build("decoder", d, {
        "Sequence": lambda d: Sequence([from_dict(x) for x in d["decoders"]]),
        "ByteLevel": lambda d: ByteLevel(),
        "Metaspace": _metaspace,
        "WordPiece": lambda d: WordPiece(d.get("prefix", "##"), d.get("cleanup", True)),
        "Replace": lambda d: Replace(d["pattern"], d["content"]),
        "ByteFallback": lambda d: ByteFallback(),
        "Fuse": lambda d: Fuse(),
        "Strip": lambda d: Strip(d["content"], d.get("start", 0), d.get("stop", 0)),
        "BPEDecoder": lambda d: BPEDecoder(d.get("suffix", "</w>")),
        "CTC": lambda d: CTC(d.get("pad_token", "<pad>"), d.get("word_delimiter_token", "|"), d.get("cleanup", True)),
    })


__all__ = ["BPEDecoder", "ByteFallback", "ByteLevel", "CTC", "DecodeStream", "Fuse", "Metaspace", "Replace",
           "Sequence", "Strip", "WordPiece", "from_dict"]
