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


def _byte_token(b: int) -> str:
    return f"<0x{b:02X}>"


class BPE:
    """Byte-pair encoding over a vocab and an ordered merge list (module docstring)."""

    def __init__(self, vocab: dict[str, int], merges: list, *, unk_token: str | None = None,
                 continuing_subword_prefix: str | None = None, end_of_word_suffix: str | None = None,
                 fuse_unk: bool = False, byte_fallback: bool = False, ignore_merges: bool = False,
                 dropout: float | None = None) -> None:
        self.vocab = dict(vocab)  # token -> id
        self.vocab_r = {i: t for t, i in self.vocab.items()}  # id -> token
        self.unk_token = unk_token
        self.continuing_subword_prefix = continuing_subword_prefix
        self.end_of_word_suffix = end_of_word_suffix
        self.fuse_unk, self.byte_fallback, self.ignore_merges = fuse_unk, byte_fallback, ignore_merges
        self.dropout = dropout
        self.merges: list[tuple[str, str]] = []
        self.pair_rank: dict[tuple[int, int], tuple[int, int]] = {}  # (left id, right id) -> (rank, merged id)
        plen = len(continuing_subword_prefix or "")
        for rank, m in enumerate(merges):
            if isinstance(m, str):
                parts = m.split(" ")
                if len(parts) != 2:
                    raise ValueError(f"BPE merge {rank} {m!r} is not two tokens separated by one space")
                a, b = parts
            elif isinstance(m, (list, tuple)) and len(m) == 2 and all(isinstance(x, str) for x in m):
                a, b = m
            else:
                raise ValueError(f"BPE merge {rank} {m!r} is neither 'a b' nor [a, b]")
            for t in (a, b, a + b[plen:]):
                if t not in self.vocab:
                    raise ValueError(f"BPE merge {rank} ({a!r}, {b!r}) names {t!r}, which is not in the vocab")
            self.merges.append((a, b))
            self.pair_rank[(self.vocab[a], self.vocab[b])] = (rank, self.vocab[a + b[plen:]])
        if unk_token is not None and unk_token not in self.vocab:
            pass  # tokenizers accepts this; an unknown character is then an error at encode time
        self._cache: dict[str, list] = {}

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
        ranks = self.pair_rank
        while len(syms) > 1:
            best, where = None, -1
            for i in range(len(syms) - 1):
                r = ranks.get((syms[i][0], syms[i + 1][0]))
                if r is not None and (best is None or r[0] < best[0]):
                    best, where = r, i
            if best is None:
                break
            syms[where:where + 2] = [[best[1], syms[where][1] + syms[where + 1][1]]]
        return syms

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
        if len(self._cache) < 100_000:
            self._cache[word] = out
        return out

    def token_to_id(self, token: str) -> int | None:
        return self.vocab.get(token)

    def id_to_token(self, i: int) -> str | None:
        return self.vocab_r.get(i)

    def to_dict(self) -> dict:
        return {"type": "BPE", "dropout": self.dropout, "unk_token": self.unk_token,
                "continuing_subword_prefix": self.continuing_subword_prefix,
                "end_of_word_suffix": self.end_of_word_suffix, "fuse_unk": self.fuse_unk,
                "byte_fallback": self.byte_fallback, "ignore_merges": self.ignore_merges,
                "vocab": self.vocab, "merges": [[a, b] for a, b in self.merges]}
