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
