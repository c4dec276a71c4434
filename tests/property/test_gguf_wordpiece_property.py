"""Hypothesis text through llama.cpp's WPM (the bert-bge test vocabulary) against HF
`tokenizers` on all-MiniLM's BERT tokenizer.json (the same vocabulary), on text drawn from
characters where the two sets of rules agree (see tokenforge.gguf.wordpiece for where they
do not: combining marks, multi-code-point decompositions, words over 100 characters)."""

from __future__ import annotations

import pytest
from _gguf import bert_reference, need_gguf, tokenizer
from hypothesis import given, settings
from hypothesis import strategies as st

ALPHABET = list("aZeÉéßñ \t\n 19٣'!,.?$+<=>^`|~€日本カ\u00a0\u3000\u200b\x00\ufffd\x7f[]#") + [
    "un", "aff", "able", "the", "##", "[CLS]", "[SEP]", "[UNK]", "hello", "world", "ing", "xyz"]
texts = st.lists(st.sampled_from(ALPHABET), max_size=30).map("".join)


@pytest.fixture(scope="module")
def pair():
    need_gguf()
    ref = bert_reference()
    return tokenizer("bert-bge"), ref


@settings(max_examples=300, deadline=None)
@given(text=texts)
def test_wpm_matches_tokenizers_bert(pair, text):
    tok, ref = pair
    assert tok.encode(text, parse_special=True) == ref.encode(text).ids


@settings(max_examples=300, deadline=None)
@given(text=texts)
def test_wpm_offsets_match_tokenizers_bert(pair, text):
    """Offsets (Tokenizer.from_gguf's model stage) and ids with them, against tokenizers."""
    tok, ref = pair
    with_offsets = tok._wpm.encode_with_offsets(text)
    assert [i for i, _ in with_offsets] == tok.encode(text, add_special=False)
    theirs = ref.encode(text, add_special_tokens=False)
    if "[" not in text:  # no added tokens: the WPM sees the whole text
        assert [span for _, span in with_offsets] == [tuple(o) for o in theirs.offsets]
