"""`tokenforge convert` and `tokenforge.formats.convert`: each written file is loaded by the
reference library of its format and checked against llama.cpp's vectors or the original
model's reference (HF `tokenizers` for tokenizer.json, sentencepiece for .model, llama.cpp's
own converter output for a bert GGUF); refused pairs leave no file behind."""

from __future__ import annotations

import pytest
from _gguf import need_gguf, read, vectors, vocab_path
from _shared import MODELS, corpus_sample

from tokenforge.cli import main


def _lines(name: str, n: int = 200) -> list[str]:
    text = corpus_sample(name).split("\n")
    return [t for t in text[:: max(1, len(text) // n)] if t]


def _hf(d_or_path):
    tokenizers = pytest.importorskip("tokenizers")
    import json

    text = d_or_path.read_text(encoding="utf-8") if hasattr(d_or_path, "read_text") else json.dumps(d_or_path)
    return tokenizers.Tokenizer.from_str(text)


@pytest.mark.parametrize("name", ["gpt-2", "starcoder", "deepseek-coder", "qwen2"])
def test_gguf_to_tokenizer_json_gives_llama_cpps_ids_in_tokenizers(name):
    """HF `tokenizers` itself runs the written file: llama.cpp's vectors come out."""
    need_gguf()
    from tokenforge.gguf.export import tokenizer_json_from_vocab

    ref = _hf(tokenizer_json_from_vocab(read(name)))
    wrong = [(t, ids) for t, ids in vectors(name) if ref.encode(t, add_special_tokens=False).ids != ids]
    assert not wrong, f"{len(wrong)} strings differ; first: {wrong[0]}"


def test_cli_gguf_to_tokenizer_json(tmp_path, capsys):
    need_gguf()
    out = tmp_path / "gpt2.json"
    assert main(["convert", str(vocab_path("gpt-2")), str(out)]) == 0
    assert "gpt2 GGUF with 50257 tokens" in capsys.readouterr().out
    ref = _hf(out)
    for text, ids in vectors("gpt-2"):
        assert ref.encode(text, add_special_tokens=False).ids == ids


def test_cli_gguf_to_sentencepiece_model(tmp_path):
    need_gguf()
    spm = pytest.importorskip("sentencepiece")
    out = tmp_path / "llama.model"
    assert main(["convert", str(vocab_path("llama-spm")), str(out)]) == 0
    ours = spm.SentencePieceProcessor(model_file=str(out))
    original = spm.SentencePieceProcessor(model_file=str(MODELS / "sentencepiece" / "llama2_tokenizer.model"))
    for text, ids in vectors("llama-spm"):
        assert ours.encode(text) == ids
    for line in _lines("en") + _lines("multi"):
        assert ours.encode(line) == original.encode(line), line


def test_cli_t5_round_trip_through_gguf(tmp_path):
    need_gguf()
    spm = pytest.importorskip("sentencepiece")
    original = MODELS / "sentencepiece" / "rut5_spiece.model"
    assert main(["convert", str(original), str(tmp_path / "t5.gguf")]) == 0
    assert main(["convert", str(tmp_path / "t5.gguf"), str(tmp_path / "t5.model")]) == 0
    ours = spm.SentencePieceProcessor(model_file=str(tmp_path / "t5.model"))
    ref = spm.SentencePieceProcessor(model_file=str(original))
    for line in _lines("en") + _lines("multi"):
        assert ours.encode(line) == ref.encode(line), line


def test_cli_sentencepiece_style_json_to_gguf_encodes_as_tokenizers(tmp_path, capsys):
    """Mistral v1's tokenizer.json (SentencePiece BPE) -> llama GGUF: tokenizers' ids."""
    need_gguf()
    from tokenforge.gguf import load

    src, out = MODELS / "hf" / "mistral_v1_tokenizer.json", tmp_path / "mistral.gguf"
    assert main(["convert", str(src), str(out)]) == 0
    assert ".json -> llama GGUF (32000 tokens" in capsys.readouterr().out
    ours, ref = load(out), _hf(src)
    for line in _lines("en", 100) + _lines("multi", 100):
        assert ours.encode(line, parse_special=True) == ref.encode(line).ids, line


def test_cli_wordpiece_json_to_gguf_is_llama_cpps_layout(tmp_path):
    need_gguf()
    from tokenforge.gguf import read_vocab

    out = tmp_path / "bert.gguf"
    assert main(["convert", str(MODELS / "hf" / "minilm_bert_uncased_tokenizer.json"), str(out)]) == 0
    ours, theirs = read_vocab(out), read("bert-bge")
    assert ours.model == "bert" and ours.tokens == theirs.tokens and ours.token_types == theirs.token_types


def test_cli_tiktoken_to_tokenizer_json_encodes_as_tiktoken(tmp_path):
    tiktoken = pytest.importorskip("tiktoken")
    from tokenforge import patterns
    from tokenforge.formats.tiktoken_bpe import load_tiktoken_bpe

    need_gguf()
    out = tmp_path / "r50k.json"
    assert main(["convert", str(MODELS / "tiktoken" / "r50k_base.tiktoken"), str(out)]) == 0
    ranks = load_tiktoken_bpe(MODELS / "tiktoken" / "r50k_base.tiktoken")
    ref = tiktoken.Encoding("r50k", pat_str=patterns.GPT2, mergeable_ranks=ranks, special_tokens={})
    ours = _hf(out)
    for line in _lines("en") + _lines("code"):
        assert ours.encode(line, add_special_tokens=False).ids == ref.encode_ordinary(line), line


@pytest.mark.parametrize("src, dst, message", [
    ("gguf/ggml-vocab-gpt-2.gguf", "x.tiktoken", "holds only the ranks"),
    ("gguf/ggml-vocab-bert-bge.gguf", "x.json", "'bert' GGUF has no exact tokenizer.json form"),
    ("gguf/ggml-vocab-gpt-2.gguf", "x.model", "not a SentencePiece model"),
    ("sentencepiece/llama2_tokenizer.model", "x.json", "does not convert .model to .json"),
    ("sentencepiece/botchan_en_bpe_1000.model", "x.gguf", "would ignore this model's"),
    ("hf/claude_tokenizer.json", "x.gguf", "normalizer"),
    ("gguf/ggml-vocab-gpt-2.gguf", "x.txt", "cannot tell the format of 'x.txt'"),
])
def test_cli_refuses_what_would_lose_information(src, dst, message, tmp_path, capsys):
    need_gguf()
    assert main(["convert", str(MODELS / src), str(tmp_path / dst)]) == 1
    import re

    err = capsys.readouterr().err
    assert err.startswith("tokenforge convert: error:") and re.search(message, err), err
    assert not (tmp_path / dst).exists()


def test_cli_views_read_gguf(capsys):
    """`tokenforge encode --model X.gguf` gives llama.cpp's ids (no [CLS]/[SEP]), here checked
    against HF tokenizers' BERT with add_special_tokens=False."""
    need_gguf()
    from _gguf import bert_reference

    text = "Hello, World! unaffable"
    assert main(["encode", text, "--model", str(vocab_path("bert-bge"))]) == 0
    out = [int(x) for x in capsys.readouterr().out.split()]
    assert out == bert_reference().encode(text, add_special_tokens=False).ids
