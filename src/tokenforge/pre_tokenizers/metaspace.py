"""Metaspace: spaces become `replacement` (▁), a ▁ is prepended, the text is split before each ▁.

The old file format (`add_prefix_space: true|false`) maps to prepend_scheme "always"/"never";
the new one has `prepend_scheme` ("always", "first": only at the start of the original text,
"never") and `split`.

Example:
    >>> from tokenforge.normalizers.normalized_string import NormalizedString
    >>> [p.text for p in Metaspace().split(NormalizedString.from_text("Hey you"))]
    ['▁Hey', '▁you']
"""

from __future__ import annotations

from tokenforge.normalizers.normalized_string import NormalizedString
from tokenforge.normalizers.text import replace_matches
from tokenforge.pre_tokenizers.split import char_matches, split_by

SCHEMES = ("always", "first", "never")


class Metaspace:
    """SentencePiece's whitespace handling as a pre-tokenizer (module docstring)."""

    def __init__(self, replacement: str = "\u2581", prepend_scheme: str = "always", split: bool = True) -> None:
        if len(replacement) != 1:
            raise ValueError(f"Metaspace replacement must be one character, got {replacement!r}")
        if prepend_scheme not in SCHEMES:
            raise ValueError(f"Metaspace prepend_scheme must be one of {SCHEMES}, got {prepend_scheme!r}")
        self.replacement, self.prepend_scheme, self.split_ = replacement, prepend_scheme, split

    @classmethod
    def from_dict(cls, d: dict) -> "Metaspace":
        scheme = d.get("prepend_scheme")
        if scheme is None:
            scheme = "always" if d.get("add_prefix_space", True) else "never"
        return cls(d.get("replacement", "\u2581"), scheme, d.get("split", True))

    def split(self, ns: NormalizedString) -> list[NormalizedString]:
        r = self.replacement
        spaces = char_matches(ns.text, lambda c: c == " ")
        if spaces:
            replace_matches(ns, spaces, r)
        if ns.text and not ns.text.startswith(r) and (
            self.prepend_scheme == "always" or (self.prepend_scheme == "first" and ns.start == 0)
        ):
            ns.transform([(r, 0), (ns.text[0], 1)] + [(c, 0) for c in ns.text[1:]])
        if not self.split_:
            return [ns] if ns.text else []
        return split_by(ns, char_matches(ns.text, lambda c: c == r), "MergedWithNext")

    def to_dict(self) -> dict:
        return {"type": "Metaspace", "replacement": self.replacement,
                "prepend_scheme": self.prepend_scheme, "split": self.split_}
