"""One long text on several native threads (cut at tokenforge._cuts' exact cut points):
the same ids as tiktoken, for encode_ordinary, encode, count_tokens and encode_to_numpy."""

from __future__ import annotations

import random

import pytest
from _shared import corpus_sample
from _tiktoken_refs import pair
from hypothesis import given, settings
from hypothesis import strategies as st

from tokenforge import _cuts

NAMES = ["r50k_base", "cl100k_base", "o200k_base", "llama3"]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("corpus_name", ["en", "code", "multi", "mixed"])
def test_long_text_on_threads_matches_tiktoken(name, corpus_name):
    ours, ref = pair(name)
    text = corpus_sample(corpus_name)[:700_000]
    split = ours._parallel_parts(text, 2)
    assert split is not None and len(split[0]) > 2  # the parallel path is taken
    expected = ref.encode_ordinary(text)
    assert ours.encode_ordinary(text, num_threads=2) == expected
    assert ours.count_tokens(text, num_threads=3) == len(expected)
    assert ours.encode_to_numpy(text, num_threads=2, disallowed_special=()).tolist() == expected
    assert ours.encode(text, num_threads=2, disallowed_special=()) == expected


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_allowed_specials_are_never_cut(name):
    ours, ref = pair(name)
    words = corpus_sample("en")[:400_000].split(" ")
    rng = random.Random(1)
    for i in range(0, len(words), 50):
        words[i] = rng.choice(["<|endoftext|>", "x<|endoftext|>y", "<|endoftext|>\nA"])
    text = " ".join(words)
    expected = ref.encode(text, allowed_special="all")
    assert ours.encode(text, allowed_special="all", num_threads=2) == expected
    assert ours.count_tokens(text, allowed_special="all", num_threads=2) == len(expected)
    assert ours.encode_to_numpy(text, allowed_special="all", num_threads=2).tolist() == expected
    with pytest.raises(ValueError, match="disallowed special token"):
        ours.encode(text, num_threads=2)


_ALPHABET = st.sampled_from(list("ab Z9 .,'\n\r\t") + ["  ", "\n\n", " \n", "é", "日本", "\u0301", "'s", "\u00a0", "\u3000"])


@settings(max_examples=300, deadline=None)
@given(st.lists(_ALPHABET, min_size=2, max_size=80), st.sampled_from(NAMES))
def test_every_cut_is_exact(chunks, name):
    """Encoding the parts at every cut point gives the whole text's ids (tiktoken's)."""
    ours, ref = pair(name)
    text = "".join(chunks)
    newline = name != "r50k_base"
    cuts = []
    at = 1
    while (c := _cuts.next_cut(text, at, len(text), newline)) > 0:
        cuts.append(c)
        at = c + 1
    bounds = [0, *cuts, len(text)]
    ids = [i for a, b in zip(bounds, bounds[1:]) for i in ref.encode_ordinary(text[a:b])]
    assert ids == ref.encode_ordinary(text)


def _words_of_many_scripts(seed: int, words: int, length: int) -> str:
    """A long text of `words` distinct short words (1-7 characters) of scripts the vocabularies
    know little of, repeated in random order: the threads meet the same words, and many merge
    into more than four ids."""
    rng = random.Random(seed)
    blocks = [(0x0400, 0x044F), (0x0531, 0x0556), (0x10D0, 0x10F0), (0x1200, 0x1248), (0x0B85, 0x0BB9),
              (0x0E01, 0x0E2E), (0xAC00, 0xAD00), (0x0905, 0x0939), (0x13A0, 0x13F4), (0x1780, 0x17B3)]
    vocab = []
    for _ in range(words):
        lo, hi = rng.choice(blocks)
        vocab.append("".join(chr(rng.randint(lo, hi)) for _ in range(rng.randint(1, 7))))
    out, size = [], 0
    while size < length:
        w = rng.choice(vocab)
        out.append(w)
        size += len(w) + 1
    return " ".join(out)


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_many_scripts_on_threads_give_one_threads_ids(name):
    """Short words of many scripts, repeated across the parts: on 2, 3 and 8 threads, each
    with its own caches, a fresh instance and a warm one give tiktoken's ids."""
    ours, ref = pair(name)
    text = _words_of_many_scripts(7, 3000, 600_000)
    expected = ref.encode_ordinary(text)
    for threads in (2, 3, 8):
        fresh = type(ours)(ours.name, pat_str=ours._pat_str, mergeable_ranks=ours._mergeable_ranks, special_tokens={})
        assert fresh.encode_ordinary(text, num_threads=threads) == expected
        assert fresh.encode_ordinary(text, num_threads=threads) == expected  # caches warm


def _copy(text: str) -> str:
    """A new str equal to `text`, without its cached UTF-8."""
    return text[:-1] + text[-1:]


def _utf8_is_cached(text: str) -> bool:
    """Whether CPython holds the UTF-8 of `text` (its size grows by that copy)."""
    import sys

    return sys.getsizeof(text) > sys.getsizeof(_copy(text))


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
@pytest.mark.parametrize("corpus_name", ["en", "multi"])
def test_parts_read_from_every_kind_of_str(name, corpus_name):
    """The parts are read in place from the str: ASCII characters, else the UTF-8 CPython has
    cached on it (then found by byte offset), else converted per part; tiktoken's ids each way."""
    ours, ref = pair(name)
    sample = corpus_sample(corpus_name)[:500_000]
    texts = {"ascii": sample.encode("ascii", "ignore").decode(), "not cached": _copy(sample)}
    for kind, text in texts.items():
        expected = ref.encode_ordinary(_copy(text))  # (tiktoken leaves the UTF-8 cached on its str)
        assert ours.encode_ordinary(text, num_threads=2) == expected, kind
        assert ours.count_tokens(text, num_threads=2) == len(expected), kind
        assert ours.encode(text, num_threads=3, disallowed_special=()) == expected, kind
    text = texts["not cached"]
    if not text.isascii():
        assert not _utf8_is_cached(text)
        ours.count_tokens(text, num_threads=1)  # the one-thread path asks CPython for the UTF-8
        assert _utf8_is_cached(text)
        assert ours.encode_ordinary(text, num_threads=2) == expected
        assert ours.count_tokens(text, num_threads=2) == len(expected)


def test_lone_surrogates_in_parts_are_repaired_as_tiktoken_repairs_them():
    ours, ref = pair("cl100k_base")
    text = " ".join(["word", "\ud800", "x\udfffy", "\ud83d\ude00", "Ωmega"] * 60_000)
    assert ours._parallel_cuts(text, 2)[0]
    assert ours.encode_ordinary(text, num_threads=2) == ref.encode_ordinary(text)
    assert ours.count_tokens(text, num_threads=2) == len(ref.encode_ordinary(text))


def test_parts_that_cannot_be_encoded_raise_value_error():
    """A vocabulary without some byte: the error of the first such part, as on one thread
    (a list or a numpy array)."""
    import tokenforge

    ranks = {bytes([b]): b for b in range(256) if b != ord("q")}
    ranks = {k: i for i, k in enumerate(ranks)}
    enc = tokenforge.Encoding("noq", pat_str=tokenforge.patterns.CL100K, mergeable_ranks=ranks, special_tokens={})
    text = "some words here " * 40_000 + "quiet " + "more words " * 30_000
    with pytest.raises(ValueError) as one:
        enc.encode_ordinary(text, num_threads=1)
    with pytest.raises(ValueError) as two:
        enc.encode_ordinary(text, num_threads=2)
    assert str(one.value) == str(two.value)
    with pytest.raises(ValueError) as array:
        enc.encode_to_numpy(text, num_threads=2)
    assert str(array.value) == str(one.value)
    with pytest.raises(ValueError):
        enc.count_tokens(text, num_threads=2)


def test_texts_on_threads_from_several_python_threads_at_once():
    """Long texts of two vocabularies encoded at once from four Python threads, each on
    native threads (the pool serves one text at a time, the others start threads of their
    own): every text gets tiktoken's ids."""
    from concurrent.futures import ThreadPoolExecutor

    encs = {name: pair(name) for name in ("cl100k_base", "o200k_base")}
    texts = [_words_of_many_scripts(seed, 2000, 400_000) for seed in range(4)]
    jobs = [(name, text) for text in texts for name in encs]
    expected = [encs[name][1].encode_ordinary(text) for name, text in jobs]

    def run(job):
        name, text = job
        ours = encs[name][0]
        fresh = type(ours)(ours.name, pat_str=ours._pat_str, mergeable_ranks=ours._mergeable_ranks, special_tokens={})
        return fresh.encode_ordinary(text, num_threads=2)

    with ThreadPoolExecutor(4) as pool:
        assert list(pool.map(run, jobs * 2)) == expected * 2
