"""The merge of a piece cut where no token can straddle (cpp/models/byte_level/chunking/safe_cuts.h) gives
tiktoken's ids: on cut-prone text with the real vocabularies, and on random small
vocabularies whose tokens need not be reachable by merges."""

from __future__ import annotations

import random

import pytest
from _tiktoken_refs import pair
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tokenforge
from tokenforge.reference import bpe as reference
from tokenforge.reference import fast_paths as oracles

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def test_chunk_spelling_a_token_is_still_merged():
    """"abc" is a token, but no merge reaches it (neither "ab" nor "bc" is one).  In the piece
    "abcq" the cut before "q" is safe, and the chunk "abc" must stay three bytes: tiktoken
    looks up only whole pieces, never their chunks."""
    import tiktoken

    ranks = {bytes([b]): b for b in range(256)} | {b"abc": 256, b"qq": 257}
    ours = tokenforge.Encoding("t", pat_str=r"\S+|\s+", mergeable_ranks=ranks, special_tokens={})
    ref = tiktoken.Encoding("t", pat_str=r"\S+|\s+", mergeable_ranks=ranks, special_tokens={})
    for text in ["abcq", "abc", "qabcq", "abcqq abc abcabc"]:
        assert ours.encode_ordinary(text) == ref.encode_ordinary(text), text
    assert ours.encode_ordinary("abcq") == [97, 98, 99, 113]


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base", "r50k_base"])
@SETTINGS
@given(
    alphabet=st.sampled_from(["abcdefghijklmnopqrstuvwxyz", "qxzjvkw", "中文字的一是不了人我在有他这为之大来以个",
                              "\u4e00\u9fa0\u9f98\u4e02", "aéüßqx", "ЖЩЪЫЬЭЮЯжщ", "ก ข ฃ ค"]),
    length=st.integers(min_value=1, max_value=700),
    seed=st.integers(min_value=0, max_value=2**32 - 1),
)
def test_cut_prone_text_equal_to_tiktoken(name, alphabet, length, seed):
    """Letters with rare pairs and random CJK cut often; lengths cross the 256-byte short-piece limit."""
    rng = random.Random(seed)
    text = "".join(rng.choice(alphabet) for _ in range(length))
    ours, ref = pair(name)
    assert ours.encode_ordinary(text) == ref.encode_ordinary(text)
    assert ours.count_tokens(text) == len(ref.encode_ordinary(text))


@SETTINGS
@given(
    tokens=st.lists(st.text(alphabet="abcd", min_size=2, max_size=5), min_size=1, max_size=40, unique=True),
    text=st.text(alphabet="abcd", min_size=1, max_size=300),
)
def test_random_vocabulary_equal_to_tiktoken_and_reference(tokens, text):
    """Random tokens in random rank order (some unreachable by merges), one piece per text."""
    import tiktoken

    ranks = {bytes([b]): b for b in range(256)}
    for t in tokens:
        ranks[t.encode()] = len(ranks)
    ours = tokenforge.Encoding("t", pat_str=r"\S+|\s+", mergeable_ranks=ranks, special_tokens={})
    ref = tiktoken.Encoding("t", pat_str=r"\S+|\s+", mergeable_ranks=ranks, special_tokens={})
    want = ref.encode_ordinary(text)
    assert ours.encode_ordinary(text) == want
    # The reference merges whole pieces too (no shortcut for a piece that is a token).
    merged = reference.bpe_merge(text.encode(), ranks)
    assert merged == want or text.encode() in ranks
    assert oracles.bpe_merge_in_chunks(text.encode(), ranks) == merged


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
@pytest.mark.parametrize("left", [1, 2, 3, 254, 255, 256, 257, 600])
def test_chunks_on_both_sides_of_the_short_piece_limit(name, left):
    """Chunks of every size next to a cut ("qg" and its neighbours are in no token of
    these vocabularies): short merges, the long-piece merge, and the switch at 256 bytes."""
    ours, ref = pair(name)
    for right in (1, 2, 255, 256, 257):
        for letter in "ae":
            text = letter * left + "qg" + letter * right + "qg" + "zq" * 130
            assert ours.encode_ordinary(text) == ref.encode_ordinary(text), (left, right, letter)


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base", "llama3"])
@SETTINGS
@given(
    chars=st.lists(st.sampled_from(list("中文字的一是不了人我在有他这为之大来以个データをファイルまたは標準入力鬱龘齉\u4dc0\ufffd")),
                   min_size=1, max_size=90),
    lead=st.sampled_from(["", " ", "a", "é", "\n"]),
    seed=st.integers(min_value=0, max_value=2**32 - 1),
)
def test_runs_of_three_byte_characters_equal_to_tiktoken(name, chars, lead, seed):
    """Pieces of up to 256 bytes of three-byte characters, common and rare (merge_chunks cuts
    them at character bounds, SafeCuts::char_run), each twice (a fresh merge, then the caches)."""
    rng = random.Random(seed)
    words = ["".join(chars[: rng.randint(1, len(chars))]) for _ in range(4)]
    text = " ".join(lead + w for w in words) + "\n" + "".join(words)
    ours, ref = pair(name)
    for t in (text, text):
        assert ours.encode_ordinary(t) == ref.encode_ordinary(t)


@SETTINGS
@given(
    chars=st.lists(st.sampled_from(list("中丁七万丈三上下不与亐亓ぁあぃいぅうアイウ\u4dc0\uffe0")), min_size=2, max_size=12,
                   unique=True),
    picks=st.lists(st.tuples(st.integers(0, 40), st.integers(2, 5)), min_size=1, max_size=40),
    length=st.integers(min_value=1, max_value=90),
    seed=st.integers(min_value=0, max_value=2**32 - 1),
)
def test_random_vocabulary_across_three_byte_characters(chars, picks, length, seed):
    """Runs of three-byte characters that share lead and continuation bytes, with a random
    vocabulary of their byte substrings, many across a character boundary (a2 b0, a1 a2 b0,
    a2 b0 b1, ...): SafeCuts' exact tables for a boundary between two such characters
    (boundary_cut), and the hashed strings elsewhere, against tiktoken and the reference."""
    import tiktoken

    rng = random.Random(seed)
    text = "".join(rng.choice(chars) for _ in range(length))
    source = "".join(rng.choice(chars) for _ in range(16)).encode()
    ranks = {bytes([b]): b for b in range(256)}
    for start, size in picks:
        token = source[start % len(source):start % len(source) + size]
        if len(token) >= 2 and token not in ranks:
            ranks[token] = len(ranks)
    ours = tokenforge.Encoding("t", pat_str=r"\S+|\s+", mergeable_ranks=ranks, special_tokens={})
    ref = tiktoken.Encoding("t", pat_str=r"\S+|\s+", mergeable_ranks=ranks, special_tokens={})
    want = ref.encode_ordinary(text)
    for t in (text, text):  # a fresh merge, then the caches
        assert ours.encode_ordinary(t) == want
    assert oracles.bpe_merge_in_chunks(text.encode(), ranks) == want or text.encode() in ranks
