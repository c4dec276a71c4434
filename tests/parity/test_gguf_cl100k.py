"""cl100k to GGUF: llama.cpp's ``llama-bpe`` pre-tokenizer holds cl100k's original regex, which
cuts whitespace after a final newline apart where tiktoken's current spelling keeps it whole;
on cl100k_base's own ranks no token can join that cut, so the GGUF encodes as tiktoken does
(checked here on the corpus and hypothesis text against tiktoken itself), and GPT-3.5's
tokenizer.json (a ``Removed``+``invert`` Split of the original regex) as `tokenizers` does.
Llama 3's ranks (the same regex, tokens made from higher-ranked parts) too."""

from __future__ import annotations

import functools

import pytest
from _gguf import need_gguf
from _shared import MODELS, corpus_sample
from hypothesis import given, settings
from hypothesis import strategies as st

import tokenforge
from tokenforge.gguf import load, vocab_from_encoding, vocab_from_json, write_vocab

CORPORA = ["en", "code", "multi", "mixed"]


@functools.lru_cache(maxsize=None)
def _tiktoken():
    tiktoken = pytest.importorskip("tiktoken")
    from tiktoken.load import load_tiktoken_bpe

    ranks = load_tiktoken_bpe(str(MODELS / "tiktoken" / "cl100k_base.tiktoken"))
    return tiktoken.Encoding("cl100k", pat_str=tokenforge.patterns.CL100K, mergeable_ranks=ranks, special_tokens={})


@functools.lru_cache(maxsize=None)
def _from_tiktoken_file(tmp: str):
    from tokenforge.formats.tiktoken_bpe import load_tiktoken_bpe

    ranks = load_tiktoken_bpe(MODELS / "tiktoken" / "cl100k_base.tiktoken")
    enc = tokenforge.Encoding("cl100k_base", pat_str=tokenforge.patterns.CL100K, mergeable_ranks=ranks,
                              special_tokens={"<|endoftext|>": 100257})
    vocab = vocab_from_encoding(enc)
    assert vocab.pre == "llama-bpe"
    write_vocab(vocab, f"{tmp}/cl100k.gguf")
    return load(f"{tmp}/cl100k.gguf")


@functools.lru_cache(maxsize=None)
def _from_gpt35_json(tmp: str):
    vocab = vocab_from_json(MODELS / "hf" / "gpt35turbo_tokenizer.json")
    assert vocab.pre == "llama-bpe"
    write_vocab(vocab, f"{tmp}/gpt35.gguf")
    return load(f"{tmp}/gpt35.gguf")


@functools.lru_cache(maxsize=None)
def _tokenizers():
    tokenizers = pytest.importorskip("tokenizers")
    return tokenizers.Tokenizer.from_file(str(MODELS / "hf" / "gpt35turbo_tokenizer.json"))


@pytest.fixture(scope="module")
def tmp(tmp_path_factory):
    need_gguf()
    return str(tmp_path_factory.mktemp("cl100k"))


@pytest.mark.parametrize("corpus", CORPORA)
def test_cl100k_tiktoken_file_to_gguf_encodes_as_tiktoken(corpus, tmp):
    ours, ref = _from_tiktoken_file(tmp), _tiktoken()
    text = corpus_sample(corpus)
    assert ours.encode(text, add_special=False) == ref.encode_ordinary(text)
    lines = text.split("\n")
    wrong = [line for line in lines[:: max(1, len(lines) // 3000)]
             if ours.encode(line, add_special=False) != ref.encode_ordinary(line)]
    assert not wrong, f"{len(wrong)} lines differ; first: {wrong[0]!r}"


@pytest.mark.parametrize("corpus", CORPORA)
def test_gpt35_tokenizer_json_to_gguf_encodes_as_tokenizers(corpus, tmp):
    ours, ref = _from_gpt35_json(tmp), _tokenizers()
    lines = corpus_sample(corpus).split("\n")
    wrong = [line for line in lines[:: max(1, len(lines) // 3000)]
             if ours.encode(line, add_special=False, parse_special=True) != ref.encode(line, add_special_tokens=False).ids]
    assert not wrong, f"{len(wrong)} lines differ; first: {wrong[0]!r}"


# Whitespace around newlines at the end of a text is where the two regexes cut differently.
_ws = st.sampled_from(["\n", "\r", " ", "  ", "\t", "\u00a0", "\u3000", "\x0b", "\x85", "\u2028", "\n\n", "\r\n"])
texts = st.lists(_ws | st.text(max_size=4), max_size=12).map("".join)


@settings(max_examples=300, deadline=None)
@given(text=texts)
def test_hypothesis_text_as_tiktoken_and_tokenizers(text, tmp):
    assert _from_tiktoken_file(tmp).encode(text, add_special=False) == _tiktoken().encode_ordinary(text)
    assert _from_gpt35_json(tmp).encode(text, add_special=False) == _tokenizers().encode(
        text, add_special_tokens=False).ids


def test_a_token_across_the_cut_is_refused():
    ranks = {bytes([b]): b for b in range(256)} | {b"\n ": 256}
    enc = tokenforge.Encoding("t", pat_str=tokenforge.patterns.CL100K, mergeable_ranks=ranks, special_tokens={})
    with pytest.raises(ValueError, match=r"the token b'\\n ' makes the difference matter"):
        vocab_from_encoding(enc)
    assert vocab_from_encoding(enc, pre="llama-bpe").pre == "llama-bpe"  # the user's choice stands


def test_llama3_ranks_to_gguf_encode_as_tiktoken(tmp):
    """Llama 3's ranks hold tokens whose parts rank higher (no merge list from lower-ranked
    parts): under llama-bpe (ignore_merges) every pair that makes a token is a merge."""
    tiktoken = pytest.importorskip("tiktoken")
    from tokenforge.formats.tiktoken_bpe import load_tiktoken_bpe

    ranks = load_tiktoken_bpe(MODELS / "tiktoken" / "llama3.tiktoken")
    pat = tokenforge.patterns.LLAMA3
    vocab = vocab_from_encoding(tokenforge.Encoding("llama3", pat_str=pat, mergeable_ranks=ranks, special_tokens={}))
    assert vocab.pre == "llama-bpe"
    write_vocab(vocab, f"{tmp}/llama3.gguf")
    ours = load(f"{tmp}/llama3.gguf")
    ref = tiktoken.Encoding("llama3", pat_str=pat, mergeable_ranks=ranks, special_tokens={})
    for corpus in CORPORA:
        lines = corpus_sample(corpus).split("\n")
        wrong = [s for s in lines[:: max(1, len(lines) // 2000)] if ours.encode(s, add_special=False) != ref.encode_ordinary(s)]
        assert not wrong, f"{corpus}: {len(wrong)} lines differ; first: {wrong[0]!r}"
    with pytest.raises(ValueError, match="is not the merge of two lower-ranked tokens"):
        vocab_from_encoding(tokenforge.Encoding("llama3", pat_str=pat, mergeable_ranks=ranks, special_tokens={}),
                            pre="gpt-2")  # no ignore_merges: refused, as before
