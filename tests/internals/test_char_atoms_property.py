"""Starting characters as their token (cpp/models/byte_level/vocab/char_atoms.h, oracles.bpe_merge_atoms)
gives tiktoken's ids on random vocabularies over a few two- and three-byte characters,
whose tokens may be partial characters, hold characters at any rank, or be unreachable."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tokenforge
from tokenforge.reference import bpe as reference
from tokenforge.reference import fast_paths as oracles

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
ALPHABET = "aé中жü字"


@SETTINGS
@given(seed=st.integers(min_value=0, max_value=2**32 - 1), count=st.integers(min_value=1, max_value=60))
def test_random_multibyte_vocabulary_equal_to_tiktoken_and_reference(seed, count):
    import tiktoken

    rng = random.Random(seed)
    raw = "".join(rng.choice(ALPHABET) for _ in range(80)).encode()
    chars = [c.encode() for c in ALPHABET]
    extra = set()
    for _ in range(count):
        if rng.random() < 0.3:
            extra.add(rng.choice(chars))  # whole characters, at random ranks
        else:
            a = rng.randrange(len(raw) - 1)
            extra.add(raw[a:a + rng.randint(2, 7)])  # any substring, partial characters included
    ranks = {bytes([b]): b for b in range(256)}
    for t in sorted(extra - set(ranks), key=lambda _: rng.random()):
        ranks[t] = len(ranks)
    ours = tokenforge.Encoding("t", pat_str=r"\S+|\s+", mergeable_ranks=ranks, special_tokens={})
    ref = tiktoken.Encoding("t", pat_str=r"\S+|\s+", mergeable_ranks=ranks, special_tokens={})
    atoms = oracles.char_atoms(ranks)
    for _ in range(5):
        text = "".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 30)))
        want = ref.encode_ordinary(text)
        assert ours.encode_ordinary(text) == want, text
        piece = text.encode()
        assert oracles.bpe_merge_atoms(piece, ranks, atoms) == reference.bpe_merge(piece, ranks)
