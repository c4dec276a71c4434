"""common/unicode/grapheme.h's grapheme bounds == tokenforge.normalizers.graphemes, its readable
twin, on generated text and on every pair of characters of each class; and both against
`tokenizers` itself, through ruT5's Precompiled normalizer, on text where the bounds decide
the result (a character the charsmap replaces, then one that may join it)."""

from __future__ import annotations

import pytest
from _hf_json import diff
from _shared import MODELS, need_shared
from hypothesis import given, settings
from hypothesis import strategies as st

from tokenforge._native import _testing
from tokenforge.normalizers.graphemes import graphemes

# Characters of every grapheme class: ASCII, CR/LF and controls, combining marks (Extend),
# ZWJ/ZWNJ, spacing marks, prepends, emoji and their modifiers, regional indicators,
# Hangul jamo and syllables, Indic consonants and viramas, variation selectors.
CLASSES = ("ab \r\n\t\x01\x7f\u0085\u00ad\u200b\u2028"
           "\u0301\u0308\u0327\u093c\u0e31\u200c\u200d\ufe0f\U000e0020\U0001f3fb"
           "\u0903\u093f\u0e33\u0600\u0605\u06dd\u0d4e\U000110bd"
           "\u00a9\u00ae\u2764\U0001f600\U0001f468\U0001f469\U0001f1e6\U0001f1fa"
           "\u1100\u1161\u11a8\uac00\uac01\ud7b0\ud7cb"
           "\u0915\u094d\u0937\u09cd\u0995"
           "é中Ю")
TEXT = st.text(st.sampled_from(CLASSES), max_size=24) | st.text(st.characters(blacklist_categories=("Cs",)),
                                                                   max_size=24)


def _reference(text: str) -> list[int]:
    starts, at = [], 0
    for g in graphemes(text):
        starts.append(at)
        at += len(g)
    return starts


@settings(max_examples=3000, deadline=None)
@given(text=TEXT)
def test_native_equals_reference(text):
    assert _testing.grapheme_starts(text) == _reference(text)


def test_every_pair_of_classes():
    for a in CLASSES:
        for b in CLASSES:
            for t in (a + b, a + b + "x", "x" + a + b, a + b + a):
                assert _testing.grapheme_starts(t) == _reference(t), [hex(ord(c)) for c in t]


@pytest.fixture(scope="module")
def rut5():
    need_shared()
    import tokenizers

    from tokenforge import Tokenizer

    path = MODELS / "hf" / "rut5_tokenizer.json"
    return tokenizers.Tokenizer.from_file(str(path)), Tokenizer.from_file(path)


@settings(max_examples=1500, deadline=None)
@given(first=st.sampled_from("\u00b2\u00bd\ufb01\u2460\uff21\u00c5A\r\u0600\u1100\u00a9"),
       rest=st.text(st.sampled_from(CLASSES), max_size=6))
def test_bounds_as_tokenizers_sees_them(rut5, first, rest):
    """ruT5's charsmap replaces each `first` (or a sequence it starts): whether `rest`'s first
    characters join it decides what Precompiled writes."""
    ref, ours = rut5
    text = first + rest
    assert ours.normalizer.normalize_str(text) == ref.normalizer.normalize_str(text)  # the readable pipeline
    native = ours._native_engine().encode(text)
    if native is not None:  # None: a control character the charsmap deletes first
        assert diff(ref.encode(text, add_special_tokens=False), native) is None


def test_examples():
    assert _testing.grapheme_starts("e\u0301a\r\nb") == [0, 2, 3, 5]
    assert _testing.grapheme_starts("\u0600" + "1x") == [0, 2]  # a prepend joins what follows
    assert _testing.grapheme_starts("\U0001f468\u200d\U0001f469!") == [0, 3]  # an emoji ZWJ sequence
    assert _testing.grapheme_starts("\u1100\u1161\u11a8a") == [0, 3]  # Hangul L V T
    assert _testing.grapheme_starts("") == []
    assert _testing.grapheme_starts("\u00b2\u094d\u0915") == [0, 2]  # no conjunct without a consonant first


# Every code point U+0080..U+2FFFF after "ª", which ruT5's charsmap replaces (with what joins
# it, when the grapheme is shorter than six bytes): whether each one joins is Unicode 17.0's
# answer, the version of `tokenizers`' unicode-segmentation, not that of a newer `regex`.
_SCAN = [chr(c) for c in range(0x80, 0x30000) if not 0xD800 <= c < 0xE000]


def test_every_code_point_after_a_mapped_character(rut5):
    ref, ours = rut5
    texts = ["\u00aa" + ch + "x" for ch in _SCAN]
    bad = [t for t in texts if ours.normalizer.normalize_str(t) != ref.normalizer.normalize_str(t)]
    assert not bad, [f"U+{ord(t[1]):04X}" for t in bad[:20]]
    for t, a, b in zip(texts, ref.encode_batch(texts, add_special_tokens=False),
                       ours.encode_batch(texts, add_special_tokens=False)):
        assert (a.ids, a.offsets) == (b.ids, b.offsets), f"U+{ord(t[1]):04X}"


def test_native_classes_equal_readable_ones_everywhere():
    for ch in _SCAN + [chr(c) for c in range(0x30000, 0x110000, 7)]:
        for t in ("\u00aa" + ch, ch + "a", "\u1100" + ch):
            assert _testing.grapheme_starts(t) == _reference(t), f"U+{ord(ch):04X}"


def test_unicode_17_marks():
    assert _testing.grapheme_starts("a\u1acf") == [0]  # COMBINING DOUBLE CARON, new in 17.0
    assert _testing.grapheme_starts("a\u05c8") == [0, 1]  # unassigned in 17.0 (Extend in 18.0)
    assert [len(g) for g in graphemes("a\u1acfa\u05c8")] == [2, 1, 1]
