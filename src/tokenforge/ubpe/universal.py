"""`UBPE`: universal UBPE, whose new ids each stand for a string of alphabet ids.

Encoding searches every segmentation of each part into vocabulary strings (a trie finds the
strings starting at each position; they are the edges of a DAG) and keeps the `top_n` best by
tf-idf weight with `ubpe`'s suffix programme (see `reference_encode.encode_universal`).  It
maximises that weight, not shortness.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tokenforge.ubpe import _backend
from tokenforge.ubpe.model import _UBPEModel

Encoding = tuple[list[int], float]


class UBPE(_UBPEModel):
    """Universal UBPE, compatible with `ubpe.UBPE` 0.3.0 (arguments as `UBPEClassic`).

    Example:
        >>> m = UBPE(["a", "b"], n_tokens=4)
        >>> m.fit(["abab", "ab"], rearrange_tokens=False)
        >>> m.mapper
        {2: (0, 1), 3: (0, 1, 0, 1)}
        >>> m.encode("ababa", top_n=2)
        [([3, 0], 0.4054651081081644), ([2, 2, 0], 0.0)]
    """

    _classic = False

    def _strings_of(self, merges: list[tuple[int, int]]) -> list[tuple[int, ...]]:
        strings: dict[int, tuple[int, ...]] = {}
        for k, (left, right) in enumerate(merges):
            strings[self.first_id + k] = strings.get(left, (left,)) + strings.get(right, (right,))
        return list(strings.values())

    def _build_encoder(self) -> None:
        for t, seq in self.mapper.items():
            bad = next((s for s in seq if s not in self.inverse_alphabet), None)
            if bad is not None:
                raise ValueError(f"not a UBPE model: id {t} holds {bad}, which is not an alphabet id")
        vocab: dict[tuple[int, ...], int] = {(i,): i for i in self.inverse_alphabet}
        vocab.update((seq, t) for t, seq in self.mapper.items())  # ubpe's: the last id of a string wins
        self._encoder = _backend.UniversalEncoder(list(vocab), list(vocab.values()), self._dense_weights())

    def _expand(self, token: int) -> tuple[int, ...]:
        return self.mapper[token]

    @staticmethod
    def _check_top_n(top_n: int) -> None:
        if isinstance(top_n, bool) or not isinstance(top_n, int) or top_n < 1:
            raise ValueError(f"top_n must be an int >= 1, not {top_n!r}")

    def encode(self, doc: Any, *, top_n: int = 1) -> list[Encoding]:
        """The `top_n` best encodings of a document by tf-idf weight, best first.

        Returns:
            `[(ids, weight), ...]`, at most `top_n` of them.

        Raises:
            ValueError: not fitted, `top_n < 1`, or a symbol outside the alphabet.

        Example:
            >>> m = UBPE("ab", n_tokens=3)
            >>> m.fit(["abab", "ab"])
            >>> m.encode("ababab")
            [([0, 1, 2], 0.4054651081081644)]
        """
        self._check_top_n(top_n)
        parts = self._parts(doc)
        return self._join(parts, [self._encoder.encode(p, top_n) for p in parts if len(p) != 1], top_n)

    def encode_batch(self, docs: Sequence[Any], *, top_n: int = 1,
                     num_threads: int = 0) -> list[list[Encoding]]:
        """`encode` over many documents, the searches run on threads without the GIL.

        Args:
            docs: the documents.
            top_n: encodings kept per document.
            num_threads: worker threads; 0 picks one per core.
        
        Example:
            >>> m = UBPE("ab", n_tokens=3)
            >>> m.fit(["abab", "ab"])
            >>> m.encode_batch(["abab", "ab"], top_n=2)
            [[([2], 0.4054651081081644), ([0, 1, 0, 1], 0.0)], [([0, 1], 0.0)]]
        """
        self._check_top_n(top_n)
        all_parts = [self._parts(d) for d in docs]
        words = [p for parts in all_parts for p in parts if len(p) != 1]
        encoded = self._encoder.encode_many(words, top_n, num_threads)
        out, k = [], 0
        for parts in all_parts:
            n = sum(1 for p in parts if len(p) != 1)
            out.append(self._join(parts, encoded[k:k + n], top_n))
            k += n
        return out

    @staticmethod
    def _join(parts: list[list[int]], encoded: list[list[Encoding]], top_n: int) -> list[Encoding]:
        """Joins parts' encodings as `ubpe` does: concatenated for `top_n=1`, else a greedy
        merge of each part's candidates with the best tails, walking the parts backwards."""
        if len(parts) == 1 and len(parts[0]) != 1:
            return [(list(ids), w) for ids, w in encoded[0]]
        if top_n == 1:
            ids: list[int] = []
            weight = 0.0
            it = iter(encoded)
            for part in parts:
                if len(part) == 1:
                    ids.append(part[0])
                else:
                    p_ids, p_weight = next(it)[0]
                    ids.extend(p_ids)
                    weight += p_weight
            return [(ids, weight)]
        tails: list[Encoding] = [([], 0.0)]
        k = len(encoded)
        for part in reversed(parts):
            if len(part) == 1:
                tails = [(part + t, w) for t, w in tails]
                continue
            k -= 1
            cands = [(list(i), w) for i, w in encoded[k]]
            ti = ci = 0
            new: list[Encoding] = []
            while ci < len(cands) and ti < len(tails) and len(new) < top_n:
                new.append((cands[ci][0] + tails[ti][0], cands[ci][1] + tails[ti][1]))
                if len(new) == top_n or (ci == len(cands) - 1 and ti == len(tails) - 1):
                    break
                if ci == len(cands) - 1:
                    ti += 1
                elif ti == len(tails) - 1:
                    ci += 1
                elif (tails[ti + 1][1] + cands[ci][1], -len(tails[ti + 1][0]) - len(cands[ci][0])) > (
                        tails[ti][1] + cands[ci + 1][1], -len(tails[ti][0]) - len(cands[ci + 1][0])):
                    ti += 1
                else:
                    ci += 1
            tails = new
        return tails
