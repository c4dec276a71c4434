"""The native cut rules of a long SentencePiece encode (SpmCutRule on the normalized text,
SpmNormalizer::input_cut_points on the input) against their pure-Python reference,
tokenforge.sentencepiece.cuts, and the input cuts' promise: the parts normalized on their
own concatenate to sentencepiece's normalization of the whole."""

from __future__ import annotations

import functools

import pytest
from _shared import MODELS, need_shared
from hypothesis import given, settings
from hypothesis import strategies as st

from tokenforge.formats.sentencepiece_model import ModelProto, PieceType
from tokenforge.sentencepiece import SentencePieceProcessor, cuts
from tokenforge.sentencepiece.reference import ReferenceProcessor, _Charsmap

spm = pytest.importorskip("sentencepiece")

NAMES = ["botchan_en_bpe_1000", "botchan_en_unigram_1000", "kyoto_ja_unigram_8000", "llama2_tokenizer",
         "mistral_v3_tokenizer", "rut5_spiece"]
_MATCHABLE = (PieceType.NORMAL, PieceType.USER_DEFINED, PieceType.UNUSED)


@functools.lru_cache(maxsize=None)
def _setup(name: str):
    need_shared()
    data = (MODELS / "sentencepiece" / f"{name}.model").read_bytes()
    model = ModelProto.from_bytes(data)
    pieces = [p.piece for p in model.pieces if p.type in _MATCHABLE]
    key_pairs = set()
    blob = model.normalizer_spec.precompiled_charsmap
    if blob:
        key_pairs |= cuts.charsmap_pairs(_Charsmap(blob).units)
    for p in model.pieces:
        if p.type == PieceType.USER_DEFINED:
            b = p.piece.encode()
            key_pairs |= set(zip(b, b[1:]))
    ref = ReferenceProcessor(model)
    own = {c: ref._prefix(bytes([c]))[0] for c in range(128)}
    return (SentencePieceProcessor(model_proto=data), spm.SentencePieceProcessor(model_proto=data),
            cuts.piece_pairs(pieces), key_pairs, own.__getitem__)


_TEXT = st.lists(st.sampled_from(["a", "the", "ab", " ", "  ", "\n", "\t", "\u3000", "\u00a0", "日本", "語", "😀", "é",
                                  "e\u0301", "ﬁ", "Ａ", "12", ".", "▁", "[INST]", "x y"]), min_size=1, max_size=150)


@settings(max_examples=80, deadline=None)
@given(_TEXT, st.sampled_from(NAMES), st.integers(2, 40))
def test_cut_points_match_the_reference(chunks, name, parts):
    ours, _, pairs, key_pairs, own = _setup(name)
    text = "".join(chunks)
    normalized = ours._core.normalize(text, False)
    assert ours._core.cut_points(normalized, parts) == cuts.cut_points(normalized.encode(), parts, pairs)
    data = text.encode()
    assert ours._core.input_cut_points(text, parts) == cuts.input_cut_points(data, parts, key_pairs, own)


@settings(max_examples=80, deadline=None)
@given(_TEXT, st.sampled_from(NAMES), st.integers(2, 40))
def test_normalized_parts_join_to_the_whole(chunks, name, parts):
    ours, ref, *_ = _setup(name)
    text = "".join(chunks)
    expected = ref.normalize(text)
    assert ours._core.normalize(text, False) == expected
    assert ours._core.normalize(text, False, parts, 3) == expected
