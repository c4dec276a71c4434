"""Byte-fallback models with no <unk> piece (unk_id() == -1), which sentencepiece loads:
unknown characters become <0xXX> pieces on every path, and emit_unk_piece with pieces
output fails as sentencepiece fails.  The models are trained by sentencepiece's own trainer
on a small text in tmp_path, then their UNKNOWN piece is made NORMAL; expected values come
from sentencepiece on the same bytes."""

from __future__ import annotations

import random

import pytest

from tokenforge.sentencepiece import SentencePieceProcessor

spm = pytest.importorskip("sentencepiece")
pb = pytest.importorskip("sentencepiece.sentencepiece_model_pb2")

TRAIN = """The quick brown fox jumps over the lazy dog.
A journey of a thousand miles begins with a single step, or so they say.
Über den Wolken muss die Freiheit wohl grenzenlos sein.
The dog sleeps; the fox runs. The end of the story is near.
"""


@pytest.fixture(scope="module", params=["unigram", "bpe"])
def model(request, tmp_path_factory):
    tmp = tmp_path_factory.mktemp(request.param)
    corpus = tmp / "train.txt"
    corpus.write_text(TRAIN * 5, encoding="utf-8")
    spm.SentencePieceTrainer.train(input=str(corpus), model_prefix=str(tmp / "m"), model_type=request.param,
                                   vocab_size=330, byte_fallback=True, hard_vocab_limit=False, minloglevel=2)
    proto = pb.ModelProto()
    proto.ParseFromString((tmp / "m.model").read_bytes())
    for piece in proto.pieces:
        if piece.type == pb.ModelProto.SentencePiece.UNKNOWN:
            piece.type = pb.ModelProto.SentencePiece.NORMAL
    data = proto.SerializeToString()
    theirs = spm.SentencePieceProcessor(model_proto=data)
    assert theirs.unk_id() == -1
    return SentencePieceProcessor(model_proto=data), theirs, request.param


def texts():
    rng = random.Random(7)
    alphabet = "ab cdÜ∰中 é😀\u0301xThe fox"
    return ["", "the fox", "∰ 中文 😀"] + ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
                                        for _ in range(300)]


def test_same_as_sentencepiece(model):
    ours, theirs, kind = model
    assert ours.unk_id() == -1
    batch = texts()
    assert ours.encode(batch, num_threads=2) == theirs.encode(batch)
    assert ours.encode(batch, out_type=str) == theirs.encode(batch, out_type=str)
    for text in batch:
        assert ours.encode(text) == theirs.encode(text)
        assert ours.encode(text, out_type=str) == theirs.encode(text, out_type=str)
        got = [(p.id, p.piece, p.surface, p.begin, p.end) for p in ours.encode(text, out_type="proto").pieces]
        want = [(p.id, p.piece, p.surface, p.begin, p.end) for p in theirs.encode(text, out_type="proto").pieces]
        assert got == want
        if kind == "unigram":
            assert ours.nbest_encode_as_ids(text, 3) == theirs.nbest_encode_as_ids(text, 3)


def test_emit_unk_piece_needs_an_unk(model):
    ours, theirs, _ = model
    for out_type in (str, bytes):
        with pytest.raises(ValueError, match="UNK token is not defined"):
            theirs.encode("ab", out_type=out_type, emit_unk_piece=True)
        with pytest.raises(ValueError, match="UNK token is not defined"):
            ours.encode("ab", out_type=out_type, emit_unk_piece=True)
        with pytest.raises(ValueError, match="UNK token is not defined"):
            ours.encode(["ab", ""], out_type=out_type, emit_unk_piece=True)
    assert ours.encode("ab ∰", emit_unk_piece=True) == theirs.encode("ab ∰", emit_unk_piece=True)
