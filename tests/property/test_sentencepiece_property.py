"""Hypothesis: tokenforge's native SentencePiece == the pure-Python reference == sentencepiece.

Texts mix what stresses a SentencePiece model: whitespace runs of every kind, combining
marks, text that NFKC rewrites, characters no model knows (byte fallback / <unk>), the ▁
symbol itself, and pieces such as ``[INST]`` or ``<s>`` spelled out.
"""

from __future__ import annotations

import functools

import pytest
from _shared import MODELS as SHARED_MODELS

spm = pytest.importorskip("sentencepiece")
hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from tokenforge.sentencepiece import ModelProto, SentencePieceProcessor  # noqa: E402
from tokenforge.sentencepiece.reference import ReferenceProcessor  # noqa: E402

MODELS = SHARED_MODELS / "sentencepiece"
MODEL_FILES = sorted(p.name for p in MODELS.glob("*.model")) if MODELS.is_dir() else []
pytestmark = pytest.mark.skipif(not MODEL_FILES, reason=f"no SentencePiece models at {MODELS.resolve()}")

SPECIAL_CHARS = list(" \t\n\r\u3000\u00a0\u2000\u200b\ufeff\u2581▁") + [
    "\u0301", "\u0308", "\u0323",  # combining marks
    "ﬁ", "①", "㎏", "ｈ", "Ａ", "½", "Ⅻ", "ᄀ", "가",  # NFKC rewrites these
    "😀", "👍🏽", "\U0001f1fa\U0001f1f8", "\ue000", "\U0010fffd", "𓀀", "ꙮ",  # rare or unknown
    "日本語", "Привет", "مرحبا", "é", "ß",
    "[INST]", "[/INST]", "<s>", "</s>", "<unk>", "<0x41>", "  ", "\n\n",
]
TEXT = st.lists(st.one_of(st.sampled_from(SPECIAL_CHARS), st.text(max_size=4),
                          st.characters(blacklist_categories=("Cs",))), max_size=25).map("".join)


@functools.lru_cache(maxsize=None)
def load(name: str):
    path = str(MODELS / name)
    return (SentencePieceProcessor(model_file=path), ReferenceProcessor(ModelProto.load(path)),
            spm.SentencePieceProcessor(model_file=path))


@pytest.mark.parametrize("name", MODEL_FILES)
@settings(max_examples=300, deadline=None)
@given(text=TEXT)
def test_native_reference_sentencepiece_agree(name, text):
    ours, ref, theirs = load(name)
    expected = theirs.encode(text)
    assert ref.normalize(text) == theirs.normalize(text)
    assert ours.normalize(text) == theirs.normalize(text)
    assert ref.encode(text) == expected
    assert ours.encode(text) == expected
    assert ours.encode(text, out_type=str) == theirs.encode(text, out_type=str)
    assert ours.decode(expected) == theirs.decode(expected) == ref.decode(expected)


@pytest.mark.parametrize("name", MODEL_FILES)
@settings(max_examples=60, deadline=None)
@given(ids=st.lists(st.integers(min_value=0, max_value=600), max_size=30))
def test_decode_any_ids(name, ids):
    ours, ref, theirs = load(name)
    ids = [i % theirs.vocab_size() for i in ids]
    assert ours.decode(ids) == theirs.decode(ids) == ref.decode(ids)
    pieces = theirs.id_to_piece(ids)
    assert ours.decode_pieces(pieces) == theirs.decode_pieces(pieces)


# Longer texts for the block scans (16-byte ASCII skips and the last block read back from
# the end of the text), the per-character tables of the normalizer's plain runs (kana a
# combining sound mark may follow, 4-byte rows with and without NFKC rules) and the
# segmentation of text that alternates known and unknown characters.
LONG_PARTS = [
    "abcdefghijklmnopqrstuvwxyz", "internationalization", "x" * 17, "0123456789" * 2, "  ", " ", "\t",
    "か", "\u3099", "\u309a", "ｶ", "\uff9e", "e\u0301", "\u0301", "日本語のテキスト", "、", "（", "）", "：",
    "😀", "\U0001d400", "\U0001d56b", "\U0002f800", "\U00020000", "\U000e0001", "▁", "\u2581\u2581",
    "{", "}", "<", ">", "_", "|", "~", "\\", "Привет", "ß", "½", "\u00a0", "\u3000",
]
LONG_TEXT = st.lists(st.one_of(st.sampled_from(LONG_PARTS), st.text(max_size=6)), max_size=60).map("".join)


@pytest.mark.parametrize("name", MODEL_FILES)
@settings(max_examples=120, deadline=None)
@given(texts=st.lists(LONG_TEXT, min_size=1, max_size=4))
def test_long_texts_agree(name, texts):
    ours, _, theirs = load(name)
    expected = theirs.encode(texts)
    assert ours.encode(texts, num_threads=1) == expected
    assert [ours.encode(t) for t in texts] == expected
    assert [ours.normalize(t) for t in texts] == [theirs.normalize(t) for t in texts]
    assert ours.encode(texts[0], out_type=str) == theirs.encode(texts[0], out_type=str)
