"""encode_to_numpy of one long text on several threads reads its parts in place from the
str (the native `cuts` path, one_text.cc, the way of encode_ordinary's parts): whatever
the cuts (tokenforge._cuts' exact ones), chunk size (not used with cuts) and thread count,
the ids are tiktoken's; a disallowed special is found inside a part and across a cut, and
named even after a part that cannot be encoded; bad cuts are a ValueError."""

from __future__ import annotations

import pytest
from _tiktoken_refs import pair
from hypothesis import given, settings
from hypothesis import strategies as st

from tokenforge import _cuts

FRAGMENTS = [
    "hello", " world", "  ", "\n", "\n\n  ", "\r\n", "\t", " Word", "\nLine", "don't", "中文字符", "ÄÖÜ", "😀",
    "<|endoftext|>", "<|endof", "12345", "!!", " ", "x", "\u0301", "'s", "A", "\u3000",
    "\ud83d\ude00", "\ud83d", "\ude00",  # a surrogate pair (joined, as tiktoken does) and lone halves
]
ASCII = [f for f in FRAGMENTS if f.isascii()]


def exact_cuts(text: str, newline: bool) -> list[int]:
    cuts, at = [], 1
    while (c := _cuts.next_cut(text, at, len(text), newline)) > 0:
        cuts.append(c)
        at = c + 1
    return cuts


@pytest.mark.parametrize("name", ["cl100k_base", "r50k_base"])
@settings(max_examples=80, deadline=None)
@given(chunks=st.lists(st.sampled_from(FRAGMENTS), max_size=300), ascii_only=st.booleans(),
       chunk=st.integers(min_value=1, max_value=200), threads=st.integers(min_value=1, max_value=4),
       allow=st.booleans())
def test_parts_equal_tiktoken(name, chunks, ascii_only, chunk, threads, allow):
    ours, ref = pair(name)
    text = "".join(c for c in chunks if not ascii_only or c.isascii())
    cuts = exact_cuts(text, newline=name != "r50k_base")
    policy = dict(allowed_special="all") if allow else dict(disallowed_special=())
    allowed, _ = ours._special_sets(policy.get("allowed_special", set()), policy.get("disallowed_special", "all"))
    if allow:  # an allowed special is never cut
        specials = ours.special_tokens_set
        cuts = _cuts.cut_points(text, len(cuts) + 1, name != "r50k_base", specials) if cuts else []
    got = ours._core.encode_to_numpy(text, allowed, chunk_chars=chunk, cuts=cuts, threads=threads)
    assert got.tolist() == ref.encode(text, **policy)


@settings(max_examples=60, deadline=None)
@given(left=st.text(alphabet="ab é\n", max_size=40), right=st.text(alphabet="ab é\n", max_size=40),
       chunk=st.integers(min_value=1, max_value=30), data=st.data())
def test_disallowed_special_found_across_any_cut(left, right, chunk, data):
    ours, _ = pair("cl100k_base")
    text = left + "<|endoftext|>" + right
    cut = data.draw(st.integers(min_value=1, max_value=len(text) - 1))
    allowed, disallowed = ours._special_sets(set(), "all")
    got = ours._core.encode_to_numpy(text, allowed, disallowed, chunk_chars=chunk, cuts=[cut], threads=2)
    assert isinstance(got, tuple) and got[1] == b"<|endoftext|>"


def test_public_path_on_threads_uses_cuts_and_matches_tiktoken():
    ours, ref = pair("cl100k_base")
    text = ("Hello world, this is é a test.\nNext line 😀 here " * 8000)
    assert len(text) >= 1 << 18  # long enough for the parallel path
    assert ours.encode_to_numpy(text, num_threads=3).tolist() == ref.encode(text)
    with pytest.raises(ValueError, match="disallowed special token"):
        ours.encode_to_numpy(text + "<|endoftext|>", num_threads=3)
    with pytest.raises(ValueError, match="disallowed special token"):
        ours.encode_to_numpy(text, num_threads=3, disallowed_special={"here Hello"})  # across any cut


@pytest.mark.parametrize("cuts", [[0], [5, 5], [7, 3], [100]])
def test_bad_cuts_are_refused(cuts):
    ours, _ = pair("cl100k_base")
    allowed, _ = ours._special_sets(set(), "all")
    with pytest.raises(ValueError, match="cuts"):
        ours._core.encode_to_numpy("hello world, how are you", allowed, cuts=cuts, threads=2)


def _no_q():
    import tokenforge

    ranks = {bytes([b]): b for b in range(256) if b != ord("q")}
    ranks = {k: i for i, k in enumerate(ranks)}
    return tokenforge.Encoding("noq", pat_str=tokenforge.patterns.CL100K, mergeable_ranks=ranks,
                               special_tokens={"<|eot|>": 300})


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_disallowed_special_is_named_even_after_a_part_that_cannot_be_encoded(threads):
    """As on one thread (encode_array.cc): the special wins over an earlier encoding error."""
    enc = _no_q()
    text = "quiet " + "some words here " * 5_000 + "<|eot|> more"
    allowed, disallowed = enc._special_sets(set(), "all")
    cuts = _cuts.cut_points(text, 8, newline=True)
    assert len(cuts) > 3
    got = enc._core.encode_to_numpy(text, allowed, disallowed, cuts=cuts, threads=threads)
    assert isinstance(got, tuple) and got[1] == b"<|eot|>"
    assert enc._core.encode_to_numpy(text, allowed, disallowed)[1] == b"<|eot|>"
