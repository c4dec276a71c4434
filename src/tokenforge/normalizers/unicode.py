"""Unicode normalizers: NFC, NFD, NFKC, NFKD, Lowercase, StripAccents.

Each rewrites the text with the same character alignment `tokenizers` gives: the text is cut
into groups (a starter and the combining marks after it), each group normalized alone; a group
of m characters that becomes n keeps the first min(m, n) aligned one to one, inserts the rest
(n > m) on the last of them or folds the extra originals into the last (n < m).  Hangul
syllables compose across starters, so a run of Hangul jamo stays one group.

Example:
    >>> from tokenforge.normalizers.normalized_string import NormalizedString
    >>> s = NormalizedString.from_text("ﬁ!")
    >>> NFKC().normalize(s); s.text, s.align
    ('fi!', [(0, 1), (0, 1), (1, 2)])
"""

from __future__ import annotations

import unicodedata

from tokenforge.normalizers.normalized_string import NormalizedString


def _joins_previous(ch: str) -> bool:
    o = ord(ch)
    return unicodedata.combining(ch) != 0 or 0x1160 <= o <= 0x11FF  # marks, Hangul V/T jamo


def normalize_aligned(ns: NormalizedString, form: str) -> None:
    """Applies a Unicode normalization form to `ns` group by group (module docstring)."""
    text = ns.text
    if unicodedata.is_normalized(form, text):
        return
    changes: list[tuple[str, int]] = []
    i, n = 0, len(text)
    while i < n:
        j = i + 1
        while j < n and _joins_previous(text[j]):
            j += 1
        group = text[i:j]
        out = unicodedata.normalize(form, group)
        m, k = len(group), len(out)
        if k == 0:
            if changes:
                c, ch = changes[-1]
                changes[-1] = (c, ch - m)
        elif k >= m:
            changes.extend((c, 0 if t < m else 1) for t, c in enumerate(out))
        else:
            changes.extend((c, 0) for c in out[:-1])
            changes.append((out[-1], k - m))
        i = j
    ns.transform(changes)


class _Form:
    form = ""

    def normalize(self, ns: NormalizedString) -> None:
        normalize_aligned(ns, self.form)

    def to_dict(self) -> dict:
        return {"type": type(self).__name__}


class NFC(_Form):
    """Canonical composition."""

    form = "NFC"


class NFD(_Form):
    """Canonical decomposition."""

    form = "NFD"


class NFKC(_Form):
    """Compatibility composition."""

    form = "NFKC"


class NFKD(_Form):
    """Compatibility decomposition."""

    form = "NFKD"


class Lowercase:
    """Unicode lowercase, one character to its full lowercase mapping."""

    def normalize(self, ns: NormalizedString) -> None:
        if not ns.text.islower() or not ns.text.isascii():
            ns.replace_each(str.lower)

    def to_dict(self) -> dict:
        return {"type": "Lowercase"}


def strip_accents(ns: NormalizedString) -> None:
    """Drops nonspacing marks (category Mn), as tokenizers' StripAccents."""
    ns.replace_each(lambda c: "" if unicodedata.category(c) == "Mn" else c)


class StripAccents:
    """Removes combining marks (run NFD first for accented letters)."""

    def normalize(self, ns: NormalizedString) -> None:
        strip_accents(ns)

    def to_dict(self) -> dict:
        return {"type": "StripAccents"}
