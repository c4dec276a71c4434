"""Unicode normalizers: NFC, NFD, NFKC, NFKD, Lowercase, StripAccents.

Each rewrites the text with the same character alignment `tokenizers` gives: the text is cut
into groups (a starter and the combining marks after it), each group normalized alone.  Where
the group's form is its characters' forms one after another (nothing reordered or composed),
each output character stays on the character it came from; otherwise a group of m characters
that becomes n keeps the first min(m, n) aligned one to one, inserts the rest (n > m) on the
last of them or folds the extra originals into the last (n < m).  Hangul
syllables compose across starters, so a run of Hangul jamo stays one group.

The Unicode data is `tokenizers`' (hf_unicode.py): normalization as in Unicode 11.0, where a
character assigned since is a starter that stays as it is; Lowercase and StripAccents by its
own tables.

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
    from tokenforge.normalizers.hf_unicode import has_inert, is_inert

    text = ns.text
    if text.isascii():
        return
    inert = has_inert(text)
    if not inert and unicodedata.is_normalized(form, text):
        return
    joins = (lambda ch: not is_inert(ch) and _joins_previous(ch)) if inert else _joins_previous
    changes: list[tuple[str, int]] = []
    i, n = 0, len(text)
    while i < n:
        j = i + 1
        while j < n and joins(text[j]):
            j += 1
        group = text[i:j]
        if inert and is_inert(group[0]):  # a starter of its own; its marks normalize alone
            out = group[0] + unicodedata.normalize(form, group[1:])
        else:
            out = unicodedata.normalize(form, group)
        m, k = len(group), len(out)
        each = [ch if inert and is_inert(ch) else unicodedata.normalize(form, ch) for ch in group] if m > 1 else None
        if each is not None and all(each) and "".join(each) == out:
            # Nothing reordered or composed: each output character stays on its source.
            for piece in each:
                changes.append((piece[0], 0))
                changes.extend((c, 1) for c in piece[1:])
        elif k == 0:
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
        from tokenforge.normalizers.hf_unicode import lower

        if not ns.text.isascii():
            ns.replace_each(lower)
        elif not ns.text.islower():
            ns.replace_each(str.lower)

    def to_dict(self) -> dict:
        return {"type": "Lowercase"}


def strip_accents(ns: NormalizedString, bert: bool = False) -> None:
    """Drops the marks tokenizers' StripAccents drops (about category Mn; hf_unicode.py), or
    with `bert` those of BertNormalizer's strip_accents (another table)."""
    from tokenforge.normalizers.hf_unicode import is_bert_mark, is_stripped_mark

    is_mark = is_bert_mark if bert else is_stripped_mark
    if not ns.text.isascii():
        ns.replace_each(lambda c: "" if is_mark(c) else c)


class StripAccents:
    """Removes combining marks (run NFD first for accented letters)."""

    def normalize(self, ns: NormalizedString) -> None:
        strip_accents(ns)

    def to_dict(self) -> dict:
        return {"type": "StripAccents"}
