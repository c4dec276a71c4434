"""Byte-level BPE training in plain Python: the teaching text and test oracle of the trainer.

The algorithm is HF tokenizers' BpeTrainer, step for step, on a dict of word counts:

1. Every word (a piece of the split pattern, as UTF-8 bytes) starts as single bytes.  Byte
   ids follow GPT-2's byte order, the order of the characters HF's ByteLevel maps bytes to,
   so id 0 is b"!" and a new token gets the next id.
2. Count every adjacent pair, weighted by the word's count, and remember which words hold it.
3. Repeatedly take the pair with the highest count (ties: the smallest (left, right) ids),
   give the joined bytes an id (an existing one if another merge already built the same
   bytes, as HF does) and merge it left to right in the words that held it, updating the
   counts of the pairs around each merge.  Entries in the heap may hold stale counts; a
   stale one is pushed back with the current count (lazy updates).

It leaves out everything that makes the native trainer fast (position lists instead of
word sets, dense per-step tallies, streamed parallel counting) and reading files.

Example:
    >>> tokens, merges = train_bpe({b"hug": 10, b"pug": 5, b"hugs": 5}, vocab_size=258)
    >>> [tokens[i] for _, _, i in merges]
    [b'ug', b'hug']
"""

from __future__ import annotations

import heapq
from collections import Counter, defaultdict
from collections.abc import Iterable

import regex

from tokenforge.formats.byte_map import BYTE_ORDER


def count_pieces(texts: Iterable[str], pat_str: str, special_tokens: Iterable[str] = ()) -> Counter[bytes]:
    """Splits each text with `pat_str` and counts the pieces as UTF-8 bytes.  Special tokens
    cut the text first (the longest one where several start) and are not counted.

    >>> sorted(count_pieces(["hi hi", "hi<s>hi"], r"\\s?\\w+", ["<s>"]).items())
    [(b' hi', 1), (b'hi', 3)]
    """
    pattern = regex.compile(pat_str)
    specials = sorted(special_tokens, key=len, reverse=True)
    cut = regex.compile("|".join(map(regex.escape, specials))) if specials else None
    counts: Counter[bytes] = Counter()
    for text in texts:
        for segment in cut.split(text) if cut else [text]:
            counts.update(m.encode("utf-8") for m in pattern.findall(segment))
    return counts


def merge_word(word: list[int], a: int, b: int, new: int) -> list[tuple[tuple[int, int], int]]:
    """Merges every (a, b) in `word` in place, left to right; returns the pair count changes.

    Example: word=[1, 2, 1, 2], (a, b)=(1, 2), new=9 -> word [9, 9], changes
    ((2, 1), -1), ((9, 1), +1), ((9, 1), -1), ((9, 9), +1).

    >>> w = [1, 2, 1, 2]
    >>> merge_word(w, 1, 2, 9), w
    ([((2, 1), -1), ((9, 1), 1), ((9, 1), -1), ((9, 9), 1)], [9, 9])
    """
    changes = []
    i = 0
    while i < len(word):
        if word[i] == a and i + 1 < len(word) and word[i + 1] == b:
            if i > 0:
                changes += [((word[i - 1], a), -1), ((word[i - 1], new), 1)]
            word[i : i + 2] = [new]
            if i + 1 < len(word):
                changes += [((b, word[i + 1]), -1), ((new, word[i + 1]), 1)]
        i += 1
    return changes


def train_bpe(
    word_counts: dict[bytes, int], vocab_size: int, min_frequency: int = 0
) -> tuple[list[bytes], list[tuple[int, int, int]]]:
    """Learns merges from word counts until there are `vocab_size` tokens.

    Args:
        word_counts: word bytes -> how often it occurs.
        vocab_size: tokens wanted, the 256 single bytes included.
        min_frequency: stop when the best pair occurs fewer times than this.

    Returns:
        (tokens, merges): tokens[id] is the bytes of token `id`; merges lists (left id,
        right id, new id) in the order learned (a new id can repeat, as in HF).

    >>> tokens, merges = train_bpe({b"aaaa": 1}, vocab_size=260)
    >>> [tokens[i] for _, _, i in merges]
    [b'aa', b'aaaa']
    """
    order = BYTE_ORDER
    rank = {b: i for i, b in enumerate(order)}
    tokens = [bytes([b]) for b in order]
    ids = {t: i for i, t in enumerate(tokens)}
    words = [[rank[b] for b in w] for w in word_counts]
    counts = list(word_counts.values())

    pair_counts: Counter[tuple[int, int]] = Counter()  # (a, b) -> weighted count
    where: defaultdict[tuple[int, int], set[int]] = defaultdict(set)  # (a, b) -> word indices
    for i, w in enumerate(words):
        for pair in zip(w, w[1:]):
            pair_counts[pair] += counts[i]
            where[pair].add(i)

    heap: list[tuple[int, int, int, int]] = []  # (-count, a, b, entry) : a max-heap on count
    word_sets: list[set[int]] = []  # entry -> the words it will merge in

    def push_gained(gained: dict[tuple[int, int], set[int]]) -> None:
        for pair, ws in sorted(gained.items()):
            if pair_counts[pair] > 0:
                heapq.heappush(heap, (-pair_counts[pair], *pair, len(word_sets)))
                word_sets.append(ws)

    push_gained(where)
    merges = []
    while len(tokens) < vocab_size and heap:
        neg, a, b, entry = heapq.heappop(heap)
        if -neg != pair_counts[(a, b)]:  # stale: requeue with the current count
            heapq.heappush(heap, (-pair_counts[(a, b)], a, b, entry))
            continue
        if -neg < max(1, min_frequency):
            break
        joined = tokens[a] + tokens[b]
        if joined not in ids:
            ids[joined] = len(tokens)
            tokens.append(joined)
        new = ids[joined]
        merges.append((a, b, new))
        gained: defaultdict[tuple[int, int], set[int]] = defaultdict(set)
        for i in word_sets[entry]:
            for pair, change in merge_word(words[i], a, b, new):
                pair_counts[pair] += change * counts[i]
                if change > 0:
                    gained[pair].add(i)
        word_sets[entry] = set()
        push_gained(gained)
    return tokens, merges
