"""minbpe's algorithm in plain Python: the oracle the native trainer and encoder are tested against.

This is the teaching text of :mod:`tokenforge.minbpe`: byte-pair encoding as Karpathy's
minbpe writes it, where a token sequence is a list of ids, ids 0-255 are the byte values,
and merge k makes id 256 + k.  Training counts every adjacent pair of every chunk, merges
the most frequent one everywhere and repeats; among equal counts it takes the pair seen
first in the text (``max`` over a dict keeps the first of equal keys, and a dict iterates in
insertion order).  Encoding repeatedly merges the adjacent pair that was learned first.

It leaves out speed (every merge rescans the whole text: minutes for a megabyte), special
tokens and files; those are in :mod:`tokenforge.minbpe.base`.

Example (minbpe's documented example: three merges of "aaabdaaabac"):
    >>> merges = train([list(b"aaabdaaabac")], 259)
    >>> merges
    {(97, 97): 256, (256, 97): 257, (257, 98): 258}
    >>> encode_chunk(list(b"aaabdaaabac"), merges)
    [258, 100, 258, 97, 99]
"""

from __future__ import annotations


def get_stats(ids: list[int], counts: dict[tuple[int, int], int] | None = None) -> dict[tuple[int, int], int]:
    """Counts adjacent pairs, in the order they are first seen.

    Example: ids=[1, 2, 3, 1, 2] -> {(1, 2): 2, (2, 3): 1, (3, 1): 1}

    >>> get_stats([1, 2, 3, 1, 2])
    {(1, 2): 2, (2, 3): 1, (3, 1): 1}
    """
    counts = {} if counts is None else counts
    for pair in zip(ids, ids[1:]):
        counts[pair] = counts.get(pair, 0) + 1
    return counts


def merge(ids: list[int], pair: tuple[int, int], idx: int) -> list[int]:
    """Replaces every occurrence of `pair`, left to right, by `idx`.

    Example: ids=[1, 2, 3, 1, 2], pair=(1, 2), idx=4 -> [4, 3, 4]

    >>> merge([1, 2, 3, 1, 2], (1, 2), 4)
    [4, 3, 4]
    >>> merge([7, 7, 7], (7, 7), 8)  # left to right: (7 7) 7
    [8, 7]
    """
    out = []
    i = 0
    while i < len(ids):
        if i + 1 < len(ids) and ids[i] == pair[0] and ids[i + 1] == pair[1]:
            out.append(idx)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out


def train(chunks: list[list[int]], vocab_size: int) -> dict[tuple[int, int], int]:
    """Learns merges from chunks of byte values (one chunk per regex match, in text order).

    Stops early when no pair is left.  Returns (left id, right id) -> new id, in merge order.

    >>> train([list(b"ab"), list(b"ba"), list(b"ab"), list(b"ba")], 257)  # 2 each: (a, b) first seen
    {(97, 98): 256}
    """
    merges: dict[tuple[int, int], int] = {}
    for idx in range(256, vocab_size):
        stats: dict[tuple[int, int], int] = {}
        for chunk in chunks:
            get_stats(chunk, stats)
        if not stats:
            break
        pair = max(stats, key=stats.__getitem__)  # ties: the first seen
        chunks = [merge(chunk, pair, idx) for chunk in chunks]
        merges[pair] = idx
    return merges


def encode_chunk(ids: list[int], merges: dict[tuple[int, int], int]) -> list[int]:
    """Merges a chunk's byte values with the learned merges, the earliest-learned pair first.

    >>> encode_chunk(list(b"abab"), {(97, 98): 256, (256, 256): 257})
    [257]
    """
    while len(ids) >= 2:
        pair = min(get_stats(ids), key=lambda p: merges.get(p, float("inf")))
        if pair not in merges:
            break
        ids = merge(ids, pair, merges[pair])
    return ids


def vocab_of(merges: dict[tuple[int, int], int]) -> dict[int, bytes]:
    """id -> bytes for the 256 bytes and the merges (several ids can have the same bytes).

    >>> vocab_of({(97, 98): 256})[256]
    b'ab'
    """
    vocab = {i: bytes([i]) for i in range(256)}
    for (a, b), idx in merges.items():
        vocab[idx] = vocab[a] + vocab[b]
    return vocab
