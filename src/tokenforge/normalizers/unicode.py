"""Unicode normalizers: NFC, NFD, NFKC, NFKD, Lowercase, StripAccents.

Each rewrites the text with the character alignment `tokenizers` gives, by following the steps
of the normalizer it uses (the `unicode-normalization-alignments` crate) on an edit list:

1. each character becomes its full decomposition; the first character of it takes the
   original's place (change 0), the others are inserted after it (change +1);
2. each run of non-starters is sorted by combining class (stably), every character carrying
   its change along;
3. for NFC/NFKC, the canonical composition algorithm: a character that composes with the last
   starter is absorbed into it, and the composite's change is the sum of both, minus one.

The edit list then maps each output character to an original one in order (`transform`), so a
composite whose absorbed mark came after a reordered one takes that mark's place, exactly as in
`tokenizers` (``"a\u0316\u0301"`` gives ``"á\u0316"`` aligned to characters 0 and 2).

The Unicode data is `tokenizers`' (hf_unicode.py): normalization as in Unicode 11.0, where a
character assigned since is a starter that stays as it is and composes with nothing, and the
marks of Unicode 10.0 and 11.0 are starters too; Lowercase and StripAccents by its own tables.

Example:
    >>> from tokenforge.normalizers.normalized_string import NormalizedString
    >>> s = NormalizedString.from_text("ﬁ!")
    >>> NFKC().normalize(s); s.text, s.align
    ('fi!', [(0, 1), (0, 1), (1, 2)])
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

from tokenforge.normalizers.normalized_string import NormalizedString


# (character, form) -> its decomposition; emptied when it reaches _DECOMPOSED_LIMIT entries.
_DECOMPOSED: dict[tuple[str, str], tuple[tuple[str, int], ...]] = {}
_DECOMPOSED_LIMIT = 1 << 16


def _decomposed(ch: str, form: str) -> tuple[tuple[str, int], ...]:
    """The full decomposition of one character, each with its combining class."""
    from tokenforge.normalizers.hf_unicode import combining, is_inert

    if is_inert(ch):
        return ((ch, 0),)
    return tuple((c, combining(c)) for c in unicodedata.normalize(form, ch))


@lru_cache(maxsize=1)
def _seconds() -> frozenset[str]:
    """Every character that composes with one before it: the second of a primary composite's
    canonical decomposition, and Hangul's vowel and trailing jamo."""
    out = {chr(c) for c in range(0x1161, 0x1176)} | {chr(c) for c in range(0x11A8, 0x11C3)}
    for c in range(0x2FFFF):
        d = unicodedata.decomposition(chr(c))
        if d and d[0] != "<":
            parts = d.split()
            if len(parts) == 2 and unicodedata.normalize("NFC", chr(c)) == chr(c):
                out.add(chr(int(parts[1], 16)))
    return frozenset(out)


@lru_cache(maxsize=1 << 14)
def _composite(first: str, second: str) -> str | None:
    """The primary composite of two characters, or None (Unicode 11.0's: never an inert one)."""
    from tokenforge.normalizers.hf_unicode import is_inert

    if is_inert(first) or is_inert(second):
        return None
    both = unicodedata.normalize("NFC", first + second)
    return both if len(both) == 1 else None


def _decompose(text: str, form: str) -> list[tuple[str, int, int]]:
    """Steps 1 and 2 of the module docstring: (character, combining class, change)."""
    out: list[tuple[str, int, int]] = []
    run = 0  # where the current run of non-starters begins
    cache = _DECOMPOSED
    for ch in text:
        parts = cache.get((ch, form))
        if parts is None:
            if len(cache) >= _DECOMPOSED_LIMIT:  # text over every code point must not grow it without bound
                cache.clear()
            parts = cache[(ch, form)] = _decomposed(ch, form)
        if len(parts) == 1 and parts[0][1] == 0:  # one starter
            if len(out) - run > 1:
                out[run:] = sorted(out[run:], key=lambda x: x[1])
            out.append((parts[0][0], 0, 0))
            run = len(out)
            continue
        for t, (c, ccc) in enumerate(parts):
            if ccc == 0:
                if len(out) - run > 1:
                    out[run:] = sorted(out[run:], key=lambda x: x[1])
                out.append((c, 0, 0 if t == 0 else 1))
                run = len(out)
            else:
                out.append((c, ccc, 0 if t == 0 else 1))
    if len(out) - run > 1:
        out[run:] = sorted(out[run:], key=lambda x: x[1])
    return out


def _recompose(stream: list[tuple[str, int, int]]) -> list[tuple[str, int]]:
    """Step 3 of the module docstring, over the output of `_decompose`."""
    out: list[tuple[str, int]] = []
    starter: tuple[str, int] | None = None  # the last starter, which may still absorb marks
    waiting: list[tuple[str, int]] = []  # marks after it that it did not absorb
    last_class = 0  # the combining class of the last waiting mark (0: none waits)
    seconds = _seconds()
    for c, ccc, change in stream:
        if starter is None:
            if ccc != 0:  # a mark before any starter
                out.append((c, change))
            else:
                starter = (c, change)
            continue
        if c in seconds and not (last_class != 0 and last_class >= ccc):  # not blocked
            made = _composite(starter[0], c)
            if made is not None:
                starter = (made, starter[1] + change - 1)
                continue
        if ccc == 0:
            out.append(starter)
            out.extend(waiting)
            waiting.clear()
            starter, last_class = (c, change), 0
        else:
            waiting.append((c, change))
            last_class = ccc
    if starter is not None:
        out.append(starter)
    out.extend(waiting)
    return out


def normalize_aligned(ns: NormalizedString, form: str) -> None:
    """Applies a Unicode normalization form to `ns` (module docstring)."""
    from tokenforge.normalizers.hf_unicode import has_inert

    text = ns.text
    if text.isascii():
        return
    if not has_inert(text) and unicodedata.is_normalized(form, text):
        return
    stream = _decompose(text, "NFKD" if form in ("NFKC", "NFKD") else "NFD")
    if form in ("NFC", "NFKC"):
        changes = _recompose(stream)
    else:
        changes = [(c, change) for c, _, change in stream]
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
