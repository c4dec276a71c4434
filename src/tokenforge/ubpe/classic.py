"""`UBPEClassic`: UBPE whose new ids each stand for a pair of ids, encoded by pair merges.

Encoding repeatedly merges, in one pass, the first vocabulary pair present in the sequence
together with the later present ones up to the first vocabulary pair that shares a symbol
with those taken (see `reference_encode.encode_classic`).  Renumbering by weight
(`rearrange_tokens=True`) changes that merge order, which is why it encodes longer than
without (benchmarks/bench_ubpe.py prints the tokens per byte).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tokenforge.ubpe import _backend
from tokenforge.ubpe.model import _UBPEModel


class UBPEClassic(_UBPEModel):
    """Classic UBPE, compatible with `ubpe.UBPEClassic` 0.3.0.

    Args:
        alphabet: dict symbol -> id over `0..len-1`, or a list/tuple/str (ids by position).
        n_tokens: the vocabulary size to fit.
        known_words: words (str or symbol tuples) kept whole, as a list or a dict word -> id.
        break_tokens: symbols that cut documents before the regex split.
        stop_tokens: symbols that cut documents after it.
        regex_str: a pattern whose matches are cut apart (on `str` documents).
        lossy_regex: drop the text between regex matches, as `ubpe` does.

    Raises:
        ValueError: an empty or mixed-type alphabet, or ids that are not `0..len-1`.

    Example:
        >>> m = UBPEClassic(["a", "b"], n_tokens=4)
        >>> m.fit(["abab", "ab"], rearrange_tokens=False)
        >>> m.mapper
        {2: (0, 1), 3: (2, 2)}
        >>> m.encode("ababa")
        [([3, 0], 0.4054651081081644)]
    """

    _classic = True

    def _strings_of(self, merges: list[tuple[int, int]]) -> list[tuple[int, ...]]:
        return [tuple(m) for m in merges]

    def _build_encoder(self) -> None:
        expanded: dict[int, tuple[int, ...]] = {}
        for t in self.mapper:
            expanded[t] = self._expand_checked(t, expanded)
        self._expanded = expanded
        forward = {seq: t for t, seq in self.mapper.items()}  # ubpe's: the last id of a pair wins
        self._encoder = _backend.ClassicEncoder(list(forward), list(forward.values()), self._dense_weights())

    def _expand_checked(self, t: int, memo: dict[int, tuple[int, ...]]) -> tuple[int, ...]:
        # Iterative, so a cycle in a loaded mapper is an error rather than a deep recursion.
        stack, path = [t], set()
        while stack:
            top = stack[-1]
            if top in memo:
                stack.pop()
                continue
            missing = [s for s in self.mapper[top] if s in self.mapper and s not in memo]
            if not missing:
                out: list[int] = []
                for s in self.mapper[top]:
                    if s in memo:
                        out.extend(memo[s])
                    elif s in self.inverse_alphabet:
                        out.append(s)
                    else:
                        raise ValueError(f"not a UBPE model: id {top} is built on unknown id {s}")
                memo[top] = tuple(out)
                path.discard(top)
                stack.pop()
                continue
            if top in path:
                raise ValueError(f"not a UBPE model: id {top} is built on itself")
            path.add(top)
            stack.extend(missing)
        return memo[t]

    def _expand(self, token: int) -> tuple[int, ...]:
        return self._expanded[token]

    def encode(self, doc: Any) -> list[tuple[list[int], float]]:
        """Encodes a document by classic pair merges.

        Returns:
            `[(ids, weight)]`, weight being the tf-idf sum over parts.

        Raises:
            ValueError: not fitted, or a symbol outside the alphabet.

        Example:
            >>> m = UBPEClassic("ab", n_tokens=4)
            >>> m.fit(["abab", "ab"], rearrange_tokens=False)
            >>> m.encode("abab")
            [([3], 0.4054651081081644)]
        """
        return [self._join(self._parts(doc), None)]

    def encode_batch(self, docs: Sequence[Any], *, num_threads: int = 0) -> list[list[tuple[list[int], float]]]:
        """`encode` over many documents, the merges run on threads without the GIL.

        Args:
            docs: the documents.
            num_threads: worker threads; 0 picks one per core.
        
        Example:
            >>> m = UBPEClassic("ab", n_tokens=4)
            >>> m.fit(["abab", "ab"], rearrange_tokens=False)
            >>> m.encode_batch(["abab", "b"])
            [[([3], 0.4054651081081644)], [([1], 0.0)]]
        """
        all_parts = [self._parts(d) for d in docs]
        words = [p for parts in all_parts for p in parts if len(p) > 1]
        encoded = iter(self._encoder.encode_many(words, num_threads))
        return [[self._join(parts, encoded)] for parts in all_parts]

    def _join(self, parts: list[list[int]], encoded: Any) -> tuple[list[int], float]:
        if len(parts) == 1 and encoded is None:
            ids, weight = self._encoder.encode(parts[0])
            return list(ids), weight
        ids: list[int] = []
        weight = 0.0
        for part in parts:
            if len(part) == 1:
                ids.append(part[0])
                continue
            if len(part) == 0:
                continue
            p_ids, p_weight = next(encoded) if encoded is not None else self._encoder.encode(part)
            ids.extend(p_ids)
            weight += p_weight
        return ids, weight
