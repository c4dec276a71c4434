"""One long text's parts read in place from the UTF-8 CPython caches on a str (one_text.cc
finds each part's end there by counting its characters, as the part is taken): at any
cuts, even ones that are not exact, the parts' ids are tiktoken's ids of the part strs,
with the UTF-8 cached or not, on one thread or several."""

from __future__ import annotations

import sys

import pytest
from _tiktoken_refs import pair
from hypothesis import given, settings
from hypothesis import strategies as st

# One to four UTF-8 bytes a character, so the 64-byte blocks of the count end anywhere.
FRAGMENTS = ["a", " word", "\n", "é", "ÄÖ", "中文字", "😀", "\u0301", "  ", "x" * 70, "é" * 40, "😀" * 20, "\t1"]


def _utf8_is_cached(text: str) -> bool:
    return sys.getsizeof(text) > sys.getsizeof(text[:-1] + text[-1:])


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
@settings(max_examples=60, deadline=None)
@given(chunks=st.lists(st.sampled_from(FRAGMENTS), min_size=2, max_size=120), cached=st.booleans(),
       threads=st.integers(min_value=1, max_value=3), data=st.data())
def test_parts_at_any_cuts_are_the_part_strs_ids(name, chunks, cached, threads, data):
    ours, ref = pair(name)
    text = "".join(chunks) + "."
    text = text[:-1] + text[-1:]  # a new str, no UTF-8 cached on it
    cuts = sorted(set(data.draw(st.lists(st.integers(min_value=1, max_value=len(text) - 1), max_size=6))))
    none = ours._special_sets(set(), ())[0]
    if cached:
        ours._core.count(text, none)  # the one-thread path asks CPython for the UTF-8
    assert _utf8_is_cached(text) == (cached and not text.isascii())
    bounds = [0, *cuts, len(text)]
    expected = [i for a, b in zip(bounds, bounds[1:]) for i in ref.encode_ordinary(text[a:b])]
    assert ours._core.encode_parts(text, cuts, None, threads) == expected
    assert ours._core.count_parts(text, cuts, none, threads) == len(expected)
    assert ours._core.encode_to_numpy(text, none, cuts=cuts, threads=threads).tolist() == expected
