"""BertNormalizer and BertPreTokenizer as one table per code point, for the native BERT path.

Every BertNormalizer step maps one character to a string (clean_text, the spaces around CJK,
NFD then dropping nonspacing marks, lowercase), and `tokenizers` aligns each output
character with the character it came from — except where NFD reorders combining marks of
different classes, whose alignments then follow their new positions.  Marks are dropped by
strip_accents, so only a kept character with a nonzero combining class (a spacing mark
such as U+0F39) can tell the two apart: the table flags those (`REORDER`) and the native
encoder hands their texts back to the Python pipeline.  Everything else is one lookup per
character.

Flags per code point (one byte each): `MAPPED` (the normalizer changes it; its output is in
the map), `REORDER` (above), `SPACE` and `PUNCT` (the pre-tokenizer's classes of the
character as a normalized one), `DROPPED` (clean_text removes it), `CJK` (a CJK ideograph
the normalizer only spaces out).  Built from the readable pipeline's Unicode facts
(`tokenizers`' own tables, normalizers/hf_unicode.py, over this Python's `unicodedata`), once
per normalizer configuration.

Left out: code points 0x40000..0xDFFFF, unassigned in every Unicode version Python ships,
are taken as unassigned without asking `unicodedata` (this keeps the build short).

Example:
    >>> flags, mapped = bert_tables(True, True, None, True)
    >>> mapped[ord("É")], flags[ord("中")] & CJK != 0, flags[ord(",")] & PUNCT != 0
    ('e', True, True)
"""

from __future__ import annotations

import bisect
import functools
import unicodedata

from tokenforge.normalizers.bert import _CJK, WHITE_SPACE, _clean, is_cjk
from tokenforge.normalizers.hf_unicode import is_bert_mark, is_inert, is_punctuation, lower
from tokenforge.normalizers.hf_unicode_tables import BERT_MARKS, LOWERCASE, UNASSIGNED_IN_NORMALIZATION

MAPPED, REORDER, SPACE, PUNCT, DROPPED, CJK = 1, 2, 8, 16, 32, 64
_LIMIT = 0x110000
_GAP = (0x40000, 0xE0000)  # planes 4..13: unassigned


def _index(cp: int) -> int | None:
    """cp's index in the list of code points bert_tables walks (None: a surrogate or in the gap)."""
    if cp < 0xD800:
        return cp
    if cp < 0xE000:
        return None
    if cp < _GAP[0]:
        return cp - 0x800
    if cp < _GAP[1]:
        return None
    return cp - 0x800 - (_GAP[1] - _GAP[0])


def compose(c: str, clean_text: bool, cjk: bool, strip: bool, lowercase: bool, is_mark=is_bert_mark) -> tuple[str, int]:
    """The normalizer's output for one character and its REORDER/DROPPED flags (readable steps).

    Example:
        >>> compose("Ä", True, True, True, True)
        ('a', 0)
    """
    f = 0
    s = _clean(c) if clean_text else c
    if not s:
        return "", DROPPED
    if cjk and s == c and is_cjk(c):
        s = " " + c + " "
    if strip:
        s = "".join(ch for ch in _nfd(s) if not is_mark(ch))
        if any(_combining(ch) for ch in s):
            f |= REORDER
    if lowercase:
        s = "".join(map(lower, s))
    return s, f


def _nfd(s: str) -> str:
    """NFD as tokenizers' Unicode 11.0 tables give it, character by character."""
    return "".join(ch if is_inert(ch) else unicodedata.normalize("NFD", ch) for ch in s)


def _combining(ch: str) -> int:
    return 0 if is_inert(ch) else unicodedata.combining(ch)


@functools.lru_cache(maxsize=8)
def bert_tables(clean_text: bool, handle_chinese_chars: bool, strip_accents: bool | None,
                lowercase: bool, marks_of: str = "bert") -> tuple[bytes, dict[int, str]]:
    """(flags, map): one flag byte per code point and the output of every changed one that
    is not `DROPPED` or a plain `CJK` ideograph (those two the encoder handles by flag).
    `marks_of`: whose marks accent stripping drops, BertNormalizer's ("bert") or the
    StripAccents normalizer's ("strip_accents", another table)."""
    from tokenforge.normalizers.hf_unicode import is_stripped_mark
    from tokenforge.normalizers.hf_unicode_tables import STRIP_ACCENTS_MARKS

    is_mark, mark_ranges = ((is_bert_mark, BERT_MARKS) if marks_of == "bert"
                            else (is_stripped_mark, STRIP_ACCENTS_MARKS))
    strip = bool(strip_accents if strip_accents is not None else lowercase)
    flags = bytearray(_LIMIT)
    mapped: dict[int, str] = {}
    cps = [*range(0xD800), *range(0xE000, _GAP[0]), *range(_GAP[1], _LIMIT)]
    chars = list(map(chr, cps))
    cats = list(map(unicodedata.category, chars))
    lowers = [LOWERCASE.get(cp, c) for cp, c in zip(cps, chars)] if lowercase else chars  # lower(), inlined
    decomps = list(map(unicodedata.decomposition, chars))
    combining = list(map(unicodedata.combining, chars))
    # tokenizers' NFD leaves these alone (looked up from the few code points that have a
    # decomposition or a combining class, not walked: the ranges hold most of Unicode)
    changing = [cp for cp, d, cc in zip(cps, decomps, combining) if d or cc]
    for a, b in UNASSIGNED_IN_NORMALIZATION:
        for cp in changing[bisect.bisect_left(changing, a):bisect.bisect_right(changing, b)]:
            i = _index(cp)
            decomps[i], combining[i] = "", 0
    marks = {c for a, b in mark_ranges for c in range(a, b + 1)}
    cjk = bytearray(_LIMIT)
    for a, b in _CJK:
        cjk[a:b + 1] = b"\x01" * (b + 1 - a)
    for cp, c, k, lo, d, cc in zip(cps, chars, cats, lowers, decomps, combining):
        nfd_same = not d or d[0] == "<"  # compatibility decompositions are no part of NFD
        if cjk[cp] and handle_chinese_chars and lo == c and nfd_same:
            flags[cp] = CJK
            continue
        if cp >= 0x80 and lo == c and cc == 0 and nfd_same and k[0] not in "CZMP" and not cjk[cp] and cp != 0xFFFD \
                and cp not in marks and not is_punctuation(c) and not (0xAC00 <= cp <= 0xD7A3 or 0x1160 <= cp <= 0x11FF):
            continue  # letters, numbers, symbols no step changes and no class matches
        if k == "Cn" and cp >= 0x80 and lo == c and cp not in marks and not is_punctuation(c):
            continue
        if k == "Co" and clean_text:
            flags[cp] = DROPPED
            continue
        f = (SPACE if c in WHITE_SPACE else 0) | (PUNCT if is_punctuation(c) else 0)
        s, g = compose(c, clean_text, handle_chinese_chars, strip, lowercase, is_mark)
        f |= g
        if handle_chinese_chars and s == " " + c + " " and is_cjk(c):
            f |= CJK
        elif s != c and not (f & DROPPED):
            f |= MAPPED
            mapped[cp] = s
        flags[cp] = f
    return bytes(flags), mapped
