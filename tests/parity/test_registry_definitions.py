"""Every encoding `get_encoding` knows, checked against tiktoken's own definition
(`tiktoken.get_encoding` offline, see _tiktoken_refs.py): pattern, ranks, special tokens and
vocabulary size, then ids on a sample of each corpus for the encodings the corpus-wide
parity tests do not run (gpt2, p50k_edit, o200k_harmony share ranks and pattern with
r50k_base, p50k_base and o200k_base, and differ in their special tokens)."""

from __future__ import annotations

import pytest
from _tiktoken_refs import ALL_ENCODINGS, MORE_ENCODINGS, pair

import tokenforge

def test_registry_knows_what_tiktoken_knows():
    import tiktoken

    assert sorted(tokenforge.list_encoding_names()) == sorted(tiktoken.list_encoding_names())


@pytest.mark.parametrize("name", ALL_ENCODINGS)
def test_definition_equals_tiktokens(name):
    ours, ref = pair(name)
    assert ours.name == ref.name
    assert ours._pat_str == ref._pat_str
    assert ours._mergeable_ranks == ref._mergeable_ranks
    assert ours.n_vocab == ref.n_vocab and ours.max_token_value == ref.max_token_value
    assert ours._special_tokens.get("<|endoftext|>") == ref._special_tokens.get("<|endoftext|>")
    if "<|endoftext|>" in ref._special_tokens:
        assert ours.eot_token == ref.eot_token
    assert ours._special_tokens == ref._special_tokens
    assert list(ours._special_tokens) == list(ref._special_tokens)  # the order decides which name decodes


def outcome(fn):
    try:
        return fn()
    except ValueError as e:
        return ("ValueError", str(e))


def test_harmony_two_names_for_one_id_as_tiktoken():
    # tiktoken's o200k_harmony keeps o200k_base's <|endofprompt|> = 200018 beside
    # <|reserved_200018|> = 200018: either name encodes to the id, the id decodes to one.
    ours, ref = pair("o200k_harmony")
    text = "a<|endofprompt|>b<|reserved_200018|>c"
    policies = [{"allowed_special": "all"}, {"disallowed_special": ()}, {}]
    for t in ["<|endofprompt|>", "<|reserved_200018|>"]:
        policies += [{"allowed_special": {t}}, {"allowed_special": {t}, "disallowed_special": ()}]
    for kw in policies:
        want = outcome(lambda: ref.encode(text, **kw))
        assert outcome(lambda: ours.encode(text, **kw)) == want, kw
        assert outcome(lambda: ours.encode_batch([text], **kw)) == outcome(lambda: ref.encode_batch([text], **kw)), kw
        if not isinstance(want, tuple):
            assert list(ours.encode_to_numpy(text, **kw)) == list(ref.encode_to_numpy(text, **kw)), kw
    for t in ["<|endofprompt|>", "<|reserved_200018|>"]:
        assert ours.encode_single_token(t) == ref.encode_single_token(t) == 200018
    ids = ref.encode(text, allowed_special="all")
    assert ours.decode(ids) == ref.decode(ids)
    assert ours.decode_single_token_bytes(200018) == ref.decode_single_token_bytes(200018)
    assert ours.decode_tokens_bytes(ids) == ref.decode_tokens_bytes(ids)
    assert ours.decode_with_offsets(ids) == ref.decode_with_offsets(ids)
    assert ours.n_vocab == ref.n_vocab and ours.special_tokens_set == ref.special_tokens_set


@pytest.mark.parametrize("name", MORE_ENCODINGS)
def test_sample_with_specials_equals_tiktoken(name, corpus):
    ours, ref = pair(name)
    _, text = corpus
    text = text[:200_000]
    assert ours.encode_ordinary(text) == ref.encode_ordinary(text)
    specials = sorted(ref.special_tokens_set)
    lines = text.splitlines(keepends=True)[:1500]
    mixed = "".join(line + (specials[i % len(specials)] if i % 5 == 0 else "") for i, line in enumerate(lines))
    assert ours.encode(mixed, allowed_special="all") == ref.encode(mixed, allowed_special="all")
    assert ours.encode(mixed, disallowed_special=()) == ref.encode(mixed, disallowed_special=())
    ids = ref.encode(mixed, allowed_special="all")
    assert ours.decode(ids) == ref.decode(ids)
    for t in specials:
        assert ours.encode_single_token(t) == ref.encode_single_token(t)
        assert ours.decode_single_token_bytes(ref.encode_single_token(t)) == ref.decode_single_token_bytes(
            ref.encode_single_token(t))
