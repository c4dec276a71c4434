"""Joining parts by their ids (cpp/models/byte_level/vocab/join_index.h, oracles.own_joins and
merge_by_joins) gives tiktoken's ids on random vocabularies over a few two-, three- and
four-byte characters and ASCII letters, whose tokens may be partial characters, hold
characters at any rank, split in several ways, or be unreachable by their own merge."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tokenforge
from tokenforge.reference import bpe as reference
from tokenforge.reference import fast_paths as oracles

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
ALPHABET = "abé中жü字😀"


def random_vocabulary(rng: random.Random, count: int) -> dict[bytes, int]:
    raw = "".join(rng.choice(ALPHABET) for _ in range(120)).encode()
    chars = [c.encode() for c in ALPHABET]
    extra = set()
    for _ in range(count):
        roll = rng.random()
        if roll < 0.2:
            extra.add(rng.choice(chars))  # whole characters, at random ranks
        elif roll < 0.4:
            extra.add(b"".join(rng.choice(chars) for _ in range(rng.randint(2, 4))))  # runs of characters
        else:
            a = rng.randrange(len(raw) - 1)
            extra.add(raw[a:a + rng.randint(2, 9)])  # any substring, partial characters included
    ranks = {bytes([b]): b for b in range(256)}
    for t in sorted(extra - set(ranks), key=lambda _: rng.random()):
        ranks[t] = len(ranks)
    return ranks


@SETTINGS
@given(seed=st.integers(min_value=0, max_value=2**32 - 1), count=st.integers(min_value=1, max_value=80))
def test_random_vocabulary_equal_to_tiktoken_and_reference(seed, count):
    import tiktoken

    rng = random.Random(seed)
    ranks = random_vocabulary(rng, count)
    ours = tokenforge.Encoding("t", pat_str=r"\S+|\s+", mergeable_ranks=ranks, special_tokens={})
    ref = tiktoken.Encoding("t", pat_str=r"\S+|\s+", mergeable_ranks=ranks, special_tokens={})
    atoms, joins = oracles.char_atoms(ranks), oracles.own_joins(ranks)
    texts = ["".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 40))) for _ in range(6)]
    texts.append("".join(rng.choice(ALPHABET) for _ in range(100)))  # over 256 bytes: cut into chunks
    for text in texts:
        want = ref.encode_ordinary(text)
        assert ours.encode_ordinary(text) == want, text
        piece = text.encode()
        assert oracles.merge_by_joins(piece, ranks, atoms, joins) == reference.bpe_merge(piece, ranks)


@SETTINGS
@given(seed=st.integers(min_value=0, max_value=2**32 - 1), count=st.integers(min_value=1, max_value=40))
def test_own_joins_are_joins_whose_merge_ends_in_the_token(seed, count):
    """Each entry joins two tokens into a third that spells them, and that token's own bytes
    merge into it; a token its bytes merge into has an entry."""
    ranks = random_vocabulary(random.Random(seed), count)
    by_id = {r: t for t, r in ranks.items()}
    joins = oracles.own_joins(ranks)
    assert set(joins.items()) <= set(oracles.pair_joins(ranks).items())
    for (x, y), t in joins.items():
        assert by_id[x] + by_id[y] == by_id[t]
        assert reference.bpe_merge(by_id[t], ranks) == [t]
    for token, rank in ranks.items():
        if len(token) > 1 and reference.bpe_merge(token, ranks) == [rank]:
            assert rank in joins.values()


def test_a_join_that_is_not_the_tokens_own_is_never_made():
    """b"abc" spells b"a" + b"bc" too, but its own merge ends by joining b"ab" and b"c":
    the parts b"a" and b"bc" (which "xbc" leaves next to "a" after merging b"bc" first)
    must not join, and do not in tiktoken either."""
    import tiktoken

    ranks = {bytes([b]): b for b in range(256)}
    ranks |= {"ab".encode(): 256, "é".encode(): 257, "bc".encode(): 258, "abc".encode(): 259}
    ranks |= {"éab".encode(): 260, "bcé".encode(): 261, "abcé".encode(): 262}
    joins = oracles.own_joins(ranks)
    assert (ranks[b"ab"], ranks[b"c"]) in joins and (ranks[b"a"], ranks[b"bc"]) not in joins
    ours = tokenforge.Encoding("toy", pat_str=r"\S+|\s+", mergeable_ranks=ranks, special_tokens={})
    ref = tiktoken.Encoding("toy", pat_str=r"\S+|\s+", mergeable_ranks=ranks, special_tokens={})
    words = ["a", "b", "c", "é", "ab", "bc", "abc", "éab", "bcé", "abcé", "x"]
    rng = random.Random(3)
    for _ in range(3000):
        text = "".join(rng.choice(words) for _ in range(rng.randint(1, 6)))
        assert ours.encode_ordinary(text) == ref.encode_ordinary(text), text
