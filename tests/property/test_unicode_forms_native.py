"""cpp/normalize/unicode_forms.cc (``_native.normalize_unicode``) == its readable twin,
tokenforge.normalizers.unicode.normalize_aligned: the same normalized text and the same
original (start, end) for every character, in all four forms, on generated text, on every
code point alone and beside marks, and on whole corpus files; then against `tokenizers`
itself on generated text (its NFC/NFKC/NFD/NFKD normalizers' alignment)."""

from __future__ import annotations

import unicodedata

import pytest
from _shared import corpus_sample, need_shared
from hypothesis import given, settings
from hypothesis import strategies as st

from tokenforge import _native
from tokenforge.normalizers.normalized_string import NormalizedString
from tokenforge.normalizers.hf_unicode import combining, is_inert
from tokenforge.normalizers.unicode import _seconds, normalize_aligned

FORMS = ("NFC", "NFD", "NFKC", "NFKD")

# Marks of many classes (some that reorder), composites and their parts, Hangul jamo and
# syllables (LV and LVT), compatibility characters, singletons and exclusions, starters that
# compose with the starter before them, characters Unicode 11.0 does not assign and marks
# of 10.0/11.0 (starters to tokenizers), and plain letters.
PARTS = ("a", "e", "o", "u", "A", "K", " ", "\u0301", "\u0300", "\u0302", "\u0308", "\u0304", "\u0316", "\u0323",
         "\u0345", "\u0334", "\u031b", "\u093c", "\u05b0", "\u0e38", "\u0344", "\u0f73", "\u0f71", "\u0f72",
         "\u1100", "\u1112", "\u1161", "\u1175", "\u11a8", "\u11c2", "\uac00", "\uac01", "\ud7a3", "\u3131",
         "\u00e9", "\u00e2", "\u1ea1", "\u01d6", "\u212b", "\u212a", "\u2126", "\u0958", "\u0374", "\u0387",
         "\ufb01", "\u2460", "\u3000", "\u00a0", "\u00bd", "\uff76", "\uff9e", "\u3099", "\u304b", "\uf900",
         "\U0002f800", "\U0001d15e", "\U0001d165", "\U0001d16e",
         "\u0b47", "\u0b3e", "\u0b56", "\u09c7", "\u09be", "\u1025", "\u102e",
         "\U00011935", "\U00011930", "\U00011938", "\u0d3b", "\u1df6", "\u08d3", "\u1c89",
         "\ufdfa", "\ufc5e", "\u0e33", "\u0eb3", "\u1e9b", "\u0385")
TEXT = st.one_of(st.lists(st.sampled_from(PARTS), max_size=16).map("".join),
                 st.text(st.characters(blacklist_categories=("Cs",)), max_size=16))


def reference(text: str, form: str) -> tuple[str, list[tuple[int, int]]]:
    ns = NormalizedString.from_text(text)
    normalize_aligned(ns, form)
    return ns.text, ns.align


def native(text: str, form: str) -> tuple[str, list[tuple[int, int]]]:
    found = _native.normalize_unicode(text, form)
    if found is None:
        return text, [(i, i + 1) for i in range(len(text))]
    out, starts, ends = found
    s, e = memoryview(starts).cast("I").tolist(), memoryview(ends).cast("I").tolist()
    assert len(s) == len(e) == len(out)
    return out, list(zip(s, e))


def check(text: str) -> None:
    for form in FORMS:
        assert native(text, form) == reference(text, form), (form, [hex(ord(c)) for c in text])


@settings(max_examples=2000, deadline=None)
@given(text=TEXT)
def test_native_equals_reference(text):
    check(text)


def test_every_code_point():
    """Each code point that decomposes, is a mark, or is either part of a composite (in
    Unicode 11.0, as tokenizers has it), and every 97th other one below U+30000 (none above
    decomposes or composes): alone, after a letter, and before marks and jamo that compose
    or reorder; in long texts, as the tables are read per character."""
    seconds = _seconds()
    cps = []
    for c in range(0x30000):
        ch = chr(c)
        if 0xD800 <= c < 0xE000:
            continue
        if (not is_inert(ch) and (combining(ch) or ch in seconds or unicodedata.decomposition(ch))) or c % 97 == 0:
            cps.append(ch)
    cps += sorted({unicodedata.normalize("NFD", c)[0] for c in cps})  # the first part of each
    for k in range(0, len(cps), 4096):
        chunk = cps[k:k + 4096]
        check(" ".join(chunk))
        check("".join("a" + c for c in chunk))
        check("".join(c + "\u0323\u0302" for c in chunk))
        check("".join(c + "\u1161\u11a8" for c in chunk))


def test_pairs_of_parts():
    for a in PARTS:
        for b in PARTS:
            check(a + b)
            check("x" + a + b + a)


def test_unchanged_is_none():
    assert _native.normalize_unicode("plain text, no marks", "NFKC") is None
    assert _native.normalize_unicode("café 中文 한국어", "NFC") is None  # precomposed already
    assert _native.normalize_unicode("", "NFD") is None
    with pytest.raises(ValueError, match="NFX"):
        _native.normalize_unicode("x", "NFX")


@pytest.mark.parametrize("name", ["en", "code", "multi"])
def test_corpus(name):
    need_shared()
    text = corpus_sample(name, 100_000)
    for form in FORMS:
        assert native(text, form) == reference(text, form), form


tokenizers = pytest.importorskip("tokenizers")


@settings(max_examples=300, deadline=None)
@given(text=TEXT)
def test_against_tokenizers_text(text):
    """The normalized text itself against `tokenizers` (the alignment is checked through
    offsets in tests/parity/test_byte_level_normalized.py)."""
    for form in FORMS:
        normalizer = getattr(tokenizers.normalizers, form)()
        assert native(text, form)[0] == normalizer.normalize_str(text), (form, [hex(ord(c)) for c in text])
