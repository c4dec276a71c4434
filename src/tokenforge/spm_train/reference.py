"""Readable pure-Python sentencepiece BPE training: the oracle of the native merger.

Given counted words (already cut at "▁"), the alphabet and the piece rules, it learns
pieces exactly as sentencepiece's BPE trainer does, by recounting every adjacent pair each
step (quadratic: small inputs only):

1. A pair counts if both sides are known characters or learned pieces, the joined string
   is a valid piece (:func:`valid_piece`) and was not learned already (a string reached
   again by another path is never learned twice); its frequency sums the counts of the
   words it occurs in, overlapping occurrences included.
2. The best pair has the highest frequency, then the fewest characters, then the smallest
   string.  Every word is rewritten left to right joining that pair.
3. The alphabet's characters follow the learned pieces, most frequent first.

What this leaves out: reading and normalizing text (front_end.py), speed (the native
``SpmBpeMerger``), the model file (model_file.py).

Example:
    >>> learn_bpe({"▁aaab": 2, "▁ab": 1}, set("▁ab"), PieceRulesRef(), 3)
    ['aa', 'ab', '▁aa']
"""

from __future__ import annotations

import functools
from collections import Counter
from dataclasses import dataclass

import regex
import regex._regex_core as _regex_core

SPACE_MARK = "\u2581"
UNKNOWN_MARK = "\u2585"
_SCRIPT_IDS = _regex_core.PROPERTIES["SCRIPT"][1]  # name or alias -> script id
_SCRIPTS = sorted({v: k for k, v in _SCRIPT_IDS.items()}.items())  # (id, one of its names)
COMMON, INHERITED, HAN = _SCRIPT_IDS["COMMON"], _SCRIPT_IDS["INHERITED"], _SCRIPT_IDS["HAN"]
HIRAGANA, KATAKANA, UNKNOWN = _SCRIPT_IDS["HIRAGANA"], _SCRIPT_IDS["KATAKANA"], _SCRIPT_IDS["UNKNOWN"]


@dataclass(frozen=True)
class PieceRulesRef:
    """The trainer options that decide which strings may be pieces."""

    max_length: int = 16
    split_by_unicode_script: bool = True
    split_by_whitespace: bool = True
    split_by_number: bool = True
    split_digits: bool = False
    treat_whitespace_as_suffix: bool = False
    allow_whitespace_only_pieces: bool = False


@functools.lru_cache(maxsize=None)
def script_of(c: str) -> int:
    """The Unicode script of one character as the `regex` module numbers it (Common when it has none)."""
    for sid, name in _SCRIPTS:
        if sid not in (UNKNOWN, COMMON) and regex.fullmatch(r"\p{Script=" + name + "}", c):
            return sid
    return COMMON


def _digit(c: str) -> bool:
    return "0" <= c <= "9" or "\uff10" <= c <= "\uff19"


def valid_piece(s: str, rules: PieceRulesRef) -> bool:
    """Whether sentencepiece's trainer may learn `s` (see cpp/training/sentencepiece/piece_rules.h).

    >>> valid_piece("▁ab", PieceRulesRef()), valid_piece("a▁", PieceRulesRef()), valid_piece("a1", PieceRulesRef())
    (True, False, False)
    """
    if not s or len(s) > rules.max_length:
        return False
    any_script = None
    prev = any_script
    all_space = all(c == SPACE_MARK for c in s)
    for pos, c in enumerate(s):
        cp = ord(c)
        if c == UNKNOWN_MARK or cp in (0, 0x1F, 0x20) or 0xD800 <= cp <= 0xDFFF:
            return False
        if c == SPACE_MARK:
            if rules.allow_whitespace_only_pieces and all_space:
                continue
            last = pos == len(s) - 1
            if rules.treat_whitespace_as_suffix:
                bad = not last if rules.split_by_whitespace else (not last and pos == 0)
            else:
                bad = pos > 0 if rules.split_by_whitespace else (pos > 0 and last)
            if bad:
                return False
            continue
        script = script_of(c)
        if script in (HIRAGANA, KATAKANA) or cp == 0x30FC:
            script = HAN
        elif script == INHERITED:
            script = prev
        if not rules.split_by_number and _digit(c):
            script = any_script
        if rules.split_digits and _digit(c) and len(s) > 1:
            return False
        if rules.split_by_unicode_script and script is not any_script and prev is not any_script and prev != script:
            return False
        prev = script
    return True


def learn_bpe(words: dict[str, int], alphabet: set[str], rules: PieceRulesRef, pieces: int) -> list[str]:
    """Learns up to `pieces` pieces from `words` (text -> count); characters outside
    `alphabet` are unknown and join nothing.  Returns the learned pieces in order (the
    alphabet is not appended)."""
    segs = [[c if c in alphabet else UNKNOWN_MARK for c in w] for w in words]
    counts = list(words.values())
    learned: list[str] = []
    seen: set[str] = set()
    while len(learned) < pieces:
        freq: Counter[tuple[str, str]] = Counter()
        for seg, n in zip(segs, counts):
            for a, b in zip(seg, seg[1:]):
                if UNKNOWN_MARK not in (a, b) and a + b not in seen and valid_piece(a + b, rules):
                    freq[(a, b)] += n
        if not freq:
            break
        a, b = min(freq, key=lambda p: (-freq[p], len(p[0]) + len(p[1]), p[0] + p[1]))
        learned.append(a + b)
        seen.add(a + b)
        for seg in segs:
            i = 0
            while i < len(seg) - 1:
                if seg[i] == a and seg[i + 1] == b:
                    seg[i:i + 2] = [a + b]
                i += 1
    return learned
