"""tokenforge.SentencePieceProcessor against sentencepiece 0.2.3 on the shared models and corpora.

Every ``.model`` in ../shared/models/sentencepiece is compared on a sample of lines spread
over every corpus file (plus the edge cases at the head of mixed.txt) and on whole
documents: ids, pieces, decoded text, offsets and normalization; n-best lists on the
Unigram models.  Expected values come from sentencepiece only.
"""

from __future__ import annotations

import pytest
from _shared import CORPUS_FILES, MODELS, corpus_sample, need_shared

spm = pytest.importorskip("sentencepiece")

from tokenforge.sentencepiece import SentencePieceProcessor  # noqa: E402

SPM_MODELS = MODELS / "sentencepiece"
LINES_PER_FILE = 6000
DOCS_PER_FILE = 120
MODEL_FILES = sorted(p.name for p in SPM_MODELS.glob("*.model")) if SPM_MODELS.is_dir() else ["(none)"]


@pytest.fixture(scope="session")
def corpus_samples() -> dict[str, tuple[list[str], list[str]]]:
    """file -> (sampled lines, sampled documents) of the shared corpus samples."""
    need_shared()
    out = {}
    for name in CORPUS_FILES:
        text = corpus_sample(name)
        lines = text.split("\n")
        step = max(1, len(lines) // LINES_PER_FILE)
        sample = lines[:100] + lines[100::step]  # the head of mixed.txt holds its extremes
        docs = text.split("\n\n")
        out[name] = (sample, docs[::max(1, len(docs) // DOCS_PER_FILE)])
    return out


@pytest.fixture(scope="module", params=MODEL_FILES)
def processors(request):
    need_shared()
    path = str(SPM_MODELS / request.param)
    return request.param, SentencePieceProcessor(model_file=path), spm.SentencePieceProcessor(model_file=path)


@pytest.mark.parametrize("corpus", CORPUS_FILES)
def test_lines_ids_pieces_decode(processors, corpus_samples, corpus):
    name, ours, theirs = processors
    lines = corpus_samples[corpus][0]
    assert ours.encode(lines, num_threads=2) == theirs.encode(lines)
    pieces = theirs.encode(lines, out_type=str)
    assert ours.encode(lines, out_type=str) == pieces
    ids = theirs.encode(lines)
    assert ours.decode(ids) == theirs.decode(ids)
    assert [ours.decode_pieces(p) for p in pieces[:300]] == [theirs.decode_pieces(p) for p in pieces[:300]]
    for line in lines[:200]:  # the single-text paths
        assert ours.encode(line) == theirs.encode(line), line


@pytest.mark.parametrize("corpus", CORPUS_FILES)
def test_whole_documents(processors, corpus_samples, corpus):
    name, ours, theirs = processors
    docs = corpus_samples[corpus][1]
    assert ours.encode(docs) == theirs.encode(docs)


@pytest.mark.parametrize("corpus", CORPUS_FILES)
def test_offsets_and_normalize(processors, corpus_samples, corpus):
    name, ours, theirs = processors
    lines = [x for x in corpus_samples[corpus][0][:400] if len(x) < 5000]
    for line in lines:
        assert ours.encode(line, out_type="offset_mapping") == theirs.encode(line, out_type="offset_mapping"), line
        a, b = ours.encode(line, out_type="proto"), theirs.encode(line, out_type="proto")
        assert [(p.piece, p.id, p.surface, p.begin, p.end) for p in a.pieces] == \
               [(p.piece, p.id, p.surface, p.begin, p.end) for p in b.pieces], line
        assert ours.normalize(line, with_offsets=True) == theirs.normalize(line, with_offsets=True), line


@pytest.mark.parametrize("corpus", CORPUS_FILES)
def test_nbest_unigram(processors, corpus_samples, corpus):
    name, ours, theirs = processors
    if not ours._model.trainer_spec.model_type == 1:
        with pytest.raises(RuntimeError):
            ours.nbest_encode("hello", nbest_size=2)
        return
    lines = [x for x in corpus_samples[corpus][0][:600] if 0 < len(x) < 120]
    for line in lines[::3]:
        assert ours.nbest_encode(line, nbest_size=8, out_type=str) == theirs.nbest_encode(line, nbest_size=8,
                                                                                         out_type=str), line


def test_options(processors):
    name, ours, theirs = processors
    text = "  Hello,  wörld! 😀 ｆｕｌｌ　width\t[INST] x [/INST] <s> ∰ "
    for kw in [dict(), dict(add_eos=True), dict(reverse=True), dict(out_type=str, emit_unk_piece=True),
               dict(out_type=str, reverse=True, add_eos=True), dict(out_type=bytes)]:
        assert ours.encode(text, **kw) == theirs.encode(text, **kw), kw
    if theirs.bos_id() >= 0:
        assert ours.encode(text, add_bos=True) == theirs.encode(text, add_bos=True)
    else:
        with pytest.raises(ValueError):
            ours.encode(text, add_bos=True)
    for f in ("unk_id", "bos_id", "eos_id", "pad_id", "vocab_size", "get_piece_size"):
        assert getattr(ours, f)() == getattr(theirs, f)(), f
    ids = list(range(0, theirs.vocab_size(), 97))
    assert ours.id_to_piece(ids) == theirs.id_to_piece(ids)
    assert ours.get_score(ids) == pytest.approx(theirs.get_score(ids))
    for f in ("is_unknown", "is_control", "is_unused", "is_byte"):
        assert getattr(ours, f)(ids) == getattr(theirs, f)(ids), f
    pieces = theirs.id_to_piece(ids) + ["not-a-piece", "<0x41>"]
    assert ours.piece_to_id(pieces) == theirs.piece_to_id(pieces)
    all_ids = list(range(theirs.vocab_size()))
    assert ours.decode(all_ids) == theirs.decode(all_ids)
    assert ours.decode([all_ids[:50], [], all_ids[50:99]]) == theirs.decode([all_ids[:50], [], all_ids[50:99]])


@pytest.mark.parametrize("text", ["0" * 29161, "a" + "0" * 35000, "ab " + "0" * 60001, "x y " * 40000])
def test_long_inputs(text):
    """Past a running score of 1e5 sentencepiece rebases its Unigram sums; ties must still agree."""
    need_shared()
    for name in ("rut5_spiece.model", "kyoto_ja_unigram_8000.model", "botchan_en_unigram_1000.model"):
        path = str(SPM_MODELS / name)
        ours, theirs = SentencePieceProcessor(model_file=path), spm.SentencePieceProcessor(model_file=path)
        assert ours.encode(text) == theirs.encode(text), name


@pytest.mark.parametrize("text", ["a" * 100000, "ab" * 40000, "abc " * 20000 + "x" * 50000, "😀" * 20000,
                                  "0" * 50000, "ﬁ" * 20000, "日本" * 20000])
def test_long_words_bpe(text):
    """Words of thousands of symbols take the bucketed merge; it must keep sentencepiece's order."""
    need_shared()
    for name in MODEL_FILES:
        path = str(SPM_MODELS / name)
        ours, theirs = SentencePieceProcessor(model_file=path), spm.SentencePieceProcessor(model_file=path)
        if ours._model.trainer_spec.model_type != 2:  # BPE only
            continue
        assert ours.encode(text) == theirs.encode(text), name
