"""tokenforge.minbpe on the corpora: training and encoding equal the reference of minbpe's
algorithm on corpus slices, and GPT4Tokenizer equals tiktoken's cl100k_base."""

from __future__ import annotations

import pytest
import regex
from _shared import CORPUS_FILES, corpus_sample, need_shared
from _tiktoken_refs import pair
from tokenforge.minbpe import GPT4Tokenizer, RegexTokenizer
from tokenforge.minbpe import reference as R


@pytest.mark.parametrize("name", CORPUS_FILES)
def test_regex_tokenizer_learns_minbpes_merges(name):
    need_shared()
    text = corpus_sample(name)[:12_000]
    tok = RegexTokenizer()
    tok.train(text, 256 + 120)
    chunks = [list(c.encode("utf-8")) for c in regex.findall(tok.pattern, text)]
    assert tok.merges == R.train(chunks, 256 + 120)
    other = corpus_sample(name)[-6_000:]
    want = [i for c in regex.findall(tok.pattern, other) for i in R.encode_chunk(list(c.encode("utf-8")), tok.merges)]
    assert tok.encode_ordinary(other) == want


def cl100k():
    """tiktoken's cl100k_base on the ranks in ../shared (tests never download)."""
    return pair("cl100k_base")[1]


@pytest.fixture(scope="module")
def gpt4():
    need_shared()
    return GPT4Tokenizer()


def test_gpt4_documented_example(gpt4):
    text = "hello world!!!? (안녕하세요!) lol123 😉"
    assert gpt4.encode(text) == cl100k().encode(text)
    assert gpt4.decode(gpt4.encode(text)) == text


@pytest.mark.parametrize("name", CORPUS_FILES)
def test_gpt4_equals_tiktoken_on_corpora(gpt4, name):
    text = corpus_sample(name)
    ref = cl100k()
    ids = gpt4.encode(text, allowed_special="none")
    assert ids == ref.encode(text, disallowed_special=())
    assert gpt4.decode(ids) == ref.decode(ids)


def test_gpt4_specials_and_recovered_merges(gpt4):
    ref = cl100k()
    text = "<|endoftext|>hi<|fim_prefix|>"
    assert gpt4.encode(text, allowed_special="all") == ref.encode(text, allowed_special="all")
    # The merges rebuild every token: vocab[id] with the byte shuffle undone is tiktoken's token.
    unshuffle = bytes(gpt4.inverse_byte_shuffle[b] for b in range(256))
    for idx in (300, 1917, 15339, 57037, 100255):
        assert gpt4.vocab[idx].translate(unshuffle) == ref.decode_single_token_bytes(idx)
    assert len(gpt4.merges) == len(ref._mergeable_ranks) - 256
    with pytest.raises(NotImplementedError):
        gpt4.train("x", 300)
