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


def fields(message) -> tuple:
    """What a ModelProto holds, ours or protobuf's, as plain values (floats as their bits,
    so NaN equals NaN): pieces, then every field of the three specs.  An enum value the
    schema does not name reads as the field's default, as in protobuf (proto2 enums are
    closed: protobuf keeps such a value among the unknown fields; ours keeps it in place
    and the processor refuses it, see test_processor.py)."""
    pb = pytest.importorskip("sentencepiece.sentencepiece_model_pb2")

    def plain(v, field=None):
        if isinstance(v, float):
            return struct.pack("<f", v)
        if isinstance(v, (list, tuple)) or type(v).__name__.startswith("Repeated"):
            return tuple(plain(x, field) for x in v)
        if field is not None and field.enum_type is not None and v not in field.enum_type.values_by_number:
            return field.default_value
        return v

    piece_type = pb.ModelProto.SentencePiece.DESCRIPTOR.fields_by_name["type"]
    out = [tuple((p.piece, plain(p.score), plain(int(p.type), piece_type)) for p in message.pieces)]
    for spec in ("trainer_spec", "normalizer_spec", "denormalizer_spec"):
        for field in getattr(pb.ModelProto(), spec).DESCRIPTOR.fields:
            out.append((spec, field.name, plain(getattr(getattr(message, spec), field.name), field)))
    return tuple(out)


def non_utf8_string(message) -> bool:
    """protobuf (proto2) keeps a string field that is not UTF-8 as bytes; ours refuses it."""
    texts = [p.piece for p in message.pieces]
    for spec in ("trainer_spec", "normalizer_spec", "denormalizer_spec"):
        sub = getattr(message, spec)
        for field in sub.DESCRIPTOR.fields:
            if field.type == field.TYPE_STRING:
                v = getattr(sub, field.name)
                texts += list(v) if field.is_repeated else [v]
    return any(isinstance(t, bytes) for t in texts)


def check_like_protobuf(data: bytes) -> bool:
    """Ours parses `data` iff protobuf does (except text that is not UTF-8, which ours
    refuses with ValueError), to the same fields, and writes what protobuf reads back the
    same.  True if it parsed."""
    pb = pytest.importorskip("sentencepiece.sentencepiece_model_pb2")
    theirs = pb.ModelProto()
    try:
        theirs.ParseFromString(data)
        theirs_ok = True
    except Exception:  # google.protobuf.message.DecodeError
        theirs_ok = False
    try:
        ours = ModelProto.from_bytes(data)
    except ValueError as e:
        assert not theirs_ok or (non_utf8_string(theirs) and "UTF-8" in str(e)), (data, e)
        return False
    assert theirs_ok, data
    assert fields(ours) == fields(theirs), data
    again = pb.ModelProto()
    again.ParseFromString(ours.to_bytes())
    assert fields(again) == fields(theirs), data
    return True


def test_every_truncation_parses_as_protobuf_parses():
    """A prefix cut at a field boundary parses (to protobuf's fields); one cut inside a
    field raises ValueError, as protobuf raises DecodeError."""
    data = small_model().to_bytes()
    parsed = [n for n in range(len(data) + 1) if check_like_protobuf(data[:n])]
    assert 0 in parsed and len(data) in parsed and len(parsed) < len(data) // 2


def test_random_damage_parses_as_protobuf_parses():
    """Random bytes changed in a small model and in a real one's first 4 KB: ours and
    protobuf agree on every copy (both parse to the same fields, or both refuse it)."""
    rng = random.Random(5)
    bases = [small_model().to_bytes()]
    if MODEL_FILES:
        bases.append(MODEL_FILES[0].read_bytes()[:4096])
    outcomes = set()
    for base in bases:
        for _ in range(1500):
            data = bytearray(base)
            for _ in range(rng.randint(1, 4)):
                data[rng.randrange(len(data))] = rng.randrange(256)
            outcomes.add(check_like_protobuf(bytes(data)))
    assert outcomes == {True, False}


@pytest.mark.parametrize("data", [
    b"\x0a\xff\xff\xff\xff\x0f",  # a piece 4 GB long
    b"\x0a\x02\x0a",  # truncated inside a piece
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
