"""The SentencePieceText wire format (tokenforge.formats.sentencepiece_text) against
protobuf itself: sentencepiece's generated ``sentencepiece_pb2`` parses what we write to the
same fields and serializes them back to the same bytes, for any texts, ids and spans."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tokenforge.formats.sentencepiece_text import read_nbest, read_text, write_nbest, write_text

pb = pytest.importorskip("sentencepiece.sentencepiece_pb2")

utf8 = st.text(max_size=12).map(lambda s: s.encode("utf-8", "surrogatepass")).filter(
    lambda b: _valid(b))
u32 = st.integers(0, 2**32 - 1)
piece = st.tuples(utf8, u32, st.none() | utf8, u32, u32)
score = st.none() | st.floats(width=32, allow_nan=False)


def _valid(b: bytes) -> bool:
    try:
        b.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


@settings(max_examples=200, deadline=None)
@given(text=utf8, pieces=st.lists(piece, max_size=6), score=score)
def test_protobuf_reads_and_writes_the_same_bytes(text, pieces, score):
    data = write_text(text, pieces, score)
    assert read_text(data) == (text, pieces, score)
    msg = pb.SentencePieceText()
    msg.ParseFromString(data)
    assert msg.text.encode() == text and msg.HasField("score") == (score is not None)
    assert [(p.piece.encode(), p.id, p.surface.encode() if p.HasField("surface") else None, p.begin, p.end)
            for p in msg.pieces] == pieces
    assert msg.SerializeToString() == data


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(utf8, st.lists(piece, max_size=3), score), max_size=4))
def test_nbest_round_trip(items):
    texts = [write_text(*x) for x in items]
    data = write_nbest(texts)
    assert read_nbest(data) == texts
    msg = pb.NBestSentencePieceText()
    msg.ParseFromString(data)
    assert msg.SerializeToString() == data and len(msg.nbests) == len(items)


def test_native_writer_equals_the_reference_writer():
    """The native serialized_proto bytes (cpp/pipeline/spm_text_wire) equal the pure-Python
    writer's bytes for the same encoding, decoding and n-best, on byte-fallback BPE and Unigram."""
    from _shared import MODELS, need_shared

    from tokenforge.sentencepiece import SentencePieceProcessor

    need_shared()
    procs = [SentencePieceProcessor(model_file=str(MODELS / "sentencepiece" / f"{name}.model"))
             for name in ("llama2c_tok512", "kyoto_ja_unigram_8000", "rut5_spiece")]

    @settings(max_examples=150, deadline=None)
    @given(text=st.text(max_size=30), sp=st.sampled_from(procs), sampled=st.booleans())
    def check(text, sp, sampled):
        from tokenforge.sentencepiece import set_random_generator_seed

        kw = dict(enable_sampling=True, alpha=0.3, nbest_size=-1) if sampled else {}
        set_random_generator_seed(11)
        native = sp.encode(text, out_type="serialized_proto", **kw)
        set_random_generator_seed(11)
        assert native == sp.encode(text, out_type="proto", **kw).SerializeAsString()
        ids = sp.encode(text) + [1, 2, 0]
        assert sp.decode(ids, out_type="serialized_proto") == sp.decode(ids, out_type="proto").SerializeAsString()
        if sp._model.trainer_spec.model_type == 1 and text:
            assert sp.nbest_encode(text, nbest_size=3, out_type="serialized_proto") == \
                sp.nbest_encode(text, nbest_size=3, out_type="proto").SerializeAsString()

    check()
