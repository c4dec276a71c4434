"""Hypothesis: tokenforge.tokenizer.Tokenizer == tokenizers on generated Unicode, and the native
byte-level path == the readable Python pipeline (its oracle) on the same text."""

from __future__ import annotations

import unicodedata

import pytest
from _hf_json import HF_FILES, diff, load
from _shared import need_shared
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytestmark = pytest.mark.skipif(not HF_FILES, reason="needs ../shared/models/hf")
# Every code point but surrogates: characters newer than tokenizers' Unicode included.
TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40) | st.text(" \n\tab1'é中😀<|>", max_size=30)
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                           HealthCheck.function_scoped_fixture])
FILES = ["gpt2_tokenizer.json", "llama3_1_tokenizer.json", "o200k_base_converted_tokenizer.json",
         "qwen3_tokenizer.json", "minilm_bert_uncased_tokenizer.json", "mistral_v1_tokenizer.json",
         "gemma_tokenizer.json", "claude_tokenizer.json"]


@pytest.mark.parametrize("name", FILES)
@SETTINGS
@given(text=TEXT)
def test_same_as_tokenizers(name, text):
    need_shared()
    ref, ours = load(name)
    assert diff(ref.encode(text), ours.encode(text)) is None
    assert diff(ref.encode(text, text[::-1]), ours.encode(text, text[::-1])) is None


@pytest.mark.parametrize("name", ["gpt2_tokenizer.json", "llama3_1_tokenizer.json", "cl100k_base_converted_tokenizer.json",
                                  "qwen3_tokenizer.json"])
@SETTINGS
@given(text=TEXT)
def test_native_equals_reference(name, text):
    need_shared()
    from tokenforge.tokenizer.pipeline import encode_sequence

    _, ours = load(name)
    native = ours._native_engine()
    assert native is not None
    fast = native.encode(text)
    if fast is None:  # text its normalizer (NFC) would change takes the Python path by design
        assert not unicodedata.is_normalized("NFC", text)
        return
    slow = encode_sequence(text, ours.normalizer, ours.pre_tokenizer, ours.model, ours.added)
    assert diff(slow, fast) is None
