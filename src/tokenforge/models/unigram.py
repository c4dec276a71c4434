"""Unigram model of `tokenizer.json`: the Viterbi best segmentation by piece log-probability.

Positions advance a character at a time; every vocab piece starting there is a candidate
(score = path score + piece score, a later candidate wins only if strictly better); where no
single-character piece exists, the unknown id covers the character at (lowest score - 10).
Adjacent unknown pieces are fused.  Tokens carry their surface text (an unknown one too),
as `tokenizers` reports them.  With `alpha` (and `nbest_size`), as a `tokenizers.models.Unigram`
built in Python with them, each word is a segmentation drawn at random instead
(models/unigram_sampling.py); like tokenizers, a tokenizer.json does not hold these two.

Example:
    >>> u = Unigram([("<unk>", 0.0), ("a", -1.0), ("b", -1.0), ("ab", -1.5)], unk_id=0)
    >>> u.word_tokens("abc")
    [(3, 'ab', (0, 2)), (0, 'c', (2, 3))]
"""

from __future__ import annotations

import random

from tokenforge.models import unigram_sampling as sampling
from tokenforge.models.vocab_model import VocabModel


class Unigram(VocabModel):
    """The Unigram model (module docstring)."""

    def __init__(self, vocab: list | None = None, unk_id: int | None = None, byte_fallback: bool | None = False,
                 alpha: float | None = None, nbest_size: int | None = None) -> None:
        if vocab is None:  # tokenizers' empty model: the unknown piece alone
            vocab, unk_id = [("<unk>", 0.0)], 0
        if nbest_size is not None and (isinstance(nbest_size, bool) or not isinstance(nbest_size, int)
                                       or nbest_size < 0):
            raise ValueError(f"Unigram: nbest_size must be a non-negative integer, got {nbest_size!r}")
        self.alpha, self.nbest_size = alpha, nbest_size
        byte_fallback = bool(byte_fallback)
        self.pieces = [(str(p), float(s)) for p, s in vocab]
        first: dict[str, int] = {}
        for i, (p, _) in enumerate(self.pieces):
            first.setdefault(p, i)
        super().__init__(first)
        if unk_id is not None and not 0 <= unk_id < len(self.pieces):
            raise ValueError(f"Unigram: unk_id {unk_id} is outside the vocab of {len(self.pieces)}")
        self.unk_id, self.byte_fallback = unk_id, byte_fallback
        self.min_score = min((s for _, s in self.pieces), default=0.0)
        self.max_len = max((len(p) for p, _ in self.pieces), default=1)

    def _segment(self, word: str) -> list[str]:
        n = len(word)
        score = [0.0] * (n + 1)
        back: list[tuple[int, int] | None] = [None] * (n + 1)  # end -> (start, id)
        vocab, pieces = self.vocab, self.pieces
        unk_score = self.min_score - sampling.UNK_PENALTY
        for i in range(n):
            if i and back[i] is None:
                continue
            base = score[i]
            single = False
            for j in range(i + 1, min(n, i + self.max_len) + 1):
                tid = vocab.get(word[i:j])
                if tid is None:
                    continue
                cand = base + pieces[tid][1]
                if back[j] is None or cand > score[j]:
                    score[j], back[j] = cand, (i, tid)
                if j == i + 1:
                    single = True
            if not single:
                if self.unk_id is None:
                    raise ValueError("Unigram: a character has no piece and the model has no unk_id")
                cand = base + unk_score
                if back[i + 1] is None or cand > score[i + 1]:
                    score[i + 1], back[i + 1] = cand, (i, self.unk_id)
        out: list[str] = []
        fused: list[str] = []
        end = n
        while end > 0:
            start, tid = back[end]
            if tid == self.unk_id:
                fused.append(word[start:end])
            else:
                if fused:
                    out.append("".join(reversed(fused)))
                    fused = []
                out.append(word[start:end])
            end = start
        if fused:
            out.append("".join(reversed(fused)))
        out.reverse()
        return out

    def _sampled(self, word: str) -> list[str]:
        """A segmentation drawn with `alpha` (and `nbest_size`), unknown pieces fused
        (models/unigram_sampling.py)."""
        into = sampling.lattice(word, self.vocab, self.pieces, self.max_len, self.unk_id, self.min_score)
        if self.nbest_size:
            path = sampling.sample_nbest(into, self.nbest_size, self.alpha, random)
        else:
            path = sampling.sample(into, self.alpha, random)
        out: list[str] = []
        unk = False
        for a, b, tid in path:
            if tid == self.unk_id and unk:
                out[-1] += word[a:b]
            else:
                out.append(word[a:b])
            unk = tid == self.unk_id
        return out

    def word_tokens(self, word: str) -> list[tuple[int, str, tuple[int, int]]]:
        """(id, token, (start, end)) per piece; offsets are characters of `word`."""
        sampled = bool(self.alpha)  # subword regularization: a new draw each time, no cache
        cached = None if sampled else self._cache.get(word)
        if cached is not None:
            return cached
        out, pos = [], 0
        for s in (self._sampled(word) if sampled else self._segment(word)):
            end = pos + len(s)
            tid = self.vocab.get(s)
            if tid is None:
                if self.byte_fallback:
                    toks = [f"<0x{b:02X}>" for b in s.encode("utf-8", "surrogatepass")]
                    if all(t in self.vocab for t in toks):
                        out.extend((self.vocab[t], t, (pos, end)) for t in toks)
                        pos = end
                        continue
                tid = self.unk_id
            out.append((tid, s, (pos, end)))
            pos = end
        return out if sampled else self.remember(word, out)

    def token_to_id(self, token: str) -> int | None:
        return self.vocab.get(token)

    def id_to_token(self, i: int) -> str | None:
        return self.pieces[i][0] if 0 <= i < len(self.pieces) else None

    def to_dict(self) -> dict:
        return {"type": "Unigram", "unk_id": self.unk_id, "vocab": [[p, s] for p, s in self.pieces],
                "byte_fallback": self.byte_fallback}
