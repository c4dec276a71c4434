"""Sampled segmentations of a Unigram word (subword regularization), as `tokenizers` draws them
for a `Unigram(..., alpha=a, nbest_size=n)` built in Python.

The lattice: at each character, an edge per vocab piece starting there, and an unknown edge
over the character (score: the lowest piece score less 10) where no one-character piece exists.

* `nbest_size` unset or 0: one path drawn by forward filtering, backward sampling.  tokenizers'
  forward pass weighs a path prefix by theta * (edge score + prefix weight), theta applied
  again at every step (sentencepiece applies it to the edge score alone); the draw follows
  tokenizers: at each step back, an edge ending here is taken with weight
  exp(prefix weight at its start + theta * its score).
* `nbest_size` n > 0: the n best paths by total score, one drawn with weight exp(theta * score).

Adjacent unknown pieces are fused afterwards, as in the best path.  Draws come from Python's
`random` module, so `random.seed` makes them repeatable; they are not tokenizers' own draws.

Example:
    >>> import random
    >>> edges = lattice("ab", {"a": 0, "b": 1, "ab": 2}, [("a", -1.0), ("b", -1.0), ("ab", -1.5)], 2, None, -1.5)
    >>> sorted({tuple(sample(edges, 1.0, random.Random(k))) for k in range(50)})
    [((0, 1, 0), (1, 2, 1)), ((0, 2, 2),)]
"""

from __future__ import annotations

import heapq
import math
import random

UNK_PENALTY = 10.0  # an unknown character scores the lowest piece score less this


def lattice(word: str, vocab: dict[str, int], pieces: list, max_len: int, unk_id: int | None,
            min_score: float) -> list[list]:
    """into[j]: the edges (start, end, id, score) that end at character j of `word` (min_score:
    the lowest piece score).

    Raises:
        ValueError: a character with no piece in a model without an unknown id.
    """
    n = len(word)
    into: list[list] = [[] for _ in range(n + 1)]
    unk_score = min_score - UNK_PENALTY
    for i in range(n):
        single = False
        for j in range(i + 1, min(n, i + max_len) + 1):
            tid = vocab.get(word[i:j])
            if tid is not None:
                into[j].append((i, j, tid, pieces[tid][1]))
                single = single or j == i + 1
        if not single:
            if unk_id is None:
                raise ValueError("Unigram: a character has no piece and the model has no unk_id")
            into[i + 1].append((i, i + 1, unk_id, unk_score))
    return into


def _log_sum_exp(x: float, y: float) -> float:
    if x < y:
        x, y = y, x
    return x + math.log1p(math.exp(y - x)) if y - x > -50 else x


def sample(into: list[list], theta: float, rng: random.Random) -> list[tuple[int, int, int]]:
    """One path (start, end, id) per edge, drawn as tokenizers draws it (module docstring)."""
    n = len(into) - 1
    if n == 0:
        return []
    weight = [0.0] * (n + 1)  # the prefix weight of every edge starting at a position
    for j in range(1, n + 1):
        acc = None
        for i, _, _, s in into[j]:
            v = theta * (s + weight[i])
            acc = v if acc is None else _log_sum_exp(acc, v)
        weight[j] = 0.0 if acc is None else acc
    path = []
    pos = n
    while pos > 0:
        edges = into[pos]
        if not edges:
            raise ValueError("Unigram: the lattice has no path")
        logits = [weight[i] + theta * s for i, _, _, s in edges]
        top = max(logits)
        chosen = rng.choices(edges, [math.exp(x - top) for x in logits])[0]
        path.append(chosen[:3])
        pos = chosen[0]
    path.reverse()
    return path


def nbest(into: list[list], k: int) -> list[tuple[float, list[tuple[int, int, int]]]]:
    """The k best paths (score, [(start, end, id)]), best first: at each position its k best
    prefixes, extended by every edge (exact k-best over the lattice)."""
    n = len(into) - 1
    best: list[list] = [[] for _ in range(n + 1)]  # position -> [(score, edge, rank of prefix)]
    best[0] = [(0.0, None, 0)]
    for j in range(1, n + 1):
        cands = [(prev[0] + s, (i, e, tid), r) for i, e, tid, s in into[j] for r, prev in enumerate(best[i])]
        best[j] = heapq.nlargest(k, cands, key=lambda c: c[0])
    out = []
    for score, edge, rank in best[n]:
        path = []
        while edge is not None:
            path.append(edge)
            _, edge, rank = best[edge[0]][rank]
        path.reverse()
        out.append((score, path))
    return out


def sample_nbest(into: list[list], k: int, theta: float, rng: random.Random) -> list[tuple[int, int, int]]:
    """One of the k best paths, drawn with weight exp(theta * score)."""
    paths = nbest(into, k)
    if not paths:
        raise ValueError("Unigram: the lattice has no path")
    top = paths[0][0]
    return rng.choices([p for _, p in paths], [math.exp(theta * (s - top)) for s, _ in paths])[0]
