"""The C++ UBPE core against its pure-Python reference (tokenforge.ubpe.reference_*).

Random corpora over small alphabets (so pairs repeat, overlap and tie): the fit gives the
same merges and bit-identical weights; both encoders give the same ids and weights, for
top_n 1 and larger.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tokenforge import _native
from tokenforge.ubpe import _backend, reference_encode, reference_fit
from tokenforge.ubpe.classic import UBPEClassic
from tokenforge.ubpe.universal import UBPE

docs_st = st.lists(st.lists(st.lists(st.integers(0, 4), max_size=30), min_size=1, max_size=3),
                   min_size=1, max_size=12)


@settings(max_examples=150, deadline=None)
@given(docs_st, st.integers(5, 40), st.integers(1, 6))
def test_fit_same_as_reference(docs, n_tokens, n_candidates):
    ref = reference_fit.fit_merges(docs, first_id=5, n_tokens=n_tokens, n_candidates=n_candidates)
    nat = _backend.native_fit(docs, 5, n_tokens, n_candidates)
    assert nat[0] == ref[0]
    assert nat[1] == ref[1]


def fitted(cls, docs, n_tokens, rearrange):
    model = cls(list(range(5)), n_tokens=n_tokens)
    model.fit([[s for part in doc for s in part] for doc in docs], n_candidates=3,
              rearrange_tokens=rearrange)
    return model


@settings(max_examples=80, deadline=None)
@given(docs_st, st.integers(6, 30), st.booleans(), st.lists(st.lists(st.integers(0, 4), max_size=40), max_size=6))
def test_classic_encoder_same_as_reference(docs, n_tokens, rearrange, words):
    model = fitted(UBPEClassic, docs, n_tokens, rearrange)
    forward = {seq: t for t, seq in model.mapper.items()}
    ref = _backend.ReferenceClassic(list(forward), list(forward.values()), model._dense_weights())
    nat = _native.UbpeClassicEncoder(list(forward), list(forward.values()), model._dense_weights())
    for w in words:
        assert tuple(nat.encode(w)) == tuple(ref.encode(w))
    assert nat.encode_many(words, 2) == [nat.encode(w) for w in words]


@settings(max_examples=80, deadline=None)
@given(docs_st, st.integers(6, 30), st.booleans(), st.integers(1, 5),
       st.lists(st.lists(st.integers(0, 4), max_size=30), max_size=5))
def test_universal_encoder_same_as_reference(docs, n_tokens, rearrange, top_n, words):
    model = fitted(UBPE, docs, n_tokens, rearrange)
    vocab = {(i,): i for i in range(5)}
    vocab.update((seq, t) for t, seq in model.mapper.items())
    ref = _backend.ReferenceUniversal(list(vocab), list(vocab.values()), model._dense_weights())
    nat = _native.UbpeUniversalEncoder(list(vocab), list(vocab.values()), model._dense_weights())
    for w in words:
        assert [tuple(e) for e in nat.encode(w, top_n)] == [tuple(e) for e in ref.encode(w, top_n)]
    assert nat.encode_many(words, top_n, 2) == [nat.encode(w, top_n) for w in words]


def test_sum_like_py312_matches_the_native_weight():
    # (1 + log 1) * 0.1 ten times would drift with naive addition; 3.12's sum gives 1.0.
    weights = [0.0] * 20 + [0.1] * 10
    word = list(range(20, 30))
    nat = _native.UbpeClassicEncoder([], [], weights).encode(word)
    assert nat[1] == reference_encode.sum_like_py312([0.1] * 10) == 1.0
