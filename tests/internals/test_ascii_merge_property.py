"""The merge of whole short ASCII pieces with lookups filtered by their first three bytes
(cpp/models/byte_level/vocab/ascii_triples.h, ByteLevelBpe::merge_ascii; oracles.ascii_triples and
bpe_merge_ascii) gives tiktoken's ids on random vocabularies over a few letters, whose
tokens of 2..15 bytes sit at random ranks, split in several ways or are unreachable by
their own merge, some with a leading space; pieces of 1..15 bytes (a word and its space,
cut by cl100k's pattern, whose scanner feeds the short-piece path): a stream of new ones
(which turns the first-sight filter on, under which merge_ascii runs), then some many
times (merged, stored and found)."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tokenforge
from tokenforge import patterns
from tokenforge.reference import bpe as reference
from tokenforge.reference import fast_paths as oracles

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
ALPHABET = "abcxy"


def random_vocabulary(rng: random.Random, count: int) -> dict[bytes, int]:
    raw = "".join(rng.choice(ALPHABET + " ") for _ in range(200)).encode()
    extra = set()
    for _ in range(count):
        a = rng.randrange(len(raw) - 16)
        extra.add(raw[a:a + rng.choice([2, 2, 3, 3, 4, 5, 8, 9, 15, 16])])
    ranks = {bytes([b]): b for b in range(256)}
    for t in sorted(extra - set(ranks), key=lambda _: rng.random()):
        ranks[t] = len(ranks)
    return ranks


@SETTINGS
@given(seed=st.integers(min_value=0, max_value=2**32 - 1), count=st.integers(min_value=1, max_value=120))
def test_random_vocabulary_equal_to_tiktoken_and_reference(seed, count):
    import tiktoken

    rng = random.Random(seed)
    ranks = random_vocabulary(rng, count)
    pat = patterns.CL100K
    ours = tokenforge.Encoding("t", pat_str=pat, mergeable_ranks=ranks, special_tokens={})
    ref = tiktoken.Encoding("t", pat_str=pat, mergeable_ranks=ranks, special_tokens={})
    triples = oracles.ascii_triples(ranks)
    words = ["".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 14))) for _ in range(40)]
    for word in words:
        for piece in (word.encode(), b" " + word.encode()):
            assert oracles.bpe_merge_ascii(piece, ranks, triples) == reference.bpe_merge(piece, ranks)
    # New words first (the native merge_ascii runs while most pieces are new, see
    # FirstSightFilter), then the words again and again.
    fresh = " ".join("".join(rng.choice(ALPHABET) for _ in range(rng.randint(6, 14))) for _ in range(3000))
    text = fresh + " " + " ".join(words * 3)
    assert ours.encode_ordinary(text) == ref.encode_ordinary(text)
