"""Long pieces of three-byte characters (CJK runs without spaces) against tiktoken.

Pieces of 16..512 bytes led by a three-byte character pass the piece cache's second
FirstSightFilter (cpp/models/byte_level/cache/byte_level_cache.h): while most are new, one seen for the first
time is merged without being looked up or stored, and only one met again is cached.  The
texts here drive that filter on (thousands of distinct runs), off (a few runs repeated
many times) and on again, each through one fresh instance, so every state and switch is
crossed with pieces met for the first, second and later time, of lengths on both sides
of 16 and 512 bytes.  Expected ids always come from tiktoken.
"""

from __future__ import annotations

import random

import pytest
from _tiktoken_refs import pair

import tokenforge

CHARS = "中文字的一是不了人我在有他这为之大来以个データをファイルまたは標準入力鬱龘齉言語処理東京都"


def run(rng: random.Random) -> str:
    """A run of 5..45 characters (15..135 bytes), one in twenty of 165..175 (495..525 bytes)."""
    count = rng.randint(165, 175) if rng.random() < 0.05 else rng.randint(5, 45)
    return "".join(rng.choice(CHARS) for _ in range(count))


def phases(seed: int) -> list[str]:
    rng = random.Random(seed)
    recurring = [run(rng) for _ in range(40)]
    # Separators keep each run a piece of its own, led by its first character ("\n"), or
    # led by a three-byte punctuation mark ("。" joins the run that follows it).
    sep = lambda: rng.choice(["\n", "。", "\n\n", "、"])  # noqa: E731
    new = "".join(run(rng) + sep() for _ in range(3000))
    # Mostly new, with a recurring run now and then (met again while the filter is on).
    mixed = "".join((rng.choice(recurring) if rng.random() < 0.1 else run(rng)) + sep() for _ in range(1500))
    repeated = "".join(rng.choice(recurring) + sep() for _ in range(3000))
    return [new, mixed, repeated, new, mixed]


def fresh(name: str) -> tokenforge.Encoding:
    ours, _ = pair(name)
    return tokenforge.Encoding(name, pat_str=ours._pat_str, mergeable_ranks=ours._mergeable_ranks, special_tokens={})


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_filter_on_off_and_on_again(name):
    _, ref = pair(name)
    enc = fresh(name)
    for text in phases(1):
        assert enc.encode_ordinary(text) == ref.encode_ordinary(text)


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_count_and_batch(name):
    _, ref = pair(name)
    counting, batching = fresh(name), fresh(name)
    texts = phases(2)
    for text in texts:
        assert counting.count_tokens(text) == len(ref.encode_ordinary(text))
    want = [ref.encode_ordinary(t) for t in texts]
    assert batching.encode_ordinary_batch(texts, num_threads=1) == want
    assert batching.encode_ordinary_batch(texts, num_threads=2) == want


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_piece_met_first_in_one_path_then_another(name):
    """A run counted first, then encoded (count_tokens and encode share the cache), and
    runs first met as a whole piece and then inside a longer piece."""
    _, ref = pair(name)
    enc = fresh(name)
    rng = random.Random(3)
    runs = [run(rng) for _ in range(4000)]
    text = "\n".join(runs)
    assert enc.count_tokens(text) == len(ref.encode_ordinary(text))
    assert enc.encode_ordinary(text) == ref.encode_ordinary(text)
    longer = "\n".join(a + b for a, b in zip(runs, runs[1:]))
    assert enc.encode_ordinary(longer) == ref.encode_ordinary(longer)
