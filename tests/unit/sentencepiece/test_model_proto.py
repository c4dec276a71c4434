"""The hand-written ModelProto reader/writer: round trips, protobuf agreement, malformed input."""

from __future__ import annotations

import random
import struct
import pytest
from _shared import MODELS as SHARED_MODELS

from tokenforge.formats.sentencepiece_model import ModelProto, ModelType, NormalizerSpec, PieceType, SentencePiece

MODELS = SHARED_MODELS / "sentencepiece"
MODEL_FILES = sorted(MODELS.glob("*.model")) if MODELS.is_dir() else []
needs_models = pytest.mark.skipif(not MODEL_FILES, reason=f"no SentencePiece models at {MODELS.resolve()}")


def small_model() -> ModelProto:
    m = ModelProto()
    for text, score, t in [("<unk>", 0.0, PieceType.UNKNOWN), ("<s>", 0.0, PieceType.CONTROL),
                           ("▁a", -1.5, PieceType.NORMAL), ("b", -2.25, PieceType.NORMAL)]:
        m.pieces.append(SentencePiece(piece=text, score=score, type=t))
    m.trainer_spec.model_type = ModelType.BPE
    m.trainer_spec.pad_id = -1  # negative int32: a 10-byte varint on the wire
    m.normalizer_spec.name = "identity"
    return m


@needs_models
@pytest.mark.parametrize("path", MODEL_FILES, ids=lambda p: p.name)
def test_round_trip_is_byte_identical(path):
    data = path.read_bytes()
    assert ModelProto.from_bytes(data).to_bytes() == data


@needs_models
@pytest.mark.parametrize("path", MODEL_FILES, ids=lambda p: p.name)
def test_agrees_with_protobuf(path):
    pb = pytest.importorskip("sentencepiece.sentencepiece_model_pb2")
    data = path.read_bytes()
    theirs = pb.ModelProto()
    theirs.ParseFromString(data)
    ours = ModelProto.from_bytes(data)
    assert [(p.piece, p.score, p.type) for p in ours.pieces] == [(p.piece, p.score, p.type) for p in theirs.pieces]
    for spec in ("trainer_spec", "normalizer_spec"):
        for field in getattr(theirs, spec).DESCRIPTOR.fields:
            if field.is_repeated:
                continue
            assert getattr(getattr(ours, spec), field.name) == pytest.approx(
                getattr(getattr(theirs, spec), field.name)), (spec, field.name)


def test_written_model_parses_in_protobuf():
    pb = pytest.importorskip("sentencepiece.sentencepiece_model_pb2")
    data = small_model().to_bytes()
    theirs = pb.ModelProto()
    theirs.ParseFromString(data)
    assert theirs.SerializeToString() == data
    assert theirs.trainer_spec.pad_id == -1 and theirs.pieces[3].score == -2.25


def test_defaults_and_presence():
    spec = NormalizerSpec()
    assert spec.add_dummy_prefix is True and not spec.has("add_dummy_prefix")
    assert spec.to_bytes() == b""
    spec.add_dummy_prefix = False
    assert spec.to_bytes() == b"\x18\x00"  # field 3, varint 0


def test_unknown_fields_are_kept():
    data = small_model().to_bytes() + b"\xa2\x06\x03xyz"  # field 100, length-delimited
    m = ModelProto.from_bytes(data)
    assert m.to_bytes() == data


def test_every_truncation_raises_value_error_or_parses():
    data = small_model().to_bytes()
    for n in range(len(data)):
        try:
            ModelProto.from_bytes(data[:n])
        except ValueError:
            pass


@pytest.mark.parametrize("data", [
    b"\x0a\xff\xff\xff\xff\x0f",  # a piece 4 GB long
    b"\x0a\x02\x0a",  # truncated inside a piece
    b"\x08\x01",  # pieces with a varint instead of a message
    b"\x12\x03\x18\xff",  # truncated varint inside trainer_spec
    b"\x0a\x03\x0a\x01\xff",  # piece text that is not UTF-8
    b"\x0f",  # wire type 7
    b"\x00\x01",  # field number 0
    b"\x1a\x02\x15\x00",  # float field truncated
])
def test_malformed_raises_value_error(data):
    with pytest.raises(ValueError):
        ModelProto.from_bytes(data)


def test_random_bytes_never_crash():
    rng = random.Random(5)
    base = small_model().to_bytes()
    for _ in range(2000):
        data = bytearray(base)
        for _ in range(rng.randint(1, 4)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        try:
            ModelProto.from_bytes(bytes(data))
        except ValueError:
            pass


def test_float_scores_round_trip_exactly():
    m = ModelProto()
    m.pieces.append(SentencePiece(piece="x", score=struct.unpack("<f", struct.pack("<f", 0.1))[0]))
    assert ModelProto.from_bytes(m.to_bytes()).pieces[0].score == m.pieces[0].score
