"""tokenforge.normalizers against `tokenizers` 0.23.3 on text mixing marks, characters Unicode
11.0 does not assign (which `tokenizers` leaves alone and a newer `unicodedata` decomposes or
reorders), case pairs newer than this Python, and controls: the same normalized text, every
form.  The tables come from scripts/gen_hf_unicode_tables.py; these tests check them in use."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tokenforge import Tokenizer, normalizers
from tokenforge.normalizers.normalized_string import NormalizedString

tokenizers = pytest.importorskip("tokenizers")
hn = tokenizers.normalizers

# Marks of many combining classes, composites, post-11.0 characters with decompositions or
# combining classes (Dives Akuru, Latin extensions, Kirat Rai, Garay), post-14.0 case pairs,
# controls, and ordinary letters.
_TRICKY = (["a", "e", "A", "\u0301", "\u0316", "\u0345", "\u0334", "\u093c", "\u05b0", "\u0e38", "\u1100", "\u1161",
            "\u11a8", "\uac00", "\u00e9", "\u212b", "\ufb01", "\u2460", "\u3000", "\u0488", "\u0903", "\u0890",
            "\u08d4", "\U00011935", "\U00011930", "\U00011938", "\U0001193b", "\U0001193e", "\ua7f2", "\U00010781",
            "\u32ff", "\U0001f16c", "\u1c89", "\ua7cb", "\U00010d50", "\U00016d63", "\U00016d67", "\U00016d68",
            "\U000105c9", "\U00011f00", "\u00ad", "\u200b", "\x85", "\t", "\x00", "\ufffd", "\u0130", "\u03a3",
            # starters that compose with the starter before them (Oriya, Bengali, Myanmar), and
            # characters whose decomposition reorders or begins with a mark
            "\u0b47", "\u0b3e", "\u0b56", "\u09c7", "\u09be", "\u1025", "\u102e", "\u0f73", "\u0344",
            "\u0323", "\u0308", "\u1e0b", "\u0958", "\uff76", "\uff9e", "\u3099", "\u304b",
            # marks of Unicode 10.0 and 11.0, which tokenizers' normalizers take as starters
            "\u0d3b", "\u035f", "\U00011d44", "\u1c37", "\u08d3", "\u1df6",
            # what Nmt drops or makes a space
            "\x01", "\x1f", "\x7f", "\x8f", "\u200d", "\u2581", "\ufeff", "\u2029", "\n", "\r"])
_TEXT = st.one_of(
    st.lists(st.sampled_from(_TRICKY), max_size=12).map("".join),
    st.text(st.characters(blacklist_categories=("Cs",)), max_size=12),
)
_PAIRS = [(hn.NFC(), normalizers.NFC()), (hn.NFD(), normalizers.NFD()), (hn.NFKC(), normalizers.NFKC()),
          (hn.NFKD(), normalizers.NFKD()), (hn.Lowercase(), normalizers.Lowercase()),
          (hn.StripAccents(), normalizers.StripAccents()),
          (hn.BertNormalizer(), normalizers.BertNormalizer()),
          (hn.BertNormalizer(strip_accents=True, lowercase=False), normalizers.BertNormalizer(strip_accents=True, lowercase=False)),
          (hn.Sequence([hn.NFD(), hn.StripAccents(), hn.Lowercase()]),
           normalizers.Sequence([normalizers.NFD(), normalizers.StripAccents(), normalizers.Lowercase()])),
          (hn.Nmt(), normalizers.Nmt()), (hn.ByteLevel(), normalizers.ByteLevel())]


def _ours(n, text: str) -> str:
    s = NormalizedString.from_text(text)
    n.normalize(s)
    return s.text


@settings(max_examples=400, deadline=None)
@given(_TEXT)
def test_normalized_text_is_tokenizers(text):
    for ref, ours in _PAIRS:
        assert _ours(ours, text) == ref.normalize_str(text), (type(ours).__name__, text)


def test_characters_newer_than_unicode_11_stay():
    """Dives Akuru's vowel sign composes in Unicode 13.0 and U+32FF decomposes in 12.1;
    tokenizers' tables are 11.0's, so neither changes, nor do marks reorder across them."""
    for text in ["\U00011935\U00011930", "\U00011938", "\u32ff", "a\U0001193e\u0316\u0301"]:
        for ref, ours in _PAIRS[:4]:
            assert _ours(ours, text) == ref.normalize_str(text), (type(ours).__name__, text)
    assert _ours(normalizers.NFKC(), "\u32ff") == "\u32ff"


def _per_character(normalizer):
    """A `tokenizers` Tokenizer whose tokens are the normalized characters, one each: its
    offsets are the normalizer's alignment."""
    t = tokenizers.Tokenizer(tokenizers.models.WordLevel({"[UNK]": 0}, unk_token="[UNK]"))
    t.normalizer = normalizer
    t.pre_tokenizer = tokenizers.pre_tokenizers.Split(tokenizers.Regex("(?m)."), "isolated")
    return t, Tokenizer.from_str(t.to_str())


_ALIGNED = [_per_character(n) for n in (hn.NFC(), hn.NFD(), hn.NFKC(), hn.NFKD(), hn.Nmt(), hn.ByteLevel())]


@settings(max_examples=400, deadline=None)
@given(_TEXT)
def test_alignment_is_tokenizers(text):
    """Where composition absorbs a mark that came after a reordered one, the composite takes
    that mark's place in `tokenizers`; starters compose with the starter before them."""
    for ref, ours in _ALIGNED:
        assert ours.encode(text).offsets == ref.encode(text).offsets, (ref.normalizer, text)


def test_newer_marks_are_starters():
    """U+0D3B (Unicode 10.0, class 9 in unicodedata) does not move before U+035F (233) in
    tokenizers' NFD; BertNormalizer then strips U+035F and keeps U+0D3B on character 1."""
    assert _ours(normalizers.NFD(), "\u035f\u0d3b") == "\u035f\u0d3b" == hn.NFD().normalize_str("\u035f\u0d3b")


def test_alignment_worked_by_hand():
    """NFC of a + U+0316 + U+0301 is á + U+0316: U+0301 (class 230) is absorbed past U+0316
    (220), and the edit list (á: -1, U+0316: 0) puts á on character 0 and U+0316 on 2."""
    ref, ours = _ALIGNED[0]
    assert ours.encode("a\u0316\u0301").offsets == [(0, 1), (2, 3)] == ref.encode("a\u0316\u0301").offsets
    assert ours.encode("\u0b47\u0b3e").tokens == ["[UNK]"]  # one character, U+0B4B
    # the composite's change is 0 + 0 - 1: it sits on character 0, and character 1 is skipped
    assert ours.encode("\u0b47\u0b3e").offsets == [(0, 1)] == ref.encode("\u0b47\u0b3e").offsets
