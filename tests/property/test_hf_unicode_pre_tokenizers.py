"""tokenforge.pre_tokenizers against `tokenizers` 0.23.3 on characters of every Unicode class,
including those newer than its regex engine's (Oniguruma) and Rust's tables: the same pieces.
The tables come from scripts/gen_hf_unicode_tables.py; these tests check them in use, on a
sample of every code point and on hypothesis text."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tokenforge import pre_tokenizers

tokenizers = pytest.importorskip("tokenizers")
hp = tokenizers.pre_tokenizers

_PAIRS = [
    (hp.Whitespace(), pre_tokenizers.Whitespace()),
    (hp.BertPreTokenizer(), pre_tokenizers.BertPreTokenizer()),
    (hp.Punctuation(), pre_tokenizers.Punctuation()),
    (hp.Digits(individual_digits=True), pre_tokenizers.Digits(individual_digits=True)),
    (hp.ByteLevel(add_prefix_space=False), pre_tokenizers.ByteLevel(add_prefix_space=False)),
    (hp.Split(tokenizers.Regex(r"\p{Lu}+|\p{N}{1,3}|[^\r\n\p{L}\p{N}]?\p{L}+|\s+"), "isolated"),
     pre_tokenizers.Split({"Regex": r"\p{Lu}+|\p{N}{1,3}|[^\r\n\p{L}\p{N}]?\p{L}+|\s+"}, "Isolated")),
    (hp.Split(tokenizers.Regex(r"[\w\p{M}]+|\W"), "isolated"), pre_tokenizers.Split({"Regex": r"[\w\p{M}]+|\W"}, "Isolated")),
    # adjacent stretches between matches (only invert makes them) are joined too
    (hp.Split(tokenizers.Regex(r"\p{L}+|\s"), "contiguous", invert=True),
     pre_tokenizers.Split({"Regex": r"\p{L}+|\s"}, "Contiguous", invert=True)),
    (hp.CharDelimiterSplit("\u00e9"), pre_tokenizers.CharDelimiterSplit("\u00e9")),
    (hp.FixedLength(3), pre_tokenizers.FixedLength(3)),
    (hp.UnicodeScripts(), pre_tokenizers.UnicodeScripts()),
]


def _pieces(pre, text):
    return [p for p, _ in pre.pre_tokenize_str(text)]


@pytest.mark.parametrize("k", range(len(_PAIRS)))
def test_every_code_point_sampled(k):
    ref, ours = _PAIRS[k]
    for c in range(k, 0x110000, 37):
        if 0xD800 <= c < 0xE000:
            continue
        text = f"a{chr(c)}b {chr(c)}1"
        assert _pieces(ours, text) == _pieces(ref, text), hex(c)


@settings(max_examples=200, deadline=None)
@given(st.text(st.characters(blacklist_categories=("Cs",)), max_size=16))
def test_generated_text(text):
    for ref, ours in _PAIRS:
        assert _pieces(ours, text) == _pieces(ref, text), (type(ours).__name__, text)
