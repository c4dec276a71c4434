"""Specials that share their first bytes, of every length from one byte up (as Gemma's runs of
newlines and of "▁"), found leftmost-longest: tokenforge.Encoding against the pure-Python
reference (tokenforge.reference.bpe, a regex of the specials longest first), on text made of
those bytes.  The native matcher filters candidate positions by a special's first one, two
and four bytes (pipeline/special_matcher.h); a filter that dropped a real start would show
here.  (tiktoken is no oracle for specials that are prefixes of one another: its regex tries
them in a set's order, so "xyz" may come out as "xy" "z".  `tokenizers` matches added tokens
leftmost-longest, as here; the tokenizer.json parity tests splice Gemma's in.)"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

import tokenforge
from tokenforge.reference import bpe as reference

SPECIALS = ["\n", "\n\n", "\n\n\n", "\n\n\n\n\n", "▁▁", "▁▁▁", "▁▁▁▁▁▁", "<a>", "<ab", "<abcd>", "xy",
            "xyz", "xyzw", "é", "éé", "ééééé", "\u2581x\u2581"]
RANKS = {bytes([b]): b for b in range(256)}
SPECIAL_IDS = {s: 256 + k for k, s in enumerate(SPECIALS)}
PIECES = ["\n", "▁", "<", "a", "b", "c", "d", ">", "x", "y", "z", "w", "é", " ", "q", "\u2582", "\u00e2"]
PATTERN = r"(?s:.)"  # every character its own piece
OURS = tokenforge.Encoding("prefix_specials", pat_str=PATTERN, mergeable_ranks=RANKS, special_tokens=SPECIAL_IDS)


def check(text: str) -> None:
    want = reference.encode(text, PATTERN, RANKS, SPECIAL_IDS)
    assert OURS.encode(text, allowed_special="all") == want, repr(text)


@settings(max_examples=1500, deadline=None)
@given(text=st.lists(st.sampled_from(PIECES + SPECIALS), max_size=40).map("".join))
def test_specials_found_leftmost_longest(text):
    check(text)


def test_every_special_at_the_end_and_cut_short():
    for s in SPECIALS:
        for text in (s, "q" + s, s[:-1], "q" + s[:-1], s + s[:1], s[:1] + s):
            check(text)


# The matcher compares 16 bytes at a time with each first byte when the specials start with
# at most eight distinct ones, and walks byte by byte past that: a special at every offset of
# a block, for two, eight and nine distinct first bytes.
def _wide(n: int) -> tuple[dict, tokenforge.Encoding]:
    specials = {f"{c}{c}!": 256 + k for k, c in enumerate("ABCDEFGHI"[:n])}
    return specials, tokenforge.Encoding(f"wide_{n}", pat_str=PATTERN, mergeable_ranks=RANKS, special_tokens=specials)


def test_specials_at_every_offset_of_a_block():
    for n in (2, 8, 9):
        specials, ours = _wide(n)
        for s in specials:
            for at in range(40):
                for text in ("." * at + s + "." * 5, "." * at + s[:2] + "." * 20, "A" * at + s):
                    want = reference.encode(text, PATTERN, RANKS, specials)
                    assert ours.encode(text, allowed_special="all") == want, (n, repr(text))
