"""encode_to_numpy converts and encodes a non-ASCII str a chunk at a time; whatever the
chunk size, the ids equal a one-shot encode (and tiktoken's)."""

from __future__ import annotations

import pytest
from _tiktoken_refs import pair
from hypothesis import given, settings
from hypothesis import strategies as st

FRAGMENTS = [
    "hello", " world", "  ", "\n", "\n\n  ", "\r\n", "\t", "   \n ", "don't", "中文字符", "ÄÖÜ", "😀",
    "<|endoftext|>", "<|endof", "12345", "!!", " ", "x", "\u0301", "e\u0301", "'s", "A", "\u3000",
    "\ud83d\ude00", "\ud83d", "\ude00",  # a surrogate pair (joined when encoded, as tiktoken does) and lone halves
]

texts = st.lists(st.sampled_from(FRAGMENTS), min_size=0, max_size=400).map("".join)


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base", "r50k_base", "llama3"])
@settings(max_examples=80, deadline=None)
@given(text=texts, chunk=st.integers(min_value=1, max_value=300), allow=st.booleans())
def test_chunked_equals_one_shot(name, text, chunk, allow):
    ours, ref = pair(name)
    text = "é" + text  # non-ASCII, so the chunked path is taken
    policy = dict(allowed_special="all") if allow else dict(disallowed_special=())
    allowed = ours._allowed(policy.get("allowed_special", set()), policy.get("disallowed_special", "all"), text)
    want = ref.encode(text, **policy)
    assert ours._core.encode_to_numpy(text, allowed, chunk_chars=chunk).tolist() == want
    assert ours.encode_to_numpy(text, **policy).tolist() == want


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
@settings(max_examples=60, deadline=None)
@given(text=texts, chunk=st.integers(min_value=1, max_value=300))
def test_chunked_raises_where_tiktoken_does(name, text, chunk):
    # By default every special is disallowed: found in any chunk, or across two, it is
    # reported instead of the ids.
    ours, ref = pair(name)
    text = "é" + text
    try:
        want = ref.encode(text)
    except ValueError:
        want = None
    allowed, disallowed = ours._special_sets(set(), "all")
    got = ours._core.encode_to_numpy(text, allowed, disallowed, chunk_chars=chunk)
    if want is None:
        assert isinstance(got, tuple) and got[1] == b"<|endoftext|>"
    else:
        assert got.tolist() == want


def test_disallowed_special_found_across_chunks():
    ours, _ = pair("cl100k_base")
    text = "é" + "x" * ((1 << 20) - 5) + "<|endoftext|>" + "y" * 100
    with pytest.raises(ValueError, match="disallowed special token"):
        ours.encode_to_numpy(text)


@pytest.mark.parametrize("body", [" b" * 200_000, " " * 400_000, "x y" * 150_000])
def test_text_with_no_cut_equals_one_shot(body):
    # No piece boundary between two non-space characters: nothing can be cut off as the
    # chunks arrive, and past a few chunks the rest is taken at once (linear, not a
    # re-encode of the growing text with every chunk).
    ours, ref = pair("o200k_base")
    text = "é" + body + "!"
    allowed = ours._allowed(set(), (), text)
    assert ours._core.encode_to_numpy(text, allowed, chunk_chars=2000).tolist() == ref.encode_ordinary(text)


@pytest.mark.parametrize("chunk", [3000, 7000, 20000])
def test_cuts_far_apart_equal_one_shot(chunk):
    # The only places to cut ("x" | ",") lie 6 KB apart: often none in the stretch just
    # before a chunk's end where cuts are looked for first, then the whole chunk is searched.
    ours, ref = pair("cl100k_base")
    text = "é" + ("x, " + " b" * 3000) * 40 + "!"
    allowed = ours._allowed(set(), (), text)
    assert ours._core.encode_to_numpy(text, allowed, chunk_chars=chunk).tolist() == ref.encode_ordinary(text)


@given(cut=st.integers(min_value=0, max_value=900), chunk=st.integers(min_value=50, max_value=700))
@settings(max_examples=40, deadline=None)
def test_special_longer_than_the_margin_across_chunks(cut, chunk):
    # A special token of 600 bytes (over the 256-byte margin) that the chunks split anywhere.
    import tiktoken

    import tokenforge

    ours0, _ = pair("cl100k_base")
    special = "<|" + "é" * 299 + "|>"
    specials = {special: 100300}
    ours = tokenforge.Encoding("long", pat_str=ours0._pat_str, mergeable_ranks=ours0._mergeable_ranks, special_tokens=specials)
    ref = tiktoken.Encoding("long", pat_str=ours0._pat_str, mergeable_ranks=ours0._mergeable_ranks, special_tokens=specials)
    text = ("word, " * 200)[:cut] + special + " and more, text." * 30
    allowed = ours._allowed("all", "all", text)
    assert ours._core.encode_to_numpy(text, allowed, chunk_chars=chunk).tolist() == ref.encode(text, allowed_special="all")
