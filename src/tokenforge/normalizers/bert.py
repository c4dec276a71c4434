"""BertNormalizer: clean control characters, space out CJK, strip accents, lowercase.

The steps and their order follow `tokenizers` (with its Unicode tables, hf_unicode.py): controls (categories Cc, Cf, Co except tab,
newline and CR), NUL and U+FFFD are dropped, whitespace becomes a space; CJK ideographs get a
space on each side; with `strip_accents` (default: follow `lowercase`) NFD then marks removed;
then lowercase.

Example:
    >>> from tokenforge.normalizers.normalized_string import NormalizedString
    >>> s = NormalizedString.from_text("Héllo\\t中")
    >>> BertNormalizer().normalize(s); s.text
    'hello  中 '
"""

from __future__ import annotations

import unicodedata

from tokenforge.normalizers.normalized_string import NormalizedString
from tokenforge.normalizers.unicode import normalize_aligned, strip_accents

_CJK = (
    (0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF), (0x2A700, 0x2B73F),
    (0x2B740, 0x2B81F), (0x2B920, 0x2CEAF), (0xF900, 0xFAFF), (0x2F800, 0x2FA1F),
)
# Unicode White_Space (Rust's char::is_whitespace), which str.isspace() does not match exactly.
WHITE_SPACE = frozenset(
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)


def is_cjk(c: str) -> bool:
    o = ord(c)
    return any(a <= o <= b for a, b in _CJK)


def _is_control(c: str) -> bool:
    if c in "\t\n\r":
        return False
    if unicodedata.category(c) not in ("Cc", "Cf", "Co"):
        return False
    from tokenforge.normalizers.hf_unicode import is_bert_control  # older than unicodedata's categories

    return is_bert_control(c)


def _clean(c: str) -> str:
    if c == "\0" or c == "\ufffd" or _is_control(c):
        return ""
    return " " if c in WHITE_SPACE else c


class BertNormalizer:
    """The normalizer of BERT's tokenizer (module docstring)."""

    def __init__(self, clean_text: bool = True, handle_chinese_chars: bool = True,
                 strip_accents: bool | None = None, lowercase: bool = True) -> None:
        self.clean_text = clean_text
        self.handle_chinese_chars = handle_chinese_chars
        self.strip_accents = strip_accents
        self.lowercase = lowercase

    def normalize(self, ns: NormalizedString) -> None:
        if self.clean_text:
            ns.replace_each(_clean)
        if self.handle_chinese_chars and any(is_cjk(c) for c in ns.text):
            changes: list[tuple[str, int]] = []
            for c in ns.text:
                if is_cjk(c):
                    changes += [(" ", 0), (c, 1), (" ", 1)]
                else:
                    changes.append((c, 0))
            ns.transform(changes)
        if self.strip_accents if self.strip_accents is not None else self.lowercase:
            normalize_aligned(ns, "NFD")
            strip_accents(ns, bert=True)
        if self.lowercase:
            from tokenforge.normalizers.hf_unicode import lower

            ns.replace_each(str.lower if ns.text.isascii() else lower)

    def to_dict(self) -> dict:
        return {"type": "BertNormalizer", "clean_text": self.clean_text,
                "handle_chinese_chars": self.handle_chinese_chars,
                "strip_accents": self.strip_accents, "lowercase": self.lowercase}
