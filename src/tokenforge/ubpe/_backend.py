"""The engines behind the UBPE classes: the C++ core when built, else the Python reference.

Both expose the same three things over symbol ids: `fit_merges(docs, first_id, n_tokens,
n_candidates)`, `ClassicEncoder(pairs, ids, weights)` and `UniversalEncoder(strings, ids,
weights)`, whose `encode_many` runs a batch of parts (on threads, without the GIL, natively).
"""

from __future__ import annotations

from collections.abc import Sequence

from tokenforge.ubpe import reference_encode as _ref_enc
from tokenforge.ubpe import reference_fit as _ref_fit

try:  # the compiled core; absent only in a source tree that was never built
    from tokenforge import _native
    NATIVE = hasattr(_native, "UbpeClassicEncoder")
except ImportError:  # pragma: no cover
    _native = None
    NATIVE = False


class ReferenceClassic:
    """The pure-Python classic encoder (same interface as `_native.UbpeClassicEncoder`)."""

    def __init__(self, pairs: Sequence[tuple[int, int]], ids: Sequence[int], weights: Sequence[float]):
        self.pairs = [tuple(p) for p in pairs]
        self.ids = dict(zip(self.pairs, ids))
        self.weights = list(weights)

    def encode(self, word: Sequence[int]) -> tuple[list[int], float]:
        return _ref_enc.encode_classic(list(word), self.pairs, self.ids, self.weights)

    def encode_many(self, words: Sequence[Sequence[int]], n_threads: int = 0) -> list[tuple[list[int], float]]:
        return [self.encode(w) for w in words]


class ReferenceUniversal:
    """The pure-Python universal encoder (same interface as `_native.UbpeUniversalEncoder`)."""

    def __init__(self, strings: Sequence[Sequence[int]], ids: Sequence[int], weights: Sequence[float]):
        self.vocab = {tuple(s): i for s, i in zip(strings, ids)}
        self.weights = list(weights)

    def encode(self, word: Sequence[int], top_n: int = 1) -> list[tuple[list[int], float]]:
        return _ref_enc.encode_universal(list(word), self.vocab, self.weights, top_n)

    def encode_many(self, words: Sequence[Sequence[int]], top_n: int = 1,
                    n_threads: int = 0) -> list[list[tuple[list[int], float]]]:
        return [self.encode(w, top_n) for w in words]


def reference_fit(docs: list[list[list[int]]], first_id: int, n_tokens: int,
                  n_candidates: int) -> tuple[list[tuple[int, int]], list[float]]:
    return _ref_fit.fit_merges(docs, first_id=first_id, n_tokens=n_tokens, n_candidates=n_candidates)


def native_fit(docs: list[list[list[int]]], first_id: int, n_tokens: int,
               n_candidates: int) -> tuple[list[tuple[int, int]], list[float]]:
    assert _native is not None
    parts = [part for doc in docs for part in doc]
    part_docs = [d for d, doc in enumerate(docs) for _ in doc]
    merges, weights = _native.ubpe_fit(parts, part_docs, len(docs), first_id, n_tokens, n_candidates)
    return [tuple(m) for m in merges], list(weights)


if NATIVE:
    fit_merges = native_fit
    ClassicEncoder = _native.UbpeClassicEncoder
    UniversalEncoder = _native.UbpeUniversalEncoder
else:  # pragma: no cover
    fit_merges = reference_fit
    ClassicEncoder = ReferenceClassic  # type: ignore[misc,assignment]
    UniversalEncoder = ReferenceUniversal  # type: ignore[misc,assignment]
