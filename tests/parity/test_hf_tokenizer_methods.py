"""The rest of tokenizers' Tokenizer face, against `tokenizers` itself: from_buffer,
num_special_tokens_to_add, post_process (truncation, template and padding applied to
Encodings given) and the async_* methods."""

from __future__ import annotations

import asyncio

import pytest
from _hf_json import diff, load_fresh
from _shared import MODELS, need_shared

FILES = ["gpt2_tokenizer.json", "minilm_bert_uncased_tokenizer.json", "mistral_v1_tokenizer.json",
         "llama3_tokenizer.json"]


@pytest.mark.parametrize("name", FILES)
def test_post_process_and_counts(name):
    need_shared()
    from tokenforge.tokenizer import Tokenizer

    ref, _ = load_fresh(name)
    ours = Tokenizer.from_buffer((MODELS / "hf" / name).read_bytes())
    ours.no_truncation()
    ours.no_padding()
    for is_pair in (False, True):
        assert ours.num_special_tokens_to_add(is_pair) == ref.num_special_tokens_to_add(is_pair)
    for text, pair in [("Hello there world how are you doing", None), ("Hello there", "world how are you doing today")]:
        xa, ya = ref.encode(text, add_special_tokens=False), ours.encode(text, add_special_tokens=False)
        xb = ref.encode(pair, add_special_tokens=False) if pair else None
        yb = ours.encode(pair, add_special_tokens=False) if pair else None
        for t in (ref, ours):
            t.enable_truncation(9, stride=1)
            t.enable_padding(length=12)
        for special in (True, False):
            got = ours.post_process(ya, yb, add_special_tokens=special)
            assert diff(ref.post_process(xa, xb, add_special_tokens=special), got) is None
        assert diff(xa, ya) is None  # the Encodings given are left as they were
        for t in (ref, ours):
            t.no_truncation()
            t.no_padding()


def test_async_methods():
    need_shared()
    ref, ours = load_fresh("gpt2_tokenizer.json")
    texts = ["Hello world", "a b c"]

    async def both(t):
        one = await t.async_encode(texts[0], texts[1])
        many = await t.async_encode_batch(texts)
        fast = await t.async_encode_batch_fast(texts)
        return one.ids, [e.ids for e in many], [e.ids for e in fast], await t.async_decode_batch([one.ids])

    assert asyncio.run(both(ours)) == asyncio.run(both(ref))


def test_from_buffer_not_utf8():
    from tokenforge.tokenizer import Tokenizer

    with pytest.raises(ValueError, match="UTF-8"):
        Tokenizer.from_buffer(b'{"model": "\xff"}')


@pytest.mark.parametrize("name", FILES + ["rut5_tokenizer.json"])
def test_model_tokenize_gives_tokens(name):
    """`tokenizer.model.tokenize(word)`: Token objects with id, value and offsets, as tokenizers'."""
    need_shared()
    import tokenforge

    ref, ours = load_fresh(name)
    for word in ["hello", "\u0120world", "unaffable", "\u2581Hello", "\u00e9t\u00e9", "x" * 30, "12345"]:
        try:
            want = [(t.id, t.value, t.offsets) for t in ref.model.tokenize(word)]
        except Exception:  # noqa: BLE001 - tokenizers refuses some words (WordLevel-like unknowns)
            continue
        got = ours.model.tokenize(word)
        assert all(isinstance(t, tokenforge.Token) for t in got)
        assert [(t.id, t.value, t.offsets) for t in got] == want, (name, word)
        assert [t.as_tuple() for t in got] == want
