"""Hypothesis: the native BERT path (tokenforge.tokenizer.native_bert) == the readable Python
pipeline (its oracle) and == tokenizers, on MiniLM's tokenizer.json and on variants of it
(every BertNormalizer option flipped, a short max_input_chars_per_word, no normalizer)."""

from __future__ import annotations

import functools
import json
import unicodedata

import pytest
from _hf_json import assert_same_encodings, diff
from _shared import MODELS, need_shared
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

MINILM = MODELS / "hf" / "minilm_bert_uncased_tokenizer.json"
pytestmark = pytest.mark.skipif(not MINILM.is_file(), reason="needs ../shared/models/hf")

# accents (precomposed and combining), CJK, Hangul, controls, format characters, odd spaces,
# punctuation, letters whose lowercase is longer, the added tokens' brackets
ALPHABET = "aZé\u0301\u0308Å中文한국\x00\x1f\u200b\u00ad\t\n \u3000\u00a0.,!?¿-İẞΣ[]CLSEP😀\ufffd"
TEXT = (st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)
        | st.text(ALPHABET, max_size=40)
        | st.lists(st.sampled_from(["[CLS]", "[SEP]", "[MASK]", "hello", "Ünïcödé", " ", "x" * 30, "中", "é\u0301"]),
                   max_size=8).map("".join))
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

VARIANTS = {
    "file": {},
    "cased": {"lowercase": False},
    "strip_only": {"lowercase": False, "strip_accents": True},
    "lower_keep_accents": {"strip_accents": False},
    "raw": {"clean_text": False, "handle_chinese_chars": False},
    "no_normalizer": None,
}


@functools.lru_cache(maxsize=None)
def _pair(variant: str, max_chars: int = 100):
    """(tokenizers.Tokenizer, tokenforge Tokenizer) of MiniLM with one normalizer variant."""
    import tokenizers

    from tokenforge.tokenizer import Tokenizer

    d = json.loads(MINILM.read_text(encoding="utf-8"))
    d["truncation"] = d["padding"] = None
    opts = VARIANTS[variant]
    d["normalizer"] = None if opts is None else {**d["normalizer"], **opts}
    d["model"]["max_input_chars_per_word"] = max_chars
    s = json.dumps(d)
    return tokenizers.Tokenizer.from_str(s), Tokenizer.from_str(s)


@pytest.mark.parametrize("variant", list(VARIANTS))
@SETTINGS
@given(text=TEXT)
def test_native_equals_oracle(variant, text):
    need_shared()
    from tokenforge.tokenizer.pipeline import encode_sequence

    _, ours = _pair(variant)
    native = ours._native_engine()
    assert type(native).__name__ == "NativeBert"
    fast = native.encode(text)
    if fast is None:  # a kept character NFD could reorder
        assert any(unicodedata.combining(c) for c in unicodedata.normalize("NFD", text))
        return
    slow = encode_sequence(text, ours.normalizer, ours.pre_tokenizer, ours.model, ours.added)
    assert diff(slow, fast) is None


@pytest.mark.parametrize("variant", list(VARIANTS))
@SETTINGS
@given(text=TEXT, pair=TEXT)
def test_same_as_tokenizers(variant, text, pair):
    need_shared()
    ref, ours = _pair(variant)
    assert_same_encodings(ref, ours, text, pair)


@SETTINGS
@given(words=st.lists(st.text(ALPHABET + "abcdefghij", min_size=1, max_size=12), max_size=6))
def test_short_max_input_chars(words):
    """Words over max_input_chars_per_word (here 6) become one [UNK]."""
    need_shared()
    ref, ours = _pair("file", 6)
    text = " ".join(words)
    assert diff(ref.encode(text), ours.encode(text)) is None
    assert ours._native_engine() is not None


@SETTINGS
@given(word=st.text("abcdefghijklmnopqrstuvwxyz##中é", min_size=1, max_size=30))
def test_wordpiece_model_equals_python(word):
    """The binding gguf can reuse: _native.WordPieceModel.tokenize == models.WordPiece.tokenize."""
    need_shared()
    from tokenforge.tokenizer.native_bert import wordpiece_model

    _, ours = _pair("file")
    expected = [(i, a, b) for i, _, (a, b) in ours.model.word_tokens(word)]
    assert wordpiece_model(ours.model).tokenize(word) == expected


@SETTINGS
@given(words=st.lists(st.text("abcdefghijklmnopqrstuvwxyz\u2581中é", max_size=12), max_size=8))
def test_wordpiece_encode_words_gguf_style(words):
    """encode_words with an empty continuation prefix and no length limit (llama.cpp's WPM
    form, as tokenforge.gguf.wordpiece uses models.WordPiece) == models.WordPiece."""
    import sys

    from tokenforge import _native
    from tokenforge.models import WordPiece

    vocab = {t: i for i, t in enumerate(["[UNK]", "\u2581a", "\u2581ab", "b", "c", "abc", "\u2581中", "é", "d", "e"])}
    py = WordPiece(vocab, "[UNK]", "", sys.maxsize)
    native = _native.WordPieceModel(list(vocab.items()), 0, "", sys.maxsize)
    expected = [i for w in words if w for i, _, _ in py.word_tokens(w)]
    assert native.encode_words(words) == expected


def test_padding_batches_and_fast():
    """Native Encodings (lists made on access) padded, batched and ids-only as tokenizers."""
    need_shared()
    from _hf_json import lines

    from tokenforge.tokenizer import Tokenizer

    ref, ours = _pair("file")
    ref, ours = ref.from_str(ref.to_str()), Tokenizer.from_str(ours.to_str())  # own copies: padding set below
    sample = lines("en", 20, seed=4) + lines("multi", 10, seed=4) + ["", "[CLS] x [SEP]"]
    for t in (ref, ours):
        t.enable_padding(direction="left", pad_to_multiple_of=8)
    for special in (True, False):
        for x, y in zip(ref.encode_batch(sample, add_special_tokens=special),
                        ours.encode_batch(sample, add_special_tokens=special)):
            assert diff(x, y) is None and len(x) == len(y)
        for x, y in zip(ref.encode_batch_fast(sample, add_special_tokens=special),
                        ours.encode_batch_fast(sample, add_special_tokens=special)):
            assert x.ids == y.ids and x.attention_mask == y.attention_mask and x.type_ids == y.type_ids
    assert diff(ref.encode(sample[0]), ours.encode(sample[0])) is None
