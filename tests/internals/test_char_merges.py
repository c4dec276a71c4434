"""CharMerges (a chunk that is one three-byte character takes its merge alone from a table,
cpp/models/byte_level/vocab/char_merges.h, oracles.char_merges) against tiktoken:

- every three-byte character of the BMP, in pieces of characters that are not tokens (cut
  into one-character chunks) and between characters whose pairs are tokens (no cut), in
  each byte-level vocabulary;
- toy vocabularies whose pairs and triples of a few characters' bytes are tokens at random
  ranks (pairs of equal rank order, whole characters above or below their pairs), and one
  whose ids are >= 2^20 (then the table keeps nothing and chunks merge as before).

Expected ids always come from tiktoken.
"""

from __future__ import annotations

import random

import pytest
from _tiktoken_refs import ENCODINGS, pair

import tokenforge
from tokenforge.reference import bpe as reference
from tokenforge.reference import fast_paths as oracles

BMP3 = [chr(c) for c in range(0x800, 0x10000) if not 0xD800 <= c < 0xE000]


@pytest.mark.parametrize("name", ENCODINGS)
def test_every_three_byte_character(name):
    ours, ref = pair(name)
    rng = random.Random(3)
    chars = BMP3[:]
    rng.shuffle(chars)
    # Runs of random characters (most chunks one character), a few with ASCII between.
    lines = ["".join(chars[i:i + 24]) + "\n" for i in range(0, len(chars), 24)]
    lines += [" ".join(chars[i:i + 5]) + "\n" for i in range(0, 6000, 5)]
    lines += ["a" + c + "1" + c + c + "\n" for c in chars[:3000]]
    want = ref.encode_ordinary_batch(lines, num_threads=2)
    for line, w in zip(lines, want):
        assert ours.encode_ordinary(line) == w, repr(line)
    # Each character alone (a whole piece: a token, or its merge).
    text = "\n".join(chars[:8000])
    assert ours.encode_ordinary(text) == ref.encode_ordinary(text)


@pytest.mark.parametrize("seed", range(40))
def test_toy_vocabularies_of_character_pairs(seed):
    import tiktoken

    rng = random.Random(seed)
    chars = [c.encode() for c in "中文字日本語の一丁"]
    extra = set()
    for c in chars:
        for t in (c[:2], c[1:], c):
            if rng.random() < 0.5:
                extra.add(t)
    if rng.random() < 0.5:
        extra.add(rng.choice(chars) + rng.choice(chars))  # sometimes no cut between two
    ranks = {bytes([b]): b for b in range(256)}
    for t in sorted(extra, key=lambda _: rng.random()):
        ranks[t] = len(ranks)
    ours = tokenforge.Encoding("t", pat_str=r"\S+|\s+", mergeable_ranks=ranks, special_tokens={})
    ref = tiktoken.Encoding("t", pat_str=r"\S+|\s+", mergeable_ranks=ranks, special_tokens={})
    merges = oracles.char_merges(ranks)
    for c in chars:
        assert merges[c] == reference.bpe_merge(c, ranks)
    for _ in range(20):
        text = "".join(rng.choice(chars).decode() for _ in range(rng.randint(1, 12)))
        assert ours.encode_ordinary(text) == ref.encode_ordinary(text), text


def test_ids_beyond_the_table_width():
    import tiktoken

    base = 1 << 20
    ranks = {bytes([b]): base + b for b in range(256)}
    for t in ("中".encode()[:2], "文".encode()[1:], "字".encode()):
        ranks[t] = base + len(ranks)
    ours = tokenforge.Encoding("t", pat_str=r"\S+|\s+", mergeable_ranks=ranks, special_tokens={})
    ref = tiktoken.Encoding("t", pat_str=r"\S+|\s+", mergeable_ranks=ranks, special_tokens={})
    for text in ("中文字", "中中文文字字", "字中", "文"):
        assert ours.encode_ordinary(text) == ref.encode_ordinary(text), text
