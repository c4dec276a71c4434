"""Recovering the merge list of a byte-level BPE vocabulary from its ranks.

A rank file (tiktoken) lists tokens only; formats that store merges (minbpe, HF) need, for
each token of rank r, the two tokens it was made of.  They are found the way tiktoken's
own converter finds them: byte-pair merge the token's bytes using only the ranks below r
(lowest rank first); for a BPE vocabulary this ends in exactly two parts.

Example:
    >>> ranks = {bytes([b]): b for b in range(256)} | {b"ab": 256, b"abc": 257}
    >>> merges_from_ranks(ranks)
    [(b'a', b'b'), (b'ab', b'c')]
"""

from __future__ import annotations

import heapq


def split_in_two(token: bytes, ranks: dict[bytes, int], max_rank: int) -> list[bytes]:
    """Byte-pair merges `token` with ranks below `max_rank`, lowest rank first (leftmost on
    ties); O(n log n) with a heap of candidate pairs over a linked list of parts.

    >>> split_in_two(b"abc", {b"a": 0, b"b": 1, b"c": 2, b"bc": 3}, 4)
    [b'a', b'bc']
    """
    parts = [bytes([b]) for b in token]
    nxt = list(range(1, len(parts) + 1))
    prv = list(range(-1, len(parts) - 1))
    heap = []

    def consider(i: int) -> None:
        j = nxt[i]
        if j < len(parts):
            r = ranks.get(parts[i] + parts[j])
            if r is not None and r < max_rank:
                heapq.heappush(heap, (r, i, parts[i], parts[j]))

    for i in range(len(parts) - 1):
        consider(i)
    alive = len(parts)
    while heap and alive > 2:
        r, i, left, right = heapq.heappop(heap)
        j = nxt[i]
        if parts[i] != left or j >= len(parts) or parts[j] != right:
            continue  # stale: one side was merged since
        parts[i] = left + right
        parts[j] = b""
        nxt[i] = nxt[j]
        if nxt[j] < len(parts):
            prv[nxt[j]] = i
        alive -= 1
        if prv[i] >= 0:
            consider(prv[i])
        consider(i)
    return [p for p in parts if p]


def merges_from_ranks(ranks: dict[bytes, int]) -> list[tuple[bytes, bytes]]:
    """The (left, right) bytes of every multi-byte token, in rank order.

    Raises:
        ValueError: a token cannot be built from two lower-ranked tokens (not a BPE vocabulary).
    """
    merges = []
    for token, rank in sorted(ranks.items(), key=lambda kv: kv[1]):
        if len(token) < 2:
            continue
        parts = split_in_two(token, ranks, rank)
        if len(parts) != 2:
            raise ValueError(f"token {token!r} (rank {rank}) is not the merge of two lower-ranked tokens")
        merges.append((parts[0], parts[1]))
    return merges


def every_merge(ranks: dict[bytes, int]) -> list[tuple[bytes, bytes]]:
    """Every (left, right) pair of tokens whose concatenation is a token, ordered by that
    token's rank (then by the left and right ranks): the merge list under which rank-ordered
    BPE (HF's) merges exactly the pairs tiktoken merges, since tiktoken joins any adjacent
    pair that makes a token, whatever the parts' own ranks.  A token no pair makes (Llama 3
    has some) is reached only as a whole piece (`ignore_merges`).

    Example:
        >>> every_merge({b"a": 0, b"b": 1, b"c": 2, b"bc": 3, b"ab": 4, b"abc": 5})
        [(b'b', b'c'), (b'a', b'b'), (b'a', b'bc'), (b'ab', b'c')]
    """
    merges = []
    for token, rank in sorted(ranks.items(), key=lambda kv: kv[1]):
        splits = [(token[:k], token[k:]) for k in range(1, len(token)) if token[:k] in ranks and token[k:] in ranks]
        splits.sort(key=lambda ab: (ranks[ab[0]], ranks[ab[1]]))
        merges.extend(splits)
    return merges
