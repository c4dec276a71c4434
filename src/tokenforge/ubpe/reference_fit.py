"""The UBPE fit in pure Python: the readable oracle of the C++ trainer (cpp/models/ubpe/fit.cc).

UBPE (PyPI `ubpe` 0.3.0) fits byte-pair merges over symbol ids, adding several merges per
step.  Each step recounts every adjacent pair inside the parts of every document, and, per
pair, the number of documents holding it.  The `n_candidates` best pairs by (count, then
fewer documents, then the larger pair) are walked in that order: the first is always taken,
a later one is taken when it shares no symbol with a taken pair and both of its border pairs
with every taken pair (`(its right, their left)` and `(their right, its left)`) are rarer than
it.  Every taken pair becomes a new id with weight `log((1 + n_docs) / (1 + docs_with_pair))`,
all of them replace their pairs left to right, and the loop stops once the last id reaches
`n_tokens` (a step can overshoot it).

This file recounts every step, as `ubpe` does; the C++ trainer updates the counts in place.
Renumbering by weight is in `vocab.py`; splitting documents into parts is in `split.py`.

Example:
    >>> merges, weights = fit_merges([[[0, 1, 0, 1, 2]], [[0, 1]]], first_id=3, n_tokens=3)
    >>> merges
    [(0, 1)]
    >>> round(weights[0], 6)   # log(3 / 3): both documents hold (0, 1)
    0.0
"""

from __future__ import annotations

import heapq
import math
from collections import Counter

Pair = tuple[int, int]


def count_pairs(docs: list[list[list[int]]]) -> tuple[Counter[Pair], Counter[Pair]]:
    """Counts adjacent pairs inside each part, and the documents holding each pair.

    Example: docs=[[[1, 2, 1, 2]], [[1, 2]]] -> ({(1, 2): 3, (2, 1): 1}, {(1, 2): 2, (2, 1): 1})
    """
    counts: Counter[Pair] = Counter()
    docs_with: Counter[Pair] = Counter()
    for parts in docs:
        seen: set[Pair] = set()
        for part in parts:
            pairs = list(zip(part, part[1:]))
            counts.update(pairs)
            seen.update(pairs)
        docs_with.update(seen)
    return counts, docs_with


def choose_pairs(top: list[tuple[Pair, int]], counts: Counter[Pair]) -> list[Pair]:
    """The pairs one step merges, from the candidates in rank order (see the module docstring).

    Example: top=[((1, 2), 5), ((3, 4), 4), ((2, 3), 3)], counts={(4, 1): 1, (2, 3): 3}
    -> [(1, 2), (3, 4)]  ((2, 3) shares symbols with both)
    """
    chosen = [top[0][0]]
    used = set(top[0][0])
    for (left, right), count in top[1:]:
        if left in used or right in used:
            continue
        if all(counts[(right, l1)] < count and counts[(r1, left)] < count for l1, r1 in chosen):
            chosen.append((left, right))
            used.update((left, right))
    return chosen


def replace_pairs(part: list[int], merges: dict[Pair, int]) -> list[int]:
    """Replaces the pairs of `merges` (which share no symbol) left to right in one pass.

    Example: part=[1, 1, 1, 2, 3], merges={(1, 1): 7, (2, 3): 8} -> [7, 1, 8]
    """
    out: list[int] = []
    i = 0
    while i < len(part):
        new = merges.get((part[i], part[i + 1])) if i + 1 < len(part) else None
        if new is None:
            out.append(part[i])
            i += 1
        else:
            out.append(new)
            i += 2
    return out


def fit_merges(
    docs: list[list[list[int]]], *, first_id: int, n_tokens: int, n_candidates: int = 50
) -> tuple[list[Pair], list[float]]:
    """Fits UBPE merges: the pair each new id stands for and its idf weight, in creation order.

    Args:
        docs: each document as a list of parts, each part a list of symbol ids.
        first_id: the first new id (alphabet size plus known words).
        n_tokens: stop once the last id reaches this.
        n_candidates: how many top pairs each step considers.

    Returns:
        `(merges, weights)`: `merges[k]` is the pair id `first_id + k` replaces.

    Example:
        >>> fit_merges([[[1, 2, 1, 2]]], first_id=3, n_tokens=4)[0]
        [(1, 2), (3, 3)]
    """
    merges: list[Pair] = []
    weights: list[float] = []
    last_id = first_id - 1
    n_docs = len(docs)
    while last_id < n_tokens:
        counts, docs_with = count_pairs(docs)
        top = heapq.nlargest(
            n_candidates, counts.items(), key=lambda kv: (kv[1], -docs_with[kv[0]], kv[0])
        )
        if not top:
            break
        step: dict[Pair, int] = {}
        for pair in choose_pairs(top, counts):
            last_id += 1
            step[pair] = last_id
            merges.append(pair)
            weights.append(math.log((1 + n_docs) / (1 + docs_with[pair])))
        docs = [[replace_pairs(part, step) for part in parts] for parts in docs]
    return merges, weights
