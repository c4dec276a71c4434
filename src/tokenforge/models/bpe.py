"""BPE model of `tokenizer.json`: merges applied by rank, with `tokenizers`' options.

A word (one pre-tokenized piece) starts as its characters, each looked up in the vocab (with
`continuing_subword_prefix` on all but the first and `end_of_word_suffix` on the last); a
character not in the vocab becomes its `<0xXX>` byte tokens (`byte_fallback`) or the unknown
token (consecutive ones fused with `fuse_unk`) or, with no unknown token, is dropped.  Then the
adjacent pair with the lowest merge rank, leftmost first, is merged until none is left.  With
`ignore_merges` a word that is itself in the vocab is that token.  `dropout` is accepted and
written back but not applied (encoding is deterministic here).

Example:
    >>> bpe = BPE({"a": 0, "b": 1, "ab": 2}, [("a", "b")])
    >>> bpe.tokenize("aba")
    [(2, 'ab', (0, 2)), (0, 'a', (2, 3))]
"""

from __future__ import annotations

import functools
import heapq
import operator
from array import array

from tokenforge import _native
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

    def __init__(self, vocab: dict[str, int], merges: list, *, unk_token: str | None = None,
                 continuing_subword_prefix: str | None = None, end_of_word_suffix: str | None = None,
                 fuse_unk: bool = False, byte_fallback: bool = False, ignore_merges: bool = False,
                 dropout: float | None = None) -> None:
        super().__init__(vocab)
        self.unk_token = unk_token
        self.continuing_subword_prefix = continuing_subword_prefix
        self.end_of_word_suffix = end_of_word_suffix
        self.fuse_unk, self.byte_fallback, self.ignore_merges = fuse_unk, byte_fallback, ignore_merges
        self.dropout = dropout
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

    def _merge(self, syms: list[list[int]]) -> list[list[int]]:
        """Merges the lowest-ranked adjacent pair, leftmost first, until none is left: a heap of
        candidate pairs over a linked list of symbols, O(n log n) (a word can be a whole text
        when there is no pre-tokenizer).  An entry is stale once either side has changed: a
        symbol only grows, so its id then differs from the one the entry recorded."""
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
        while heap:
            _, i, a, b, new = heapq.heappop(heap)
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

    def tokenize(self, word: str) -> list[tuple[int, str, tuple[int, int]]]:
        """(id, token, (start, end)) per token; offsets are characters of `word`."""
        cached = self._cache.get(word)
        if cached is not None:
            return cached
        if self.ignore_merges and word in self.vocab:
            out = [(self.vocab[word], word, (0, len(word)))]
        else:
            syms = self._merge(self._symbols(word))
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
        return self.remember(word, out)

    def to_dict(self) -> dict:
        return {"type": "BPE", "dropout": self.dropout, "unk_token": self.unk_token,
                "continuing_subword_prefix": self.continuing_subword_prefix,
                "end_of_word_suffix": self.end_of_word_suffix, "fuse_unk": self.fuse_unk,
                "byte_fallback": self.byte_fallback, "ignore_merges": self.ignore_merges,
                "vocab": self.vocab, "merges": [[a, b] for a, b in self.merges]}
