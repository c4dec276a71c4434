"""ByteLevel: GPT-2's pre-tokenizer — optional prefix space, GPT-2 split, bytes as characters.

Every UTF-8 byte becomes one printable character of GPT-2's table (`bytes_to_unicode`), so a
BPE over characters is a BPE over bytes; the bytes of one character all keep that character's
original span.  Missing fields take `tokenizers`' defaults (add_prefix_space, trim_offsets and
use_regex true).

Example:
    >>> from tokenforge.normalizers.normalized_string import NormalizedString
    >>> [p.text for p in ByteLevel(add_prefix_space=False).split(NormalizedString.from_text("Hi é"))]
    ['Hi', 'ĠÃ©']
"""

from __future__ import annotations

from tokenforge.normalizers.normalized_string import NormalizedString
from tokenforge.normalizers.pattern import compile_onig
from tokenforge.pre_tokenizers.split import split_by

from tokenforge.formats.byte_map import BYTE_TO_CHAR as _TABLE

GPT2_SPLIT_SOURCE = r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"
BYTE_CHARS = {b: _TABLE[b] for b in range(256)}  # byte -> its printable character
CHAR_BYTES = {c: b for b, c in BYTE_CHARS.items()}


def to_byte_chars(ns: NormalizedString) -> None:
    """Replaces each character by the characters of its UTF-8 bytes (same span for all)."""
    text = ns.text
    if text.isascii():
        ns.text = "".join(BYTE_CHARS[ord(c)] for c in text)
        return
    changes = []
    for c in text:
        for i, b in enumerate(c.encode("utf-8", "surrogatepass")):
            changes.append((BYTE_CHARS[b], 1 if i else 0))
    ns.transform(changes)


class ByteLevel:
    """The byte-level pre-tokenizer (module docstring); also a post-processor and a decoder
    under the same name in `tokenforge.processors` / `tokenforge.decoders`."""

    def __init__(self, add_prefix_space: bool = True, trim_offsets: bool = True, use_regex: bool = True) -> None:
        self.add_prefix_space = add_prefix_space
        self.trim_offsets = trim_offsets
        self.use_regex = use_regex

    @staticmethod
    def alphabet() -> list[str]:
        """The 256 characters that stand for the bytes, in byte order (tokenizers returns
        the same characters in no fixed order; a BPE trainer's initial alphabet)."""
        return [BYTE_CHARS[b] for b in range(256)]

    def split(self, ns: NormalizedString) -> list[NormalizedString]:
        if self.add_prefix_space and not ns.text.startswith(" "):
            if ns.text:
                changes = [(" ", 0), (ns.text[0], 1)] + [(c, 0) for c in ns.text[1:]]
                ns.transform(changes)
        if self.use_regex:
            split = compile_onig(GPT2_SPLIT_SOURCE)  # Oniguruma's classes, as tokenizers runs it
            pieces = split_by(ns, [m.span() for m in split.finditer(ns.text)], "Isolated")
        else:
            pieces = [ns] if ns.text else []
        for p in pieces:
            to_byte_chars(p)
        return pieces

    def to_dict(self) -> dict:
        return {"type": "ByteLevel", "add_prefix_space": self.add_prefix_space,
                "trim_offsets": self.trim_offsets, "use_regex": self.use_regex}
