"""encode_with_unstable against tiktoken's (the stable ids, and the completions as a set:
tiktoken returns them in hash order, ours in the order found), and its private
_encode_bytes and _encode_only_native_bpe, which code written for tiktoken calls."""

from __future__ import annotations

import random

import pytest
from _shared import corpus_sample
from _tiktoken_refs import ENCODINGS, pair

EDGES = [
    "", " ", "hello", "hello ", "hello fanta", "hello\n\n ", "hi\n", "a b c  ", "x = 1;\n    ", "print(",
    "abc,", "naïve café", "日本", "😀", "hello world\t\n", "1234567", "don't", "it's", "   \n\n\t",
    "hello <|endoftext|>", "<|endoftext|>", "<|endoftext|> x", "\u3000", "tab\u00a0", "e\u0301",
]


def check(ours, ref, text, **policy):
    got_ids, got_completions = ours.encode_with_unstable(text, **policy)
    want_ids, want_completions = ref.encode_with_unstable(text, **policy)
    assert got_ids == want_ids, text
    assert {tuple(c) for c in got_completions} == {tuple(c) for c in want_completions}, text
    assert len(got_completions) == len(want_completions), text  # no duplicates


@pytest.mark.parametrize("name", ENCODINGS)
def test_edge_texts(name):
    ours, ref = pair(name)
    for text in EDGES:
        if "<|endoftext|>" in text and "<|endoftext|>" not in ref.special_tokens_set:
            continue
        check(ours, ref, text, allowed_special="all")


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base", "r50k_base"])
@pytest.mark.parametrize("corpus", ["en", "code", "multi"])
def test_prompts_cut_from_the_corpora(name, corpus):
    ours, ref = pair(name)
    text = corpus_sample(corpus)
    rng = random.Random(name + corpus)
    for _ in range(12):
        end = rng.randrange(1, len(text))
        check(ours, ref, text[max(0, end - rng.randrange(1, 200)):end], disallowed_special=())


def test_disallowed_special_raises():
    ours, ref = pair("cl100k_base")
    with pytest.raises(ValueError, match="disallowed special token"):
        ref.encode_with_unstable("a <|endoftext|>")
    with pytest.raises(ValueError, match="disallowed special token"):
        ours.encode_with_unstable("a <|endoftext|>")


def test_pattern_without_native_scanner():
    import tiktoken

    import tokenforge

    base, _ = pair("cl100k_base")
    kw = dict(pat_str=r"\S+|\s+", mergeable_ranks=base._mergeable_ranks, special_tokens={"<|x|>": 100300})
    ours, ref = tokenforge.Encoding("t", **kw), tiktoken.Encoding("t", **kw)
    assert ours._regex is not None
    for text in ["hello wor", "a  b\n", "x<|x|>", "x<|x|>y z"]:
        check(ours, ref, text, allowed_special="all")


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base", "r50k_base"])
def test_encode_bytes_ending_in_invalid_utf8(name):
    # tiktoken's _encode_bytes: the valid text before the first bad byte as text, its last
    # piece merged together with the bytes from the bad one on.
    ours, ref = pair(name)
    rng = random.Random(name)
    alphabet = [b"a", b"b", b" ", b"\n", b"\t", b".", "é".encode(), "日".encode(), b"\xff", b"\x80", b"\xe6\x97"]
    cases = [b"", b"\xff", b"hello \xff", b"hello world  \xe6\x97", b"x\n\n \x80\x80"]
    cases += [b"".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 12))) for _ in range(300)]
    for data in cases:
        assert ours._encode_bytes(data) == ref._encode_bytes(data), data


def test_encode_only_native_bpe():
    ours, ref = pair("o200k_base")
    for text in ["hello world", "x = 1\n\n  y", "naïve 日本 😀", corpus_sample("code")[:20000]]:
        assert ours._encode_only_native_bpe(text) == ref._encode_only_native_bpe(text)
