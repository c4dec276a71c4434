"""Serialized and object protos, `override_normalizer_spec` and `SentencePieceNormalizer`
against sentencepiece 0.2.3 on the shared models and corpus samples.

Expected values come from sentencepiece 0.2.3: its ``serialized_proto`` bytes (encode,
decode, n-best), its protobuf ``proto`` objects, its ``SentencePieceNormalizer``, and,
for ``override_normalizer_spec`` (0.2.0/0.2.1 API, gone from 0.2.3), 0.2.3 loading the same
model with its NormalizerSpec changed through sentencepiece's own ``sentencepiece_model_pb2``.
``immutable_proto`` holds character spans (0.2.0/0.2.1); they are checked against 0.2.3's
byte spans converted here by decoding each prefix.
"""

from __future__ import annotations

import pytest
from _shared import CORPUS_FILES, MODELS, corpus_sample, need_shared

spm = pytest.importorskip("sentencepiece")
pb = pytest.importorskip("sentencepiece.sentencepiece_model_pb2")

from tokenforge.sentencepiece import SentencePieceNormalizer, SentencePieceProcessor  # noqa: E402

SPM_MODELS = MODELS / "sentencepiece"
MODEL_FILES = sorted(p.name for p in SPM_MODELS.glob("*.model")) if SPM_MODELS.is_dir() else ["(none)"]
LINES = 150  # per corpus file and model


@pytest.fixture(scope="module")
def lines() -> list[str]:
    need_shared()
    out = []
    for name in CORPUS_FILES:
        sample = [x for x in corpus_sample(name).split("\n") if len(x) < 3000]
        out += sample[:40] + sample[40::max(1, len(sample) // LINES)]
    return out + ["", " ", "  a  b  ", "\t\n", "x\u00a0y", "𠮷藤∰ 😀 ｆｕｌｌ", "<s> </s> <unk>"]


@pytest.fixture(scope="module", params=MODEL_FILES)
def pair(request):
    need_shared()
    path = str(SPM_MODELS / request.param)
    return SentencePieceProcessor(model_file=path), spm.SentencePieceProcessor(model_file=path)


def test_encode_serialized_proto_is_sentencepieces_bytes(pair, lines):
    ours, theirs = pair
    for line in lines:
        assert ours.encode(line, out_type="serialized_proto") == theirs.encode(line, out_type="serialized_proto"), line
    assert ours.encode(lines[:200], out_type="serialized_proto") == theirs.encode(lines[:200],
                                                                                 out_type="serialized_proto")
    assert ours.encode_as_serialized_proto(lines[5].encode()) == theirs.encode(lines[5].encode(),
                                                                               out_type="serialized_proto")


def test_proto_objects_match_sentencepieces(pair, lines):
    ours, theirs = pair
    for line in lines[::3]:
        a, b = ours.encode(line, out_type="proto"), theirs.encode(line, out_type="proto")
        assert (a.text, a.score) == (b.text, b.score)
        assert [(p.piece, p.id, p.surface, p.begin, p.end) for p in a.pieces] == \
               [(p.piece, p.id, p.surface, p.begin, p.end) for p in b.pieces], line
        assert a.SerializeToString() == b.SerializeToString()


def test_immutable_proto_has_character_spans(pair, lines):
    ours, theirs = pair
    for line in lines[::3]:
        got = ours.encode(line, out_type="immutable_proto")
        want = theirs.encode(line, out_type="proto")
        data = line.encode()
        assert got.text == line and got.text_as_bytes == data
        assert [(p.piece, p.id, p.surface, p.piece_as_bytes, p.surface_as_bytes) for p in got.pieces] == \
               [(p.piece, p.id, p.surface, p.piece.encode(), p.surface.encode()) for p in want.pieces]
        assert [(p.begin, p.end) for p in got.pieces] == \
               [(len(data[:p.begin].decode()), len(data[:p.end].decode())) for p in want.pieces], line
        assert [line[p.begin:p.end] for p in got.pieces if p.surface] == [p.surface for p in got.pieces if p.surface]


def test_decode_serialized_proto_is_sentencepieces_bytes(pair, lines):
    ours, theirs = pair
    n = theirs.get_piece_size()
    ids = theirs.encode(lines[::2])
    for seq in ids:
        assert ours.decode(seq, out_type="serialized_proto") == theirs.decode(seq, out_type="serialized_proto")
    assert ours.decode(ids[:50], out_type="serialized_proto") == theirs.decode(ids[:50], out_type="serialized_proto")
    # Control, unknown and byte ids, any order; pieces, including ones not in the vocabulary.
    odd = [[0, 1, 2], [2, 0, 1, 3, 4], list(range(min(n, 300))), [1] + ids[3] + [2, 0] + ids[4]]
    for seq in odd:
        assert ours.decode_ids_as_serialized_proto(seq) == theirs.decode(seq, out_type="serialized_proto"), seq
        pieces = theirs.id_to_piece(seq)
        assert ours.decode_pieces_as_serialized_proto(pieces) == theirs.decode(pieces, out_type="serialized_proto")
    for pieces in [["foo", "bar"], ["▁x", "<0xE8>", "<0xE8>", "y"], ["<0xF0>", "<0x9F>", "<0x98>", "<0x80>"]]:
        assert ours.decode(pieces, out_type="serialized_proto") == theirs.decode(pieces, out_type="serialized_proto")
        a, b = ours.decode(pieces, out_type="proto"), theirs.decode(pieces, out_type="proto")
        assert a.SerializeToString() == b.SerializeToString() and a.text == b.text
    assert ours.decode([], out_type="serialized_proto") == theirs.decode([], out_type="serialized_proto")
    with pytest.raises(IndexError):
        ours.decode_ids_as_serialized_proto([n])


def test_nbest_serialized_proto_is_sentencepieces_bytes(pair, lines):
    ours, theirs = pair
    if ours._model.trainer_spec.model_type != 1:  # n-best is Unigram only, in both
        with pytest.raises(RuntimeError):
            ours.nbest_encode("hello", nbest_size=3, out_type="serialized_proto")
        return
    for line in [x for x in lines if 0 < len(x) < 80][::4]:
        got = ours.nbest_encode(line, nbest_size=6, out_type="serialized_proto")
        assert got == theirs.nbest_encode(line, nbest_size=6, out_type="serialized_proto"), line
        proto = ours.nbest_encode(line, nbest_size=6, out_type="proto")
        want = theirs.nbest_encode(line, nbest_size=6, out_type="proto")
        assert [(t.text, t.score, [(p.id, p.begin, p.end) for p in t.pieces]) for t in proto.nbests] == \
               [(t.text, t.score, [(p.id, p.begin, p.end) for p in t.pieces]) for t in want.nbests]


def test_proto_rejects_rewrites_as_sentencepiece(pair):
    ours, theirs = pair
    for kw in [dict(add_bos=True), dict(add_eos=True), dict(reverse=True), dict(emit_unk_piece=True)]:
        with pytest.raises(RuntimeError) as theirs_error:
            theirs.encode("hello world", out_type="serialized_proto", **kw)
        with pytest.raises(RuntimeError) as ours_error:
            ours.encode("hello world", out_type="serialized_proto", **kw)
        assert "not supported in proto API" in str(theirs_error.value) and "not supported in proto API" in str(
            ours_error.value)


@pytest.mark.parametrize("fields", [dict(add_dummy_prefix=False), dict(remove_extra_whitespaces=False),
                                    dict(escape_whitespaces=False),
                                    dict(add_dummy_prefix=False, remove_extra_whitespaces=False,
                                         escape_whitespaces=False)])
def test_override_normalizer_spec_equals_a_model_with_that_spec(pair, lines, fields, tmp_path):
    ours, theirs = pair
    model = pb.ModelProto()
    model.ParseFromString(theirs.serialized_model_proto())
    for k, v in fields.items():
        setattr(model.normalizer_spec, k, v)
    reference = spm.SentencePieceProcessor(model_proto=model.SerializeToString())
    ours = SentencePieceProcessor(model_proto=theirs.serialized_model_proto())
    ours.override_normalizer_spec(**{k: str(v).lower() if k == "escape_whitespaces" else v for k, v in fields.items()})
    assert ours.serialized_model_proto() == model.SerializeToString()
    sample = lines[::5]
    assert ours.encode(sample, out_type=str) == reference.encode(sample, out_type=str)
    assert ours.encode(sample) == reference.encode(sample)
    assert [ours.normalize(x) for x in sample] == [reference.normalize(x) for x in sample]
    with pytest.raises(ValueError):
        ours.override_normalizer_spec(no_such_field=True)


NORMALIZER_TEXTS = ["ＫＡＤＯＫＡＷＡABC", "㍻", "  hello  world  ", "a\tb\u3000c ", "", "𠮷 ｶﾞ ①", "x" * 3]
FLAGS = [dict(), dict(add_dummy_prefix=False), dict(add_dummy_prefix=True, escape_whitespaces=True,
                                                    remove_extra_whitespaces=False),
         dict(add_dummy_prefix=False, escape_whitespaces=False, remove_extra_whitespaces=True)]


def _same_normalizer(ours: SentencePieceNormalizer, theirs) -> None:
    for text in NORMALIZER_TEXTS:
        assert ours.normalize(text) == theirs.normalize(text), text
        assert ours.normalize(text, with_offsets=True) == theirs.normalize(text, with_offsets=True), text
        data = text.encode()
        assert ours.Normalize(data, with_offsets=True) == theirs.Normalize(data, with_offsets=True), text
    assert ours.normalize(NORMALIZER_TEXTS) == theirs.normalize(NORMALIZER_TEXTS)
    assert ours.serialized_normalizer_spec() == theirs.serialized_normalizer_spec()
    assert ours.serialized_model_proto() == theirs.serialized_model_proto()


@pytest.mark.parametrize("flags", FLAGS)
def test_normalizer_from_a_model(flags):
    need_shared()
    for name in MODEL_FILES:
        path = str(SPM_MODELS / name)
        _same_normalizer(SentencePieceNormalizer(model_file=path, **flags),
                         spm.SentencePieceNormalizer(model_file=path, **flags))
        data = (SPM_MODELS / name).read_bytes()
        _same_normalizer(SentencePieceNormalizer(model_proto=data, **flags),
                         spm.SentencePieceNormalizer(model_proto=data, **flags))


@pytest.mark.parametrize("rule", ["nmt_nfkc", "nfkc", "nmt_nfkc_cf", "nfkc_cf", "identity"])
@pytest.mark.parametrize("flags", FLAGS)
def test_normalizer_from_a_rule_name(rule, flags):
    ours, theirs = SentencePieceNormalizer(rule_name=rule, **flags), spm.SentencePieceNormalizer(rule_name=rule,
                                                                                              **flags)
    _same_normalizer(ours, theirs)
    spec = theirs.serialized_normalizer_spec()
    _same_normalizer(SentencePieceNormalizer(normalizer_spec=spec), spm.SentencePieceNormalizer(normalizer_spec=spec))


def test_normalizer_errors_and_pickle():
    import pickle

    with pytest.raises(ValueError):
        SentencePieceNormalizer()
    with pytest.raises(ValueError):
        SentencePieceNormalizer(rule_name="no_such_rule")
    with pytest.raises(ValueError):
        SentencePieceNormalizer(norm_map=[("a", "b"), ("a", "c")])
    n = SentencePieceNormalizer(rule_name="nfkc_cf", add_dummy_prefix=False)
    again = pickle.loads(pickle.dumps(n))
    assert again.normalize("ＡＢＣ d") == n.normalize("ＡＢＣ d") == "abc▁d"
