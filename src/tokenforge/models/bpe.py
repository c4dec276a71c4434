"""BPE model of `tokenizer.json`: merges applied by rank, with `tokenizers`' options.

A word (one pre-tokenized piece) starts as its characters, each looked up in the vocab (with
`continuing_subword_prefix` on all but the first and `end_of_word_suffix` on the last); a
character not in the vocab becomes its `<0xXX>` byte tokens (`byte_fallback`) or the unknown
token (consecutive ones fused with `fuse_unk`) or, with no unknown token, is dropped.  Then the
adjacent pair with the lowest merge rank, leftmost first, is merged until none is left.  With
`ignore_merges` a word that is itself in the vocab is that token.  With `dropout` p (BPE-dropout,
Provilkov et al. 2020) each merge is skipped with probability p, as `tokenizers` does: a word is
then merged anew each time (no cache, no `ignore_merges`) and its tokens vary between calls.

Example:
    >>> bpe = BPE({"a": 0, "b": 1, "ab": 2}, [("a", "b")])
    >>> bpe.word_tokens("aba")
    [(2, 'ab', (0, 2)), (0, 'a', (2, 3))]
"""

from __future__ import annotations

import functools
import heapq
import operator
import os
import random
from array import array

from tokenforge import _native
from tokenforge.models import files
from tokenforge.models.token import Token
from tokenforge.models.vocab_model import VocabModel


def _parse_merges(merges: list) -> list[tuple[str, str]]:
    """Merges as (left, right) pairs, from `"a b"` strings or `[a, b]` lists."""
    if not isinstance(merges, list):
        raise ValueError("BPE merges must be a list")
    if all(type(m) is str for m in merges):
        out = [tuple(m.split(" ")) for m in merges]
        if all(len(m) == 2 for m in out):  # the common case: every part of a split is a str
            return out
    else:
        out = [tuple(m) if isinstance(m, (list, tuple)) else (m,) for m in merges]
    for rank, m in enumerate(out):
        if len(m) != 2 or not isinstance(m[0], str) or not isinstance(m[1], str):
            if isinstance(merges[rank], str):
                raise ValueError(f"BPE merge {rank} {merges[rank]!r} is not two tokens separated by one space")
            raise ValueError(f"BPE merge {rank} {merges[rank]!r} is neither 'a b' nor [a, b]")
    return out


def _uint32s(data: bytes) -> array:
    a = array("I")
    a.frombytes(data)
    return a


def _byte_token(b: int) -> str:
    return f"<0x{b:02X}>"


class BPE(VocabModel):
    """Byte-pair encoding over a vocab and an ordered merge list (module docstring)."""

    def __init__(self, vocab: dict[str, int] | str | os.PathLike[str] | None = None,
                 merges: list | str | os.PathLike[str] | None = None, *, cache_capacity: int | None = None,
                 dropout: float | None = None, unk_token: str | None = None,
                 continuing_subword_prefix: str | None = None, end_of_word_suffix: str | None = None,
                 fuse_unk: bool = False, byte_fallback: bool = False, ignore_merges: bool = False) -> None:
        if (vocab is None) != (merges is None):
            raise ValueError("BPE: `vocab` and `merges` must be both specified")
        if isinstance(vocab, (str, os.PathLike)) or isinstance(merges, (str, os.PathLike)):
            if not (isinstance(vocab, (str, os.PathLike)) and isinstance(merges, (str, os.PathLike))):
                raise ValueError("BPE: `vocab` and `merges` must be both be from memory or both filenames")
            vocab, merges = files.read_bpe(vocab, merges)
        vocab, merges = ({}, []) if vocab is None else (vocab, merges)
        if dropout is not None and not (isinstance(dropout, (int, float)) and 0.0 <= dropout <= 1.0):
            raise ValueError(f"BPE: dropout must be a probability in [0, 1], got {dropout!r}")
        super().__init__(vocab)
        self.unk_token = unk_token
        self.continuing_subword_prefix = continuing_subword_prefix
        self.end_of_word_suffix = end_of_word_suffix
        self.fuse_unk, self.byte_fallback, self.ignore_merges = fuse_unk, byte_fallback, ignore_merges
        self.dropout = dropout
        self.cache_capacity = cache_capacity  # accepted as tokenizers does; the word cache is bounded by itself
        plen = len(continuing_subword_prefix or "")
        vocab = self.vocab
        found = _native.bpe_merge_ids(vocab, merges, plen) if type(merges) is list else None
        if found is not None:  # the common case, in C++; self.merges is then made when read
            # Merges written as [a, b] are kept as tuples: a list is a container the garbage
            # collector walks at every full collection for the life of the model (151k of
            # them for Qwen3), a tuple of two strs it stops tracking.
            self._merges_given = [tuple(m) if type(m) is list else m for m in merges]
            self.merge_ids = tuple(_uint32s(b) for b in found)
            self.merged_ids = self.merge_ids[2]
            return
        self.merges = _parse_merges(merges)
        lefts, rights = zip(*self.merges) if self.merges else ((), ())
        left = list(map(vocab.get, lefts))
        right = list(map(vocab.get, rights))
        merged = list(map(vocab.get, map(operator.add, lefts, [b[plen:] for b in rights] if plen else rights)))
        if None in left or None in right or None in merged:
            for rank, (a, b) in enumerate(self.merges):
                for t in (a, b, a + b[plen:]):
                    if t not in vocab:
                        raise ValueError(f"BPE merge {rank} ({a!r}, {b!r}) names {t!r}, which is not in the vocab")
        self.merged_ids = merged  # merge rank -> id of the token it makes
        self.merge_ids = (left, right, merged)  # by rank: left ids, right ids, merged ids

    @functools.cached_property
    def merges(self) -> list[tuple[str, str]]:
        """The merges as (left, right) token pairs, in rank order."""
        return _parse_merges(self._merges_given)

    @functools.cached_property
    def pair_rank(self) -> dict[tuple[int, int], tuple[int, int]]:
        """(left id, right id) -> (rank, merged id); a pair listed twice keeps its last rank.
        Made on first use: a file on a native path never needs it."""
        left, right, merged = self.merge_ids
        return dict(zip(zip(left, right), zip(range(len(merged)), merged)))

    def _symbols(self, word: str) -> list[list[int]]:
        """[id, byte length] per initial symbol (module docstring)."""
        syms: list[list[int]] = []
        unk: list[int] | None = None
        prefix, suffix = self.continuing_subword_prefix, self.end_of_word_suffix
        last = len(word) - 1
        for i, c in enumerate(word):
            s = c
            if i and prefix:
                s = prefix + s
            if i == last and suffix:
                s = s + suffix
            blen = len(c.encode("utf-8", "surrogatepass"))
            tid = self.vocab.get(s)
            if tid is not None:
                if unk is not None:
                    syms.append(unk)
                    unk = None
                syms.append([tid, blen])
                continue
            if self.byte_fallback:
                ids = [self.vocab.get(_byte_token(b)) for b in s.encode("utf-8", "surrogatepass")]
                if all(x is not None for x in ids):
                    syms.extend([x, 1] for x in ids)
                    continue
            if self.unk_token is not None:
                unk_id = self.vocab.get(self.unk_token)
                if unk_id is None:
                    raise ValueError(f"BPE: unk_token {self.unk_token!r} is not in the vocab")
                if unk is not None and self.fuse_unk:
                    unk[1] += blen
                else:
                    if unk is not None:
                        syms.append(unk)
                    unk = [unk_id, blen]
        if unk is not None:
            syms.append(unk)
        return syms

    def _merge(self, syms: list[list[int]], dropout: float = 0.0) -> list[list[int]]:
        """Merges the lowest-ranked adjacent pair, leftmost first, until none is left: a heap of
        candidate pairs over a linked list of symbols, O(n log n) (a word can be a whole text
        when there is no pre-tokenizer).  An entry is stale once either side has changed: a
        symbol only grows, so its id then differs from the one the entry recorded.

        With `dropout` (BPE-dropout, as tokenizers applies it): each entry popped is set aside
        with that probability instead of merged; the entries set aside go back on the heap
        at the next merge, so at 1.0 nothing merges."""
        n = len(syms)
        if n < 2:
            return syms
        ranks = self.pair_rank
        ids = [s[0] for s in syms]
        lens = [s[1] for s in syms]
        nxt = list(range(1, n + 1))
        prv = list(range(-1, n - 1))
        heap = []  # (rank, position, left id, right id, merged id)
        for i in range(n - 1):
            r = ranks.get((ids[i], ids[i + 1]))
            if r is not None:
                heap.append((r[0], i, ids[i], ids[i + 1], r[1]))
        heapq.heapify(heap)
        alive = [True] * n
        skipped: list = []
        draw = random.random
        while heap:
            top = heapq.heappop(heap)
            if dropout and draw() < dropout:
                skipped.append(top)
                continue
            if skipped:
                for entry in skipped:
                    heapq.heappush(heap, entry)
                skipped.clear()
            _, i, a, b, new = top
            j = nxt[i]
            if not alive[i] or j >= n or ids[i] != a or ids[j] != b:
                continue
            ids[i], lens[i] = new, lens[i] + lens[j]
            alive[j] = False
            nxt[i] = nxt[j]
            if nxt[j] < n:
                prv[nxt[j]] = i
            for left in (prv[i], i):
                right = nxt[left] if left >= 0 else n
                if left >= 0 and right < n:
                    r = ranks.get((ids[left], ids[right]))
                    if r is not None:
                        heapq.heappush(heap, (r[0], left, ids[left], ids[right], r[1]))
        return [[ids[i], lens[i]] for i in range(n) if alive[i]]

    def word_tokens(self, word: str) -> list[tuple[int, str, tuple[int, int]]]:
        """(id, token, (start, end)) per token; offsets are characters of `word`."""
        if self.dropout:  # as tokenizers: merged anew each time, no cache, no ignore_merges
            return self._tokens(word, self._merge(self._symbols(word), self.dropout))
        cached = self._cache.get(word)
        if cached is not None:
            return cached
        if self.ignore_merges and word in self.vocab:
            out = [(self.vocab[word], word, (0, len(word)))]
        else:
            out = self._tokens(word, self._merge(self._symbols(word)))
        return self.remember(word, out)

    def tokenize(self, sequence: str) -> list[Token]:
        """tokenizers' `Model.tokenize`: offsets in bytes, each byte-fallback token its own byte
        (word_tokens gives such a token its character's span, as the pipeline reports it)."""
        if not self.dropout and self.ignore_merges and sequence in self.vocab:
            return [Token(self.vocab[sequence], sequence, (0, len(sequence.encode("utf-8", "surrogatepass"))))]
        out, pos = [], 0
        for tid, n in self._merge(self._symbols(sequence), self.dropout):
            out.append(Token(tid, self.vocab_r[tid], (pos, pos + n)))
            pos += n
        return out

    def _tokens(self, word: str, syms: list[list[int]]) -> list[tuple[int, str, tuple[int, int]]]:
        """(id, token, (start, end)) of merged symbols [id, byte length] of `word`."""
        out = []
        if word.isascii():
            pos = 0
            for tid, n in syms:
                out.append((tid, self.vocab_r[tid], (pos, pos + n)))
                pos += n
        else:
            char_of = [i for i, c in enumerate(word) for _ in c.encode("utf-8", "surrogatepass")]
            pos = 0
            for tid, n in syms:
                out.append((tid, self.vocab_r[tid], (char_of[pos], char_of[pos + n - 1] + 1)))
                pos += n
        return out

    @staticmethod
    def read_file(vocab: str | os.PathLike[str], merges: str | os.PathLike[str]) -> tuple[dict[str, int], list]:
        """(vocab, merges) read from a vocab.json and a merges.txt (models/files.py)."""
        return files.read_bpe(vocab, merges)

    @classmethod
    def from_file(cls, vocab: str | os.PathLike[str], merges: str | os.PathLike[str], **kwargs) -> BPE:
        """The model of a vocab.json and a merges.txt, with BPE's keyword options."""
        return cls(*files.read_bpe(vocab, merges), **kwargs)


    def to_dict(self) -> dict:
        return {"type": "BPE", "dropout": self.dropout, "unk_token": self.unk_token,
                "continuing_subword_prefix": self.continuing_subword_prefix,
                "end_of_word_suffix": self.end_of_word_suffix, "fuse_unk": self.fuse_unk,
                "byte_fallback": self.byte_fallback, "ignore_merges": self.ignore_merges,
                "vocab": self.vocab, "merges": [[a, b] for a, b in self.merges]}
