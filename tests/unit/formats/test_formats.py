"""Saving a trained encoding as .tiktoken, minbpe .model/.vocab and HF tokenizer.json: each
file loads in its own library and encodes exactly as the Encoding does."""

from __future__ import annotations

import os

import pytest
from _shared import corpus_sample, need_shared

import tokenforge
from tokenforge import formats, patterns
from tokenforge.formats import minbpe
from tokenforge.formats.merges import merges_from_ranks

SPECIALS = ["<|endoftext|>", "<|pad|>"]


def sample() -> str:
    need_shared()
    return "".join(corpus_sample(n, 200_000) for n in ("en", "code", "multi")) + corpus_sample("mixed")[:100_000]


def trained(pat_str: str = patterns.CL100K, vocab_size: int = 1500):
    trainer = tokenforge.BpeTrainer(vocab_size, pat_str=pat_str, special_tokens=SPECIALS, show_progress=False)
    return trainer, trainer.train_from_iterator([sample()])


def test_merges_from_ranks_gives_back_the_training_merges():
    trainer, enc = trained()
    tokens = [enc.decode_single_token_bytes(i) for i in range(1500)]
    assert merges_from_ranks(enc._mergeable_ranks) == [(tokens[a], tokens[b]) for a, b, _ in trainer.merges]


def test_tiktoken_file_loads_in_tiktoken(tmp_path):
    tiktoken = pytest.importorskip("tiktoken")
    import tiktoken.load
    _, enc = trained()
    path = tmp_path / "tok.tiktoken"
    assert formats.save(enc, path) == [str(path)]
    ranks = tiktoken.load.load_tiktoken_bpe(str(path))
    assert ranks == enc._mergeable_ranks
    ref = tiktoken.Encoding("t", pat_str=patterns.CL100K, mergeable_ranks=ranks, special_tokens=enc._special_tokens)
    text = sample() + "<|endoftext|>"
    assert enc.encode(text, allowed_special="all") == ref.encode(text, allowed_special="all")


@pytest.mark.parametrize(
    "pat_str", [patterns.CL100K, patterns.LLAMA3, patterns.GPT2, patterns.O200K], ids=["cl100k", "llama3", "gpt2", "o200k"]
)
def test_hf_tokenizer_json_encodes_like_the_encoding(tmp_path, pat_str):
    tokenizers = pytest.importorskip("tokenizers")
    _, enc = trained(pat_str)
    path = tmp_path / "tokenizer.json"
    formats.save(enc, path)
    hf = tokenizers.Tokenizer.from_file(str(path))
    assert hf.get_vocab_size() == enc.n_vocab
    text = sample()
    lines = text.splitlines(keepends=True)[:2000]
    assert [e.ids for e in hf.encode_batch(lines, add_special_tokens=False)] == enc.encode_ordinary_batch(lines)
    assert hf.encode(text, add_special_tokens=False).ids == enc.encode_ordinary(text)
    with_specials = "a<|endoftext|>b <|pad|>"
    assert hf.encode(with_specials).ids == enc.encode(with_specials, allowed_special="all")
    assert hf.decode(enc.encode_ordinary(text[:5000])) == text[:5000]


def minbpe_encode(text: str, pattern: str, merges: dict[tuple[int, int], int]) -> list[int]:
    """minbpe's RegexTokenizer.encode_ordinary, as written there (lowest merge index first)."""
    import regex

    ids_out = []
    for chunk in regex.findall(pattern, text):
        ids = list(chunk.encode("utf-8"))
        while len(ids) >= 2:
            pairs = set(zip(ids, ids[1:]))
            pair = min(pairs, key=lambda p: merges.get(p, float("inf")))
            if pair not in merges:
                break
            out, i = [], 0
            while i < len(ids):
                if i + 1 < len(ids) and (ids[i], ids[i + 1]) == pair:
                    out.append(merges[pair])
                    i += 2
                else:
                    out.append(ids[i])
                    i += 1
            ids = out
        ids_out += ids
    return ids_out


def test_minbpe_model_loads_and_encodes_alike(tmp_path):
    _, enc = trained()
    written = formats.save(enc, tmp_path / "tok.model")
    assert [os.path.basename(p) for p in written] == ["tok.model", "tok.vocab"]
    lines = (tmp_path / "tok.model").read_text(encoding="utf-8").split("\n")
    assert lines[:5] == ["minbpe v1", patterns.CL100K, "2", "<|endoftext|> 1500", "<|pad|> 1501"]
    merges = {tuple(map(int, line.split())): 256 + k for k, line in enumerate(lines[5:-1])}
    text = sample()[:60_000]
    want = [enc.decode_single_token_bytes(i) for i in enc.encode_ordinary(text)]
    loaded = minbpe.load(tmp_path / "tok.model")
    for ids in (minbpe_encode(text, patterns.CL100K, merges), loaded.encode_ordinary(text)):
        assert [loaded.decode_single_token_bytes(i) for i in ids] == want
    vocab = (tmp_path / "tok.vocab").read_text(encoding="utf-8").splitlines()
    assert vocab[0] == "[\\u0000] 0" and vocab[ord("a")] == "[a] 97" and " -> [" in vocab[256]
    assert len(vocab) == 1502


def test_minbpe_basic_tokenizer_file_splits_nothing(tmp_path):
    """A BasicTokenizer's file has an empty pattern line: the whole text is one piece (found
    by the minbpe fuzz target: it was read as the pattern "", which drops every character).
    Hand-worked: one merge (104, 101) -> 256 ("he"), applied across the space too."""
    path = tmp_path / "basic.model"
    path.write_text("minbpe v1\n\n0\n104 101\n", encoding="utf-8")
    enc = minbpe.load(path)
    assert enc.encode_ordinary("he he\nhe") == [256, 32, 256, 10, 256]
    assert enc.decode(enc.encode_ordinary("the end")) == "the end"


def test_saving_replaces_atomically(tmp_path):
    _, enc = trained(vocab_size=300)
    path = tmp_path / "tok.json"
    path.write_text("old")
    formats.save(enc, path)
    assert path.read_text(encoding="utf-8").startswith("{")
    assert sorted(os.listdir(tmp_path)) == ["tok.json"]  # no temp file left behind


def test_unknown_suffix_and_non_bpe_ranks(tmp_path):
    _, enc = trained(vocab_size=300)
    with pytest.raises(ValueError, match="cannot tell the format"):
        formats.save(enc, tmp_path / "tok.bin")
    ranks = {bytes([b]): b for b in range(256)} | {b"abc": 256}
    with pytest.raises(ValueError, match="not the merge of two lower-ranked tokens"):
        merges_from_ranks(ranks)
