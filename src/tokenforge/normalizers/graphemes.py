"""Graphemes as `tokenizers`' Precompiled normalizer sees them: the readable twin of
cpp/common/unicode/grapheme.h.

UAX #29's extended grapheme clusters by rules GB3-GB11 (CR LF, controls, Extend/ZWJ,
SpacingMark, Prepend, Hangul syllables, emoji ZWJ sequences), with each character's class
read from grapheme_tables.py: Unicode 17.0's, the version `tokenizers`' unicode-segmentation
has (a mark a later Unicode adds, as 18.0's U+05C8, starts a grapheme of its own there).
Regional-indicator pairs (GB12/13) and Indic conjuncts (GB9c) are not joined: whatever they
join is at least six bytes long, and Precompiled takes such a grapheme character by
character, as it takes a single character.  (`regex`'s own `\\X` joins a virama to a
following consonant even when no consonant comes before it, which `tokenizers` does not:
"²" U+094D U+0915 is two graphemes, "²" U+094D and U+0915, and Precompiled replaces the
first whole.)

Example:
    >>> [len(g) for g in graphemes("e\\u0301a\\r\\n")]  # e + acute accent, a, CR LF
    [2, 1, 2]
"""

from __future__ import annotations

import bisect
import functools

from tokenforge.normalizers.grapheme_tables import RANGES

_FIRSTS = [first for first, _, _ in RANGES]
_EXTENDS = {"Extend", "ZWJ", "SpacingMark"}
_CONTROLS = {"CR", "LF", "Control"}
_HANGUL_NEXT = {"L": {"L", "V", "LV", "LVT"}, "LV": {"V", "T"}, "V": {"V", "T"}, "LVT": {"T"}, "T": {"T"}}


@functools.lru_cache(maxsize=4096)
def grapheme_class(ch: str) -> str:
    """The grapheme-break class of one character ("Other" when none applies)."""
    cp = ord(ch)
    i = bisect.bisect_right(_FIRSTS, cp) - 1
    return RANGES[i][2] if i >= 0 and cp <= RANGES[i][1] else "Other"


def graphemes(text: str) -> list[str]:
    """text split into graphemes (the module docstring's rules)."""
    out: list[str] = []
    start = 0
    prev = ""
    emoji = 0  # 1 after ExtPict Extend*, 2 after ExtPict Extend* ZWJ (GB11)
    for i, ch in enumerate(text):
        cls = grapheme_class(ch)
        if i == 0:
            join = False
        elif prev == "CR":
            join = cls == "LF"  # GB3, GB4
        elif prev in _CONTROLS or cls in _CONTROLS:
            join = False  # GB4, GB5
        elif cls in _EXTENDS or prev == "Prepend":
            join = True  # GB9, GB9a, GB9b
        elif prev in _HANGUL_NEXT:
            join = cls in _HANGUL_NEXT[prev]  # GB6-GB8
        else:
            join = cls == "ExtPict" and emoji == 2  # GB11
        if not join:
            if i > 0:
                out.append(text[start:i])
            start = i
            emoji = 0
        if cls == "ExtPict":
            emoji = 1
        elif cls == "ZWJ":
            emoji = 2 if emoji == 1 else 0
        elif cls != "Extend" or emoji == 2:
            emoji = 0
        prev = cls
    if text:
        out.append(text[start:])
    return out
