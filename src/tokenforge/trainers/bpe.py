"""tokenizers' BPE trainer, step for step: the merges of `tokenizers.trainers.BpeTrainer`.

From the word counts (a tokenizer's pre-tokenized pieces), the vocab starts with the special
tokens, then the alphabet: the characters of the words (each weighted by its word's count) and
the initial alphabet, cut to the `limit_alphabet` most frequent, sorted by code point.  Each
word becomes its characters (those in the alphabet; `continuing_subword_prefix` on all but the
first, `end_of_word_suffix` on the last).  Then, until the vocab has `vocab_size` tokens, the
adjacent pair of highest count (weighted by word counts; ties: the smaller pair of ids) is
merged in the words that hold it, and the counts of the pairs around each merge updated.

It is the same lazy queue as tokenizers': each entry holds a pair, its count when queued and
the words it was queued for; an entry whose count is stale is queued again with the count of
now; a merge is applied to the words of the entry popped.  A pair that gains new words while
queued gets a second entry, so it can be merged twice, at two ranks (tokenizers keeps the
later).  With `continuing_subword_prefix`, `end_of_word_suffix` or a `limit_alphabet` that
cuts between characters of equal count, tokenizers' own result depends on its hash maps'
order; here words are taken in the order first seen and equal counts by code point.

Pure Python: right for the corpora a test or a small vocabulary needs; a large corpus takes
minutes (tokenizers' trainer is compiled; tokenforge's own fast trainers are
`tokenforge.BpeTrainer` and `tokenforge.SentencePieceTrainer`).

Example:
    >>> vocab, merges = train_bpe({"hug": 10, "pug": 5, "hugs": 5}, vocab_size=8)
    >>> merges
    [('u', 'g'), ('h', 'ug'), ('p', 'ug')]
"""

from __future__ import annotations

import heapq


def _alphabet(counts: dict[str, int], initial: list[str], limit: int | None) -> list[str]:
    freq: dict[str, float] = {}
    for word, n in counts.items():
        for c in word:
            freq[c] = freq.get(c, 0) + n
    for s in initial:
        if s:
            freq[s[0]] = float("inf")
    kept = list(freq)
    if limit is not None and len(kept) > limit:
        kept.sort(key=lambda c: (freq[c], c))
        kept = kept[len(kept) - limit:]
    return sorted(kept)


def _merge_word(word: list[list[int]], a: int, b: int, new: int, max_length: int) -> list[tuple[tuple[int, int], int]]:
    """Merges every (a, b) of `word` (symbols [id, length]) left to right; returns the pair
    count changes, as tokenizers' Word::merge lists them."""
    changes = []
    i = 0
    while i < len(word):
        if word[i][0] == a and i + 1 < len(word) and word[i + 1][0] == b:
            first, second = word[i], word[i + 1]
            merged = [new, first[1] + second[1]]
            if i > 0:
                changes.append(((word[i - 1][0], a), -1))
                if word[i - 1][1] + merged[1] < max_length:
                    changes.append(((word[i - 1][0], new), 1))
            word[i:i + 2] = [merged]
            if i < len(word) - 1:
                changes.append(((b, word[i + 1][0]), -1))
                if word[i + 1][1] + merged[1] < max_length:
                    changes.append(((new, word[i + 1][0]), 1))
        i += 1
    return changes


class _Entry:
    """A queued pair: highest count first, then the smaller pair (tokenizers' Merge order)."""

    __slots__ = ("count", "pair", "pos")

    def __init__(self, pair: tuple[int, int], count: int, pos: set[int]) -> None:
        self.pair, self.count, self.pos = pair, count, pos

    def __lt__(self, other: _Entry) -> bool:
        return self.count > other.count if self.count != other.count else self.pair < other.pair


def train_bpe(counts: dict[str, int], vocab_size: int = 30000, min_frequency: int = 0, special_tokens: list[str] = (),
              limit_alphabet: int | None = None, initial_alphabet: list[str] = (),
              continuing_subword_prefix: str | None = None, end_of_word_suffix: str | None = None,
              max_token_length: int | None = None) -> tuple[dict[str, int], list[tuple[str, str]]]:
    """(vocab, merges in rank order) trained on word counts (module docstring)."""
    id_of: dict[str, int] = {}
    tokens: list[str] = []

    def add(s: str) -> int:
        i = id_of.get(s)
        if i is None:
            i = id_of[s] = len(tokens)
            tokens.append(s)
        return i

    for s in special_tokens:
        add(s)
    for c in _alphabet(counts, list(initial_alphabet), limit_alphabet):
        add(c)
    prefix, suffix = continuing_subword_prefix, end_of_word_suffix
    words: list[list[list[int]]] = []
    weights: list[int] = []
    for word, n in counts.items():
        symbols = []
        last = len(word) - 1
        for k, c in enumerate(word):
            if c not in id_of:
                continue
            s = c
            if k and prefix:
                s = prefix + s
            if k == last and suffix:
                s = s + suffix
            symbols.append([add(s), 1])
        words.append(symbols)
        weights.append(n)

    pair_counts: dict[tuple[int, int], int] = {}
    where: dict[tuple[int, int], set[int]] = {}
    for i, w in enumerate(words):
        for x, y in zip(w, w[1:]):
            p = (x[0], y[0])
            pair_counts[p] = pair_counts.get(p, 0) + weights[i]
            where.setdefault(p, set()).add(i)
    queue = [_Entry(p, pair_counts[p], pos) for p, pos in where.items() if pair_counts[p] > 0]
    heapq.heapify(queue)
    max_length = max_token_length if max_token_length is not None else float("inf")
    merges: list[tuple[tuple[int, int], int]] = []
    while len(id_of) < vocab_size and queue:
        top = heapq.heappop(queue)
        now = pair_counts[top.pair]
        if top.count != now:
            top.count = now
            heapq.heappush(queue, top)
            continue
        if top.count < 1 or min_frequency > top.count:
            break
        a, b = top.pair
        right = tokens[b]
        if prefix and right.startswith(prefix):
            right = right[len(prefix):]
        new = add(tokens[a] + right)
        merges.append((top.pair, new))
        where = {}
        for i in top.pos:
            for p, change in _merge_word(words[i], a, b, new, max_length):
                pair_counts[p] = pair_counts.get(p, 0) + change * weights[i]
                if change > 0:
                    where.setdefault(p, set()).add(i)
        for p, pos in where.items():
            if pair_counts[p] > 0:
                heapq.heappush(queue, _Entry(p, pair_counts[p], pos))
    # A pair merged twice keeps its later rank (tokenizers' model holds merges by pair).
    last_rank = {pair: r for r, (pair, _) in enumerate(merges)}
    ordered = [(tokens[a], tokens[b]) for r, ((a, b), _) in enumerate(merges) if last_rank[(a, b)] == r]
    return dict(id_of), ordered
