"""Tokenizer.from_sentencepiece on hand-built models: the whitespace rules, worked by hand, and
the models and options it refuses (parity with sentencepiece: tests/parity)."""

from __future__ import annotations

import pytest

from tokenforge import Tokenizer
from tokenforge.formats.sentencepiece_model import SentencePiece
from tokenforge.sentencepiece import ModelProto, ModelType, PieceType

PIECES = [("<unk>", 0.0, PieceType.UNKNOWN), ("<s>", 0.0, PieceType.CONTROL), ("</s>", 0.0, PieceType.CONTROL),
          ("\u2581", -1.0, 1), ("a", -2.0, 1), ("b", -2.0, 1), ("\t", -2.0, 1), ("\u2581a", -1.5, 1)]


def _model(pieces=PIECES, **normalizer) -> ModelProto:
    m = ModelProto()
    for p, s, t in pieces:
        m.pieces.append(SentencePiece(piece=p, score=s, type=t))
    for k, v in normalizer.items():
        setattr(m.normalizer_spec, k, v)
    return m


def test_extra_spaces_are_u0020_only():
    """remove_extra_whitespaces: runs of spaces become one, edge spaces go; a tab stays."""
    tok = Tokenizer.from_sentencepiece(_model(remove_extra_whitespaces=True))
    assert tok.encode("  a   b \t ").tokens == ["\u2581a", "\u2581", "b", "\u2581", "\t"]
    assert tok.encode("   ").ids == []


def test_kept_spaces_and_dummy_prefix():
    tok = Tokenizer.from_sentencepiece(_model(remove_extra_whitespaces=False))
    assert tok.encode(" a").tokens == ["\u2581", "\u2581a"]  # the dummy prefix even before a space
    assert tok.decode(tok.encode(" a  b").ids) == " a  b"
    no_prefix = Tokenizer.from_sentencepiece(_model(remove_extra_whitespaces=False, add_dummy_prefix=False))
    assert no_prefix.encode("a").tokens == ["a"]


def test_unknown_characters_fuse():
    tok = Tokenizer.from_sentencepiece(_model())
    assert tok.encode("axyb").tokens == ["\u2581a", "xy", "b"]
    assert tok.encode("axyb").ids == [7, 0, 5]


def test_bpe_merges_by_score():
    pieces = PIECES[:3] + [("a", -5.0, 1), ("b", -5.0, 1), ("\u2581", -5.0, 1), ("ab", -1.0, 1), ("\u2581a", -2.0, 1)]
    m = _model(pieces)
    m.trainer_spec.model_type = ModelType.BPE
    # "▁ab": ▁a (-2) and ab (-1) compete for the a; ab scores higher, so ▁ + ab.
    assert Tokenizer.from_sentencepiece(m).encode("ab").tokens == ["\u2581", "ab"]


def test_refused():
    with pytest.raises(ValueError, match="convention"):
        Tokenizer.from_sentencepiece(_model(), convention="xlmr")
    m = _model()
    m.trainer_spec.model_type = ModelType.WORD
    with pytest.raises(ValueError, match="WORD"):
        Tokenizer.from_sentencepiece(m)
    m = _model()
    m.trainer_spec.treat_whitespace_as_suffix = True
    with pytest.raises(ValueError, match="treat_whitespace_as_suffix"):
        Tokenizer.from_sentencepiece(m)
    normal_first = [PIECES[0], ("x", -1.0, 1)] + PIECES[2:]
    with pytest.raises(ValueError, match="first three pieces"):
        Tokenizer.from_sentencepiece(_model(normal_first), convention="fairseq")
    with pytest.raises(ValueError, match="UNKNOWN"):
        Tokenizer.from_sentencepiece(_model(PIECES[1:]))


def test_not_a_model_file(tmp_path):
    bad = tmp_path / "x.model"
    bad.write_bytes(b"\xff\xff\xff")
    with pytest.raises(ValueError):
        Tokenizer.from_sentencepiece(bad)
    with pytest.raises(OSError):
        Tokenizer.from_sentencepiece(tmp_path / "missing.model")


def test_fairseq_layout():
    tok = Tokenizer.from_sentencepiece(_model(), convention="fairseq")
    assert [tok.id_to_token(i) for i in range(4)] == ["<s>", "<pad>", "</s>", "<unk>"]
    assert tok.token_to_id("\u2581a") == 8 and tok.token_to_id("<mask>") == 9
    e = tok.encode("a", "b")
    assert e.ids == [0, 8, 2, 2, 4, 6, 2]
    assert e.type_ids == [0] * 7
    assert tok.decode(e.ids) == "a b"
