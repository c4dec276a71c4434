"""Shared helpers for the GGUF tests: llama.cpp's test vocabularies, loaded once per session."""

from __future__ import annotations

import functools

import pytest
from _shared import MODELS, need_shared

GGUF_DIR = MODELS / "gguf"
# llama.cpp's test vocabularies (SentencePiece BPE, byte-level BPE with five pre, WordPiece).
VOCABS = ["llama-spm", "phi-3", "gpt-2", "llama-bpe", "qwen2", "deepseek-coder", "starcoder", "bert-bge"]
SEPARATOR = "\n__ggml_vocab_test__\n"


def need_gguf():
    """The `gguf` package and the shared files, or a skip."""
    need_shared()
    return pytest.importorskip("gguf")


def vocab_path(name: str):
    return GGUF_DIR / f"ggml-vocab-{name}.gguf"


@functools.lru_cache(maxsize=None)
def read(name: str):
    """The GGUFVocab of a test vocabulary (read once per session)."""
    from tokenforge.gguf import read_vocab

    return read_vocab(vocab_path(name))


@functools.lru_cache(maxsize=None)
def tokenizer(name: str):
    """The GGUFTokenizer of a test vocabulary (built once per session)."""
    from tokenforge.gguf import GGUFTokenizer

    return GGUFTokenizer(read(name))


def vectors(name: str) -> list[tuple[str, list[int]]]:
    """llama.cpp's test strings and the ids transformers gives them (add_special_tokens=False)."""
    inp = (GGUF_DIR / f"ggml-vocab-{name}.gguf.inp").read_text(encoding="utf-8").split(SEPARATOR)
    out = (GGUF_DIR / f"ggml-vocab-{name}.gguf.out").read_text(encoding="utf-8").split("\n")
    assert len(out) >= len(inp)
    return [(text, [int(x) for x in ids.split()]) for text, ids in zip(inp, out)]



def bert_reference():
    """HF `tokenizers` on all-MiniLM-L6-v2's tokenizer.json (bert-base-uncased's vocabulary,
    the one of the bert-bge test vocabulary), padding and truncation off; or a skip."""
    tokenizers = pytest.importorskip("tokenizers")
    ref = tokenizers.Tokenizer.from_file(str(MODELS / "hf" / "minilm_bert_uncased_tokenizer.json"))
    ref.no_padding()
    ref.no_truncation()
    return ref
