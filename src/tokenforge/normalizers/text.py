"""Text edits: Prepend, Replace (a string or a regex), Strip, Nmt (controls dropped, odd spaces made
plain), ByteLevel (each UTF-8 byte as its printable character).

Example:
    >>> from tokenforge.normalizers.normalized_string import NormalizedString
    >>> s = NormalizedString.from_text("a b")
    >>> Replace({"String": " "}, "\u2581").normalize(s); s.text
    'a\u2581b'
"""

from __future__ import annotations

import regex

from tokenforge.normalizers.normalized_string import NormalizedString
from tokenforge.normalizers.pattern import compile_pattern, pattern_object


class Prepend:
    """Puts `prepend` before a non-empty string (aligned with its first character)."""

    def __init__(self, prepend: str) -> None:
        self.prepend = prepend

    def normalize(self, ns: NormalizedString) -> None:
        if ns.text:
            changes = [(c, 0 if i == 0 else 1) for i, c in enumerate(self.prepend)]
            changes.append((ns.text[0], 1))
            changes.extend((c, 0) for c in ns.text[1:])
            ns.transform(changes)

    def to_dict(self) -> dict:
        return {"type": "Prepend", "prepend": self.prepend}


def replace_matches(ns: NormalizedString, matches: list[tuple[int, int]], content: str) -> None:
    """Replaces each (start, end) character span by `content`, as tokenizers' replace: the
    old characters are dropped and the new ones inserted, aligned with the last dropped one."""
    changes: list[tuple[str, int]] = []
    text, last = ns.text, 0
    for a, b in matches:
        changes.extend((c, 0) for c in text[last:a])
        changes.append(("", -(b - a)))
        changes.extend((c, 1) for c in content)
        last = b
    changes.extend((c, 0) for c in text[last:])
    ns.transform(changes)


class Replace:
    """Replaces every match of a string or regex pattern by `content`."""

    def __init__(self, pattern, content: str) -> None:
        pattern = pattern_object(pattern)
        self.pattern = pattern
        self.content = content
        self._re = compile_pattern(pattern)

    def normalize(self, ns: NormalizedString) -> None:
        # an empty match (`^`, `$`) takes `content` too, as in tokenizers (an empty text: none)
        matches = [m.span() for m in self._re.finditer(ns.text)] if ns.text else []
        if matches:
            replace_matches(ns, matches, self.content)

    def replace_str(self, text: str) -> str:
        return self._re.sub(lambda m: self.content, text)

    def to_dict(self) -> dict:
        return {"type": "Replace", "pattern": self.pattern, "content": self.content}


class Strip:
    """Strips whitespace on the left and/or right."""

    def __init__(self, left: bool = True, right: bool = True) -> None:
        self.left, self.right = left, right

    def normalize(self, ns: NormalizedString) -> None:
        text = ns.text
        a, b = 0, len(text)
        if self.left:
            while a < b and text[a].isspace():
                a += 1
        if self.right:
            while b > a and text[b - 1].isspace():
                b -= 1
        if (a, b) != (0, len(text)):
            sub = ns.slice(a, b)
            ns.text, ns.align = sub.text, sub.align

    def to_dict(self) -> dict:
        return {"type": "Strip", "strip_left": self.left, "strip_right": self.right}


_ = regex  # the pattern module compiles with `regex`


# Nmt: the ASCII (and two C1) control characters it drops, and the characters it makes a space.
_NMT_DROP = frozenset(map(chr, [*range(0x01, 0x09), 0x0B, *range(0x0E, 0x20), 0x7F, 0x8F, 0x9F]))
_NMT_SPACE = frozenset(map(chr, [0x09, 0x0A, 0x0C, 0x0D, 0x1680, *range(0x200B, 0x2010), 0x2028, 0x2029, 0x2581,
                                 0xFEFF, 0xFFFD]))


class Nmt:
    """SentencePiece's nmt_nfkc edits without the NFKC: control characters dropped, and tabs,
    line breaks, zero-width spaces, U+2581 and a few others made plain spaces."""

    def normalize(self, ns: NormalizedString) -> None:
        if any(c in _NMT_DROP or c in _NMT_SPACE for c in ns.text):
            ns.replace_each(lambda c: "" if c in _NMT_DROP else " " if c in _NMT_SPACE else c)

    def to_dict(self) -> dict:
        return {"type": "Nmt"}


class ByteLevel:
    """Each character as the byte-level characters of its UTF-8 bytes (the ByteLevel
    pre-tokenizer's alphabet), all aligned with it; no splitting."""

    def normalize(self, ns: NormalizedString) -> None:
        from tokenforge.pre_tokenizers.byte_level import BYTE_CHARS

        ns.replace_each(lambda c: "".join(BYTE_CHARS[b] for b in c.encode("utf-8")))

    def to_dict(self) -> dict:
        return {"type": "ByteLevel"}
