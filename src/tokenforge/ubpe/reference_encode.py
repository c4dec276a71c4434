"""UBPE encoding in pure Python, classic and universal: the oracle of cpp/models/ubpe/encode_*.cc.

Both encoders work on one part (a list of symbol ids) and return `(ids, weight)` pairs.  The
weight of an encoding is its tf-idf: the sum over its distinct tokens of
`(1 + log count) * idf`, alphabet symbols weighing 0.  The sum runs over the tokens in the
order a `collections.Counter` holds them and adds the way CPython 3.12's `sum()` adds floats
(Neumaier's compensated sum), so that equal weights compare equal exactly as in `ubpe`.

- Classic: repeatedly take the first vocabulary pair present in the sequence, then the later
  present ones in vocabulary order, stopping at the first vocabulary pair (present or not)
  that shares a symbol with those taken; replace them all left to right.
- Universal: every vocabulary string starting at each position is an edge of a DAG of
  segmentations; a suffix dynamic programme keeps, per position, the `top_n` best tails by
  (weight, then fewer tokens) built from the best tails after each edge.  It is ubpe's greedy
  programme (a tail's weight is not additive, so this is not the true optimum), reproduced
  with ubpe's heap and tie rules.

Splitting documents into parts and joining parts' encodings are in `model.py`.
"""

from __future__ import annotations

import heapq
import math
from collections import Counter
from collections.abc import Iterable, Sequence

Pair = tuple[int, int]


def sum_like_py312(terms: Iterable[float]) -> float:
    """Adds floats as CPython 3.12's `sum()` does (Neumaier's compensated summation).

    Example:
        >>> sum_like_py312([0.1] * 10)
        1.0
    """
    total = 0.0
    comp = 0.0
    for x in terms:
        t = total + x
        if abs(total) >= abs(x):
            comp += (total - t) + x
        else:
            comp += (x - t) + total
        total = t
    if comp and math.isfinite(comp):
        total += comp
    return total


def tfidf_weight(counter: Counter[int], weights: Sequence[float]) -> float:
    """`sum((1 + log n) * idf)` over `counter` in its own order; ids past `weights` weigh 0.

    Example: counter=Counter({5: 2}), weights[5]=1.0 -> 1 + log 2
    """
    return sum_like_py312(
        (1 + math.log(n)) * (weights[t] if t < len(weights) else 0.0) for t, n in counter.items()
    )


def encode_classic(word: list[int], pairs: list[Pair], ids: dict[Pair, int],
                   weights: Sequence[float]) -> tuple[list[int], float]:
    """Classic UBPE encoding of one part.

    Args:
        word: symbol ids.
        pairs: the vocabulary's pairs in priority order.
        ids: pair -> the id replacing it.
        weights: idf by id (0 for alphabet ids).

    Example:
        >>> encode_classic([1, 2, 3], [(2, 3), (1, 4)], {(2, 3): 4, (1, 4): 5}, [0.0] * 6)
        ([5], 0.0)
    """
    word = list(word)
    while True:
        present = set(zip(word, word[1:]))
        first = next((i for i, p in enumerate(pairs) if p in present), None)
        if first is None:
            break
        taken = {pairs[first]: ids[pairs[first]]}
        used = set(pairs[first])
        for pair in pairs[first + 1:]:
            if pair[0] in used or pair[1] in used:
                break
            if pair in present:
                taken[pair] = ids[pair]
                used.update(pair)
        out: list[int] = []
        i = 0
        while i < len(word):
            new = taken.get((word[i], word[i + 1])) if i + 1 < len(word) else None
            out.append(word[i] if new is None else new)
            i += 1 if new is None else 2
        word = out
    return word, tfidf_weight(Counter(word), weights)


class _Tail:
    """One encoding of a suffix: ubpe's `EncodingCandidate` (weight, then fewer tokens is better)."""

    __slots__ = ("weight", "seq", "counter")

    def __init__(self, weight: float, seq: list[int], counter: Counter[int]):
        self.weight, self.seq, self.counter = weight, seq, counter

    def __lt__(self, other: _Tail) -> bool:
        if self.weight == other.weight:
            return len(self.seq) > len(other.seq)
        return self.weight < other.weight

    def __gt__(self, other: _Tail) -> bool:
        if self.weight == other.weight:
            return len(self.seq) < len(other.seq)
        return self.weight > other.weight

    def extend(self, token: int, weights: Sequence[float]) -> _Tail:
        counter = self.counter.copy()
        counter.update([token])
        return _Tail(tfidf_weight(counter, weights), [token] + self.seq, counter)


def token_edges(word: Sequence[int], vocab: dict[tuple[int, ...], int], max_len: int,
                start: int) -> list[tuple[int, int]]:
    """`(length, id)` of every vocabulary string starting at `start`, shortest first.

    Example: word=[1, 2, 3], vocab={(1,): 1, (1, 2): 9}, start=0 -> [(1, 1), (2, 9)]
    """
    edges = []
    for length in range(1, min(max_len, len(word) - start) + 1):
        token = vocab.get(tuple(word[start:start + length]))
        if token is not None:
            edges.append((length, token))
    return edges


def encode_universal(word: list[int], vocab: dict[tuple[int, ...], int],
                     weights: Sequence[float], top_n: int = 1) -> list[tuple[list[int], float]]:
    """Universal UBPE encoding of one part: the `top_n` best segmentations, best first.

    Args:
        word: symbol ids.
        vocab: symbol string -> id, alphabet symbols included as 1-tuples.
        weights: idf by id (0 for alphabet ids).
        top_n: how many encodings to keep.

    Example:
        >>> vocab = {(1,): 1, (2,): 2, (1, 2): 3}
        >>> encode_universal([1, 2, 1], vocab, [0.0, 0.0, 0.0, 0.5])
        [([3, 1], 0.5)]
    """
    max_len = max(map(len, vocab))
    tails: dict[int, list[_Tail]] = {len(word): [_Tail(0.0, [], Counter())]}
    for start in range(len(word) - 1, -1, -1):
        heap: list[_Tail] = []
        for length, token in token_edges(word, vocab, max_len, start):
            for tail in tails[start + length] if top_n > 1 else tails[start + length][:1]:
                new = tail.extend(token, weights)
                if top_n == 1:
                    # ubpe keeps the first best: a later one replaces it only when strictly better
                    if not heap or heap[0].weight < new.weight or (
                            heap[0].weight == new.weight and len(heap[0].seq) > len(new.seq)):
                        heap = [new]
                elif len(heap) < top_n:
                    heapq.heappush(heap, new)
                elif new > heap[0]:
                    heapq.heapreplace(heap, new)
        tails[start] = heap  # the heap's own order: it is the order later steps read it in
    best = sorted(tails[0], reverse=True)
    return [(t.seq, t.weight) for t in best]
