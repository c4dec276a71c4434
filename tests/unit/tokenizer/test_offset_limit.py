"""The tokenizer.json native encoders refuse, never wrap, past their 32-bit offsets
(cpp/common/offset_limit.h): the SentencePiece-style pipeline (SpmStyleEncoder: BPE and
Unigram, with and without a Precompiled charsmap) and the BERT pipeline (BertEncoder), single
and batch, checked with the limit lowered through the test hook
``_native._testing.set_hf_text_limit`` (texts of 4 GiB cannot be made in a test).  The
byte-level paths (NativeByteLevel, DeepSeek, Split) keep 64-bit offsets: a text past the
limit encodes there (the gigabyte cases are in benchmarks/large_inputs.py).  A long text the
native path declines goes to the readable Python pipeline with a RuntimeWarning.

Expected sizes are worked by hand: Mistral's normalizer prepends ▁ (3 bytes) and turns each
space into ▁ (3 bytes); ruT5's charsmap (NFKC) turns ½ (2 bytes) into 1⁄2 (5 bytes).
"""

from __future__ import annotations

import contextlib

import pytest
from _shared import MODELS, need_shared

from tokenforge import _native

LIMIT = 64


@contextlib.contextmanager
def limit(n: int):
    prev = _native._testing.set_hf_text_limit(n)
    try:
        yield
    finally:
        _native._testing.set_hf_text_limit(prev)


def _tok(name: str):
    need_shared()
    from tokenforge.tokenizer import Tokenizer

    t = Tokenizer.from_file(str(MODELS / "hf" / name))
    t.no_truncation()
    t.no_padding()
    return t


def _engine(t) -> str:
    return type(t._native_engine()).__name__


def _all_refuse(t, text: str, match: str) -> None:
    """Each entry point raises ValueError on `text`, alone or among short texts (on threads)."""
    batch = ["short one"] * 40 + [text] + ["another"] * 40
    with pytest.raises(ValueError, match=match):
        t.encode(text)
    with pytest.raises(ValueError, match=match):
        t.encode_batch(batch, num_threads=2)
    with pytest.raises(ValueError, match=match):
        t.encode_batch_fast(batch, num_threads=2)


def test_hook_sets_and_restores():
    assert _native._testing.MAX_OFFSET_BYTES == 2**32 - 1
    with limit(100):
        assert _native._testing.set_hf_text_limit(50) == 100
        assert _native._testing.set_hf_text_limit(2**40) == 50  # clamped to the 32-bit limit
        assert _native._testing.set_hf_text_limit(0) == 2**32 - 1
    assert _native._testing.set_hf_text_limit(0) == 2**32 - 1


@pytest.mark.parametrize("name", ["mistral_v1_tokenizer.json", "gemma_tokenizer.json"])
def test_spm_bpe_text_limit(name):
    t = _tok(name)
    assert _engine(t) == "NativeSpm"
    with limit(LIMIT):
        _all_refuse(t, "x" * (LIMIT + 1), rf"a text of {LIMIT + 1} bytes, past the {LIMIT} bytes")


def test_spm_normalized_stretch_exact():
    t = _tok("mistral_v1_tokenizer.json")
    # ▁ + (LIMIT - 3) letters: the normalized stretch is exactly LIMIT bytes
    fits, over = "a" * (LIMIT - 3), "a" * (LIMIT - 2)
    want = t.encode(fits)
    with limit(LIMIT):
        got = t.encode(fits)
        assert (got.ids, got.offsets) == (want.ids, want.offsets)
        _all_refuse(t, over, rf"normalizes to {LIMIT + 1} bytes")
        # 22 spaces + 'b': 23 bytes of text, 3 + 22 * 3 + 1 = 70 normalized bytes
        _all_refuse(t, " " * 22 + "b", "normalizes to 70 bytes")


def test_spm_limit_is_per_stretch():
    """Added tokens cut the text: each stretch, not the whole normalized text, must fit."""
    t = _tok("mistral_v1_tokenizer.json")
    # 61 bytes; 5 stretches each normalized to 3 + 5 + 4 * 3 = 20 bytes (100 in all)
    text = "</s>".join(["a b c d e"] * 5)
    assert len(text.encode()) <= LIMIT
    want = t.encode(text)
    with limit(LIMIT):
        got = t.encode(text)
        assert (got.ids, got.offsets, got.word_ids) == (want.ids, want.offsets, want.word_ids)
        assert [e.ids for e in t.encode_batch([text] * 3)] == [want.ids] * 3


def test_spm_unigram_charsmap_expansion():
    t = _tok("rut5_tokenizer.json")
    assert _engine(t) == "NativeSpm"
    text = "½" * 20  # 40 bytes; NFKC gives 1⁄2 (5 bytes) each, then ▁ in front: 103 bytes
    want = t.encode(text)
    with limit(LIMIT):
        assert len(text.encode()) <= LIMIT
        _all_refuse(t, text, "normalizes to 103 bytes")
    with limit(103):
        assert t.encode(text).ids == want.ids


def test_spm_unigram_from_sentencepiece():
    need_shared()
    from tokenforge.tokenizer import Tokenizer

    t = Tokenizer.from_sentencepiece(MODELS / "sentencepiece" / "botchan_en_unigram_1000.model")
    assert _engine(t) == "NativeSpm"
    with limit(LIMIT):
        _all_refuse(t, "y" * (LIMIT + 1), rf"a text of {LIMIT + 1} bytes")


def test_bert_text_limit():
    t = _tok("minilm_bert_uncased_tokenizer.json")
    assert _engine(t) == "NativeBert"
    fits = "hello world " * 5  # 60 bytes
    want = t.encode(fits)
    with limit(LIMIT):
        got = t.encode(fits)
        assert (got.ids, got.offsets, got.word_ids) == (want.ids, want.offsets, want.word_ids)
        _all_refuse(t, "hello world " * 6, "a text of 72 bytes")
        with pytest.raises(ValueError, match="a text of 72 bytes"):
            t.encode_batch(["hello world " * 6] * 3, num_threads=2)


def test_byte_level_has_no_such_limit():
    """The byte-level engine keeps 64-bit offsets: the lowered limit does not apply."""
    t = _tok("gpt2_tokenizer.json")
    assert _engine(t) == "NativeByteLevel"
    text = "hello world " * 10
    want = t.encode(text)
    with limit(LIMIT):
        got = t.encode(text)
        assert (got.ids, got.offsets) == (want.ids, want.offsets)


def test_python_pipeline_warns_on_long_text(monkeypatch):
    """ruT5's native path declines a text whose first character the charsmap deletes (a
    control character): the Python pipeline takes it, with a warning once it is long."""
    import warnings

    from tokenforge.tokenizer import tokenizer as module

    t = _tok("rut5_tokenizer.json")
    text = "\x01" + "cafe\u0301 " * 10
    assert t._native_engine().encode(text) is None
    want = t.encode(text).ids
    monkeypatch.setattr(module, "SLOW_PIPELINE_CHARS", len(text) - 1)
    for call in [lambda: t.encode(text).ids, lambda: t.encode_batch([text])[0].ids,
                 lambda: t.encode_batch_fast([text])[0].ids]:
        with pytest.warns(RuntimeWarning, match=f"a text of {len(text)} characters takes the readable Python"):
            assert call() == want
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        t.encode("short")
        t.encode(text[:-2])


def test_bert_normalized_word_limit():
    """Lowercasing can lengthen a word: Ⱥ (U+023A, 2 bytes) becomes ⱥ (U+2C65, 3 bytes), so
    20 of them are 40 bytes of text and one word of 60 normalized bytes."""
    t = _tok("minilm_bert_uncased_tokenizer.json")
    text = "\u023a" * 20
    want = t.encode(text)
    with limit(50):
        _all_refuse(t, text, "a word of the normalized text has 60 bytes, past the 50 bytes")
    with limit(60):
        got = t.encode(text)
        assert (got.ids, got.offsets) == (want.ids, want.offsets)
