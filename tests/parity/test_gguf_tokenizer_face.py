"""`tokenforge.Tokenizer.from_gguf` / `to_gguf`: the HF-style face of the GGUF tokenizers.

References: llama.cpp's vectors (transformers' ids, which recognise special tokens as this
face does), sentencepiece on Llama 2's ``.model`` (BOS added, decode), HF `tokenizers` on
all-MiniLM's BERT tokenizer.json (``[CLS] A [SEP] B [SEP]`` with type ids) and tiktoken's
r50k_base for a GGUF written from GPT-2's tokenizer.json; round trips compare with the
file read back by the `gguf` package.
"""

from __future__ import annotations

import pytest
from _gguf import VOCABS, bert_reference, need_gguf, read, vectors, vocab_path
from _shared import MODELS, corpus_sample

import tokenforge


def _lines(name: str, n: int = 300) -> list[str]:
    text = corpus_sample(name).split("\n")
    return [t for t in text[:: max(1, len(text) // n)] if t]


def _face(name: str):
    """The Tokenizer of a test vocabulary, from the session's one read of the file (the `gguf`
    package's reader takes long on the 128k-token ones); from_gguf(path) is tested below."""
    from tokenforge.gguf.tokenizer_face import tokenizer_from_gguf

    return tokenizer_from_gguf(read(name))


@pytest.mark.parametrize("name", VOCABS)
def test_vectors(name):
    need_gguf()
    tok = _face(name)
    wrong = [(text, ids) for text, ids in vectors(name) if tok.encode(text, add_special_tokens=False).ids != ids]
    assert not wrong, f"{len(wrong)} strings differ; first: {wrong[0]}"


def test_llama_spm_matches_sentencepiece_with_bos_and_decode():
    need_gguf()
    spm = pytest.importorskip("sentencepiece")
    ref = spm.SentencePieceProcessor(model_file=str(MODELS / "sentencepiece" / "llama2_tokenizer.model"))
    tok = tokenforge.Tokenizer.from_gguf(vocab_path("llama-spm"))
    for line in _lines("en") + _lines("multi"):
        ids = tok.encode(line).ids
        assert ids == ref.encode(line, add_bos=True), line
        assert tok.decode(ids) == ref.decode(ids), line


def test_bert_matches_tokenizers_with_cls_sep_and_pairs():
    need_gguf()
    ref = bert_reference()
    tok = tokenforge.Tokenizer.from_gguf(vocab_path("bert-bge"))
    lines = _lines("en")
    for a, b in zip(lines, lines[1:]):
        assert tok.encode(a).ids == ref.encode(a).ids, a
        ours, theirs = tok.encode(a, b), ref.encode(a, b)
        assert (ours.ids, ours.type_ids) == (theirs.ids, theirs.type_ids), (a, b)


def test_gpt2_offsets_cover_the_text():
    need_gguf()
    tok = _face("gpt-2")
    for line in _lines("multi", 100) + _lines("mixed", 100):
        enc = tok.encode(line, add_special_tokens=False)
        starts = [a for a, _ in enc.offsets]
        assert starts == sorted(starts) and enc.offsets[-1][1] == len(line)
        assert tok.decode(enc.ids) == line


@pytest.mark.parametrize("name", ["llama-spm", "phi-3", "bert-bge"])  # the quicker reads
def test_gguf_round_trip_keeps_every_value(name, tmp_path):
    need_gguf()
    from tokenforge.gguf import read_vocab

    _face(name).to_gguf(tmp_path / "out.gguf")
    assert read_vocab(tmp_path / "out.gguf") == read(name)


def test_tokens_added_after_loading_are_written(tmp_path):
    need_gguf()
    from tokenforge.gguf import load

    tok = _face("bert-bge")
    tok.add_special_tokens(["[NEW]"])
    tok.add_tokens(["hello world"])
    tok.to_gguf(tmp_path / "b.gguf")
    back = load(tmp_path / "b.gguf")
    assert back.vocab.tokens[-2:] == ["[NEW]", "hello world"] and back.vocab.token_types[-2:] == [3, 4]
    # USER_DEFINED tokens are cut out even without special parsing, CONTROL ones only with it (llama.cpp)
    assert back.encode("[NEW] hello world", add_special=False) == [1031, 2047, 1033, 30523]
    assert back.encode("[NEW] hello world", add_special=False, parse_special=True) == [30522, 30523]


def test_wordpiece_tokenizer_json_to_gguf_is_llama_cpps_layout(tmp_path):
    need_gguf()
    from tokenforge.gguf import load

    tokenforge.Tokenizer.from_file(MODELS / "hf" / "minilm_bert_uncased_tokenizer.json").to_gguf(tmp_path / "b.gguf")
    ours, theirs = load(tmp_path / "b.gguf"), load(vocab_path("bert-bge"))
    assert ours.vocab.tokens == theirs.vocab.tokens and ours.vocab.token_types == theirs.vocab.token_types
    for text, ids in vectors("bert-bge"):
        assert ours.encode(text, add_special=False) == ids


def test_byte_level_tokenizer_json_to_gguf_encodes_as_tiktoken(tmp_path):
    need_gguf()
    tiktoken = pytest.importorskip("tiktoken")
    from tokenforge import patterns
    from tokenforge.formats.tiktoken_bpe import load_tiktoken_bpe

    tokenforge.Tokenizer.from_file(MODELS / "hf" / "gpt2_tokenizer.json").to_gguf(tmp_path / "g.gguf")
    tok = tokenforge.Tokenizer.from_gguf(tmp_path / "g.gguf")
    ranks = load_tiktoken_bpe(MODELS / "tiktoken" / "r50k_base.tiktoken")
    ref = tiktoken.Encoding("r50k", pat_str=patterns.GPT2, mergeable_ranks=ranks, special_tokens={})
    for line in _lines("en") + _lines("code"):
        assert tok.encode(line, add_special_tokens=False).ids == ref.encode_ordinary(line), line


def test_no_tokenizer_json_form_and_unsupported_models(tmp_path):
    need_gguf()
    tok = tokenforge.Tokenizer.from_gguf(vocab_path("llama-spm"))
    with pytest.raises(ValueError, match="no tokenizer.json form"):
        tok.to_str()
    uni = tokenforge.Tokenizer.from_str('{"model": {"type": "WordLevel", "vocab": {"a": 0}, "unk_token": null}}')
    with pytest.raises(ValueError, match="a 'WordLevel' tokenizer.json has no llama.cpp equivalent"):
        uni.to_gguf(tmp_path / "w.gguf")
    assert not (tmp_path / "w.gguf").exists()


def test_encoding_and_sentencepiece_faces_write_gguf(tmp_path):
    """`Encoding.to_gguf` and `SentencePieceProcessor.to_gguf`: the written GGUFs encode as
    tiktoken (r50k_base, the smallest rank file) and sentencepiece do on the original files."""
    need_gguf()
    tiktoken = pytest.importorskip("tiktoken")
    spm = pytest.importorskip("sentencepiece")
    from tokenforge.gguf import load

    enc = tokenforge.get_encoding("r50k_base")
    enc.to_gguf(tmp_path / "r50k.gguf")
    ref = tiktoken.Encoding("r50k", pat_str=enc._pat_str, mergeable_ranks=enc._mergeable_ranks, special_tokens={})
    model = MODELS / "sentencepiece" / "llama2_tokenizer.model"
    tokenforge.SentencePieceProcessor(model_file=str(model)).to_gguf(tmp_path / "llama2.gguf")
    sp = spm.SentencePieceProcessor(model_file=str(model))
    r50k, llama2 = load(tmp_path / "r50k.gguf"), load(tmp_path / "llama2.gguf")
    assert r50k.vocab.pre == "gpt-2"
    for line in _lines("en", 100) + _lines("multi", 100):
        assert r50k.encode(line, add_special=False) == ref.encode_ordinary(line), line
        assert llama2.encode(line) == sp.encode(line, add_bos=True), line
