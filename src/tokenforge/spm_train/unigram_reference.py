"""Readable pure-Python sentencepiece Unigram training: the oracle of the native trainer.

It follows the native ``SpmUnigramTrainer`` (cpp/training/sentencepiece/unigram_trainer.h)
step by step, on counted words (text -> count, already cut at "▁") and the kept alphabet
(character -> count); characters outside the alphabet are the unknown mark:

1. Seeds (:func:`seed_pieces`): every substring of 2 to ``max_length`` characters, without
   the unknown mark, U+001F or NUL, seen at least twice (counts weighted by word counts,
   overlaps included), followed by two different things, and a valid piece.  sentencepiece
   0.2.3 finds them in a suffix array over the UTF-8 bytes of whole sentences, each ended
   by NUL, so followers differ when their first bytes differ ("é" and "è" are one), and at
   the end of a word the followers are NUL where the word ends its sentence and the first
   bytes of the words after it (the next word's "▁" unless treat_whitespace_as_suffix): the
   front end's ends per word (:data:`ENDS_SENTENCE`, :data:`BEFORE_WORD` with that byte,
   :data:`SEVERAL_NEXT`); a word without them counts its end as one follower of its own.
   Ranked by count * length, then code points; the best
   ``seed_size`` follow the alphabet (by code point).  Score: log(count * length / total),
   a character's count being its own.
2. EM rounds (:func:`em_step`), ``sub_iterations`` of them between prunings.  E: each word's
   lattice holds an edge per piece found at each position, and an unknown edge (score: the
   lowest score, at most 0, minus 10) where no one-character piece starts; forward-backward
   gives each piece's expected count.  M: pieces under 0.5 expected uses go (characters
   too), and score = digamma(count) - digamma(sum of counts), the Bayesian update
   sentencepiece uses.
3. Pruning (:func:`prune`), while more than 1.1 * ``vocab_size`` pieces remain: a piece
   whose best split into other pieces (Viterbi without its own edge) scores higher goes;
   characters used by Viterbi stay; the others are ranked by the likelihood lost if their
   Viterbi uses went to their split, and the top ``shrinking_factor`` share stays (at
   least 1.1 * ``vocab_size``).
4. Finish (:func:`finish`): the alphabet, most frequent first (a character the EM dropped
   scores the lowest score plus 1e-4 per such character before it), then the best-scoring
   pieces up to ``vocab_size``; scores rounded to float32, sorted by score then piece.

What is comparable with the native trainer, and how (tests/property/test_spm_unigram_property.py):

- Seeds and their counts are integers: equal exactly (the native trainer identifies strings
  by a 64-bit hash; a collision would show there as a difference).
- EM and pruning are floats.  The native trainer is deterministic and independent of its
  thread count (expected counts are summed in fixed point, 2^-24 units rounded per edge;
  Viterbi counts are sums of integers), and this module does the same operations in the
  same order: edges by start then end, the backward pass over them in reverse, pieces in
  the native order (after pruning, the characters kept first, then the rest by loss).  With
  IEEE doubles, the same libm and no fused multiply-add (the default x86-64 build), the
  results agree bit for bit, and the test asserts identical pieces and float32 scores equal
  up to a relative 1e-6.  On a build that fuses a*b+c (e.g. aarch64), the last bits may
  differ; the per-edge rounding to 2^-24 absorbs most of that (summing the backward pass in
  another order changed no result on 300 random corpora), but a near tie in the 0.5 cut or
  in pruning's ranking could still keep a different piece: that is the one honest source
  of disagreement, and the test would show it.
- The objective reported per round is a sum over words whose order follows the threads'
  parts: not compared.

What this leaves out: reading and normalizing text (front_end.py), speed (quadratic in
word length times the pieces; tiny inputs only), sentencepiece's suffix array (the seeds
are the same strings, found by counting), the model file (model_file.py).

Example:
    >>> pieces = train_unigram({"▁ab": 3, "▁abab": 2, "▁ba": 1}, {"▁": 6, "a": 7, "b": 7},
    ...                        PieceRulesRef(), vocab_size=5, ends={"▁ab": 0x3e2, "▁abab": 0x100, "▁ba": 0x100})
    >>> len(pieces), {"▁", "a", "b"} <= {p for p, _ in pieces}  # the alphabet is always kept
    (5, True)
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict

from tokenforge.spm_train.front_end import f32
from tokenforge.spm_train.reference import UNKNOWN_MARK, PieceRulesRef, valid_piece

BOUNDARY_MARK = "\x1f"  # where the front end cut out a meta piece
# What followed a word (the front end's WordEnds): flags, and in the low byte the first byte of
# a word that followed it.
ENDS_SENTENCE = 0x100  # some occurrence is the last word of its sentence
BEFORE_WORD = 0x200  # some occurrence is followed by a word (low byte: its first byte)
SEVERAL_NEXT = 0x400  # the words after it start with different bytes
BLOCKED = {UNKNOWN_MARK, BOUNDARY_MARK, "\0"}  # no seed holds these
COUNT_SCALE = 1 << 24  # expected counts are summed in units of 1 / COUNT_SCALE
SMALLEST_TOTAL = 1e-250  # a word whose total probability is below this is redone in logs
Pieces = list[tuple[str, float]]  # (piece, score), in the trainer's order
Words = list[tuple[str, int]]  # (word with unknown characters marked, count)


def mark_unknown(words: dict[str, int], alphabet: dict[str, int]) -> Words:
    """Each word with the characters outside `alphabet` replaced by the unknown mark.

    >>> mark_unknown({"▁abc": 2}, {"▁": 2, "a": 2, "b": 2})
    [('▁ab▅', 2)]
    """
    return [("".join(c if c in alphabet else UNKNOWN_MARK for c in w), n) for w, n in words.items()]


def first_byte(c: str) -> int:
    """The first byte of `c` in UTF-8: what tells two followers apart.

    >>> first_byte("a"), first_byte("é") == first_byte("è"), hex(first_byte("▁"))
    (97, True, '0xe2')
    """
    return c.encode()[0]


def end_followers(ends: int) -> set[int]:
    """What follows a word whose ends are `ends`: NUL (its sentence ends), the first byte of a
    word after it, a second one (256) if those differ; -1 (one follower of its own) for a
    word without ends.

    >>> sorted(end_followers(ENDS_SENTENCE | BEFORE_WORD | first_byte("▁"))), end_followers(0)
    ([0, 226], {-1})
    """
    if ends == 0:
        return {-1}
    out = {0} if ends & ENDS_SENTENCE else set()
    if ends & BEFORE_WORD:
        out.add(ends & 0xFF)
    if ends & SEVERAL_NEXT:
        out.add(256)
    return out


def seed_pieces(words: Words, alphabet: dict[str, int], rules: PieceRulesRef, seed_size: int,
                ends: list[int] | None = None) -> Pieces:
    """The alphabet (by code point) and the best `seed_size` seeds, with log-share scores;
    `ends` holds what followed each word (none: every word's end is one follower).

    "▁a" ends one sentence and is followed by "b" in "▁ab": a seed; "▁ab" and "ab" end both of
    their sentences, so are always followed by the same thing, but with another word after
    "▁ab" in one of them they are seeds too.

    >>> [(p, round(s, 3)) for p, s in seed_pieces([("▁ab", 2), ("▁a", 1)], {"▁": 3, "a": 3, "b": 2},
    ...                                            PieceRulesRef(), 10, [ENDS_SENTENCE, ENDS_SENTENCE])]
    [('a', -1.54), ('b', -1.946), ('▁', -1.54), ('▁a', -0.847)]
    >>> [p for p, _ in seed_pieces([("▁ab", 2), ("▁a", 1)], {"▁": 3, "a": 3, "b": 2}, PieceRulesRef(), 10,
    ...                            [ENDS_SENTENCE | BEFORE_WORD | first_byte("▁"), ENDS_SENTENCE])]
    ['a', 'b', '▁', '▁a', '▁ab', 'ab']
    """
    counts: Counter[str] = Counter()
    follows: defaultdict[str, set[int]] = defaultdict(set)  # substring -> first bytes after it
    for k, (word, n) in enumerate(words):
        at_end = end_followers(ends[k] if ends is not None else 0)
        for i in range(len(word)):
            for end in range(i + 2, min(len(word), i + rules.max_length) + 1):
                s = word[i:end]
                if BLOCKED & set(s):
                    break
                counts[s] += n
                if end < len(word):
                    follows[s].add(first_byte(word[end]))
                else:
                    follows[s] |= at_end
    seeds = [s for s, n in counts.items() if n >= 2 and len(follows[s]) > 1 and valid_piece(s, rules)]
    seeds.sort(key=lambda s: (-counts[s] * len(s), s))  # str order is code point order
    raw = [(c, float(n)) for c, n in sorted(alphabet.items())]
    raw += [(s, float(counts[s] * len(s))) for s in seeds[:max(seed_size, 1)]]
    total = 0.0
    for _, x in raw:
        total += x
    return [(p, math.log(max(x, 1.0)) - math.log(total)) for p, x in raw]


def lattice(word: str, index: dict[str, int], max_length: int) -> list[tuple[int, int, int]]:
    """The edges (start, end, piece id; -1 for the unknown edge) of `word`, by start then end.

    >>> lattice("ab", {"a": 0, "ab": 1}, 16)
    [(0, 1, 0), (0, 2, 1), (1, 2, -1)]
    """
    edges = []
    for i in range(len(word)):
        single = False
        for end in range(i + 1, min(len(word), i + max_length) + 1):
            piece = index.get(word[i:end])
            if piece is not None:
                edges.append((i, end, piece))
                single = single or end == i + 1
        if not single:
            edges.append((i, i + 1, -1))
    return edges


def unknown_score(pieces: Pieces) -> float:
    """The unknown edge's score: the lowest score (at most 0) minus 10."""
    return min([0.0] + [s for _, s in pieces]) - 10.0


def _log_add(a: float, b: float) -> float:
    if a == -math.inf:
        return b
    if b == -math.inf:
        return a
    return a + math.log1p(math.exp(b - a)) if a > b else b + math.log1p(math.exp(a - b))


def _fixed(x: float) -> int:
    return int(x * COUNT_SCALE + 0.5)


def expected_counts(pieces: Pieces, words: Words, max_length: int) -> list[int]:
    """The E-step: each piece's expected count over `words`, in 1 / COUNT_SCALE units."""
    index = {p: i for i, (p, _) in enumerate(pieces)}
    unk = unknown_score(pieces)
    scores = [s for _, s in pieces] + [unk]  # scores[-1] is the unknown edge's
    probs = [math.exp(s) for s in scores]
    counts = [0] * len(pieces)
    for word, n in words:
        edges = lattice(word, index, max_length)
        alpha = [0.0] * (len(word) + 1)
        alpha[0] = 1.0
        for start, end, p in edges:
            alpha[end] += alpha[start] * probs[p]
        z = alpha[-1]
        if z > SMALLEST_TOTAL:
            beta = [0.0] * (len(word) + 1)
            beta[-1] = 1.0
            for start, end, p in reversed(edges):
                beta[start] += probs[p] * beta[end]
            for start, end, p in edges:
                if p >= 0:
                    counts[p] += _fixed(n / z * alpha[start] * probs[p] * beta[end])
            continue
        # The same in log space, for a word whose total underflows.
        la = [-math.inf] * (len(word) + 1)
        lb = [-math.inf] * (len(word) + 1)
        la[0] = lb[-1] = 0.0
        for start, end, p in edges:
            la[end] = _log_add(la[end], la[start] + scores[p])
        for start, end, p in reversed(edges):
            lb[start] = _log_add(lb[start], scores[p] + lb[end])
        for start, end, p in edges:
            if p >= 0:
                counts[p] += _fixed(n * math.exp(la[start] + scores[p] + lb[end] - la[-1]))
    return counts


def digamma(x: float) -> float:
    """digamma(x) for x > 0: the recurrence up to x >= 6, then the asymptotic series.

    >>> round(digamma(1.0), 6)  # minus the Euler-Mascheroni constant
    -0.577216
    """
    r = 0.0
    while x < 6.0:
        r -= 1.0 / x
        x += 1.0
    f = 1.0 / (x * x)
    return r + math.log(x) - 0.5 / x - f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f * (1.0 / 240 - f / 132))))


def em_step(pieces: Pieces, words: Words, max_length: int) -> Pieces:
    """One E-step and M-step: pieces under 0.5 expected uses go; scores by digamma."""
    kept = []
    for (p, _), c in zip(pieces, expected_counts(pieces, words, max_length)):
        if c / COUNT_SCALE >= 0.5:
            kept.append((p, c / COUNT_SCALE))
    total = 0.0
    for _, x in kept:
        total += x
    return [(p, digamma(x) - digamma(total)) for p, x in kept]


def viterbi(word: str, pieces: Pieces, index: dict[str, int], max_length: int,
            skip_whole: int = -2) -> tuple[list[int], float]:
    """The best path over `word` (piece ids, -1 for the unknown edge) and its score, without
    the edge of piece `skip_whole` spanning the whole word; on equal scores the edge that
    starts first wins."""
    scores = [s for _, s in pieces] + [unknown_score(pieces)]
    best = [-math.inf] * (len(word) + 1)
    back: list[tuple[int, int] | None] = [None] * (len(word) + 1)  # (start, piece) of the best edge in
    best[0] = 0.0
    for start, end, p in lattice(word, index, max_length):
        if p == skip_whole and start == 0 and end == len(word):
            continue
        v = best[start] + scores[p]
        if v > best[end]:
            best[end], back[end] = v, (start, p)
    path = []
    pos = len(word)
    while pos > 0 and back[pos] is not None:
        pos, p = back[pos]  # type: ignore[misc]
        path.append(p)
    return path[::-1], best[-1]


def prune(pieces: Pieces, words: Words, desired: int, shrinking_factor: float, max_length: int) -> Pieces:
    """Drops the pieces whose loss is smallest, down to max(desired, shrinking_factor * size)."""
    index = {p: i for i, (p, _) in enumerate(pieces)}
    freq = [0.0] * len(pieces)  # uses in the words' Viterbi paths
    for word, n in words:
        for p in viterbi(word, pieces, index, max_length)[0]:
            if p >= 0:
                freq[p] += n
    total = 0.0
    for f in freq:
        total += f
    out: Pieces = []  # the characters kept, in order, then the best other pieces
    candidates = []  # (loss, piece id)
    for i, (p, score) in enumerate(pieces):
        if len(p) == 1:
            if freq[i] != 0:
                out.append((p, score))
            continue
        split, split_score = viterbi(p, pieces, index, max_length, skip_whole=i)
        if split_score > score or freq[i] == 0:
            continue
        logprob = math.log(freq[i]) - math.log(total)
        # If the piece went, its uses would go to each piece of its split.
        split_log_total = math.log(total + freq[i] * (len(split) - 1))
        split_logprob = 0.0
        for a in split:
            split_logprob += math.log((freq[a] if a >= 0 else 0.0) + freq[i]) - split_log_total
        candidates.append((freq[i] / total * (logprob - split_logprob), i))
    target = max(desired, int(shrinking_factor * len(pieces)))
    candidates.sort(key=lambda c: (-c[0], c[1]))
    for _, i in candidates:
        if len(out) >= target:
            break
        out.append(pieces[i])
    return out


def finish(pieces: Pieces, alphabet: dict[str, int], vocab_size: int) -> list[tuple[str, float]]:
    """The alphabet and then the best pieces, up to `vocab_size`, best first (float32 scores)."""
    char_score = {p: s for p, s in pieces if len(p) == 1}
    low = min([0.0] + [s for _, s in pieces])
    final = []
    penalty = 0.0
    for c, _ in sorted(alphabet.items(), key=lambda kv: (-kv[1], kv[0])):
        if c in char_score:
            final.append((c, char_score[c]))
        else:  # dropped by the EM: the lowest score plus a growing penalty, as spm_train
            final.append((c, low + penalty))
            penalty += 1e-4
    for p, s in sorted(pieces, key=lambda ps: -ps[1]):  # stable: equal scores keep their order
        if len(final) >= vocab_size:
            break
        if len(p) > 1:
            final.append((p, s))
    return sorted(((p, f32(s)) for p, s in final), key=lambda ps: (-ps[1], ps[0]))


def train_unigram(words: dict[str, int], alphabet: dict[str, int], rules: PieceRulesRef, vocab_size: int, *,
                  seed_size: int = 1_000_000, shrinking_factor: float = 0.75, sub_iterations: int = 2,
                  ends: dict[str, int] | None = None) -> list[tuple[str, float]]:
    """Learns `vocab_size` pieces (meta pieces excluded) from `words` (text -> count);
    `alphabet` (character -> count) is kept whole; `ends`: word -> what followed it
    (ENDS_SENTENCE, BEFORE_WORD, SEVERAL_NEXT; a word missing has none).  Returns (piece,
    score), best first."""
    marked = mark_unknown(words, alphabet)
    bits = [ends.get(w, 0) for w in words] if ends is not None else None
    pieces = seed_pieces(marked, alphabet, rules, seed_size, bits)
    desired = int(vocab_size * 1.1)
    while True:
        for _ in range(sub_iterations):
            pieces = em_step(pieces, marked, rules.max_length)
        if len(pieces) <= desired:
            break
        before = len(pieces)
        pieces = prune(pieces, marked, desired, shrinking_factor, rules.max_length)
        if len(pieces) >= before:  # only characters and unsplittable pieces are left
            break
    return finish(pieces, alphabet, vocab_size)
