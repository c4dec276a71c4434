"""Offsets of `Tokenizer.from_gguf` for ``t5`` and ``bert`` against HF `tokenizers`, wherever the
ids agree: ruT5 (its tokenizer.json written as a GGUF) and llama.cpp's bert-bge vocabulary
(all-MiniLM's tokenizer.json has the same vocabulary), on lines of the four corpus
samples -- 6000 of the adversarial `mixed` (every line: benchmarks/gguf_corpus_parity.py): charsmap expansions cut across tokens,
characters the charsmap deletes, marks inside unknown words, NBSP -- and on hypothesis text
drawn from every code point.

A line where tokenforge's own tokenizer.json BERT path (the engine the GGUF's offsets are
aligned with, :mod:`tokenforge.gguf.hf_mirror`) also differs from `tokenizers` would be a
tokenizer.json-side fault ('json'); there are none on the samples either."""

from __future__ import annotations

import functools

import pytest
from _gguf import bert_reference, need_gguf, vocab_path
from _shared import MODELS, corpus_sample
from hypothesis import given, settings
from hypothesis import strategies as st

import tokenforge

HF = MODELS / "hf"
_LINES = {"en": 800, "code": 800, "multi": 800, "mixed": 6000}  # lines compared, evenly spaced


@functools.lru_cache(maxsize=None)
def _pair(model: str, tmp: str):
    tokenizers = pytest.importorskip("tokenizers")
    if model == "t5":
        tokenforge.Tokenizer.from_file(HF / "rut5_tokenizer.json").to_gguf(f"{tmp}/rut5.gguf")
        ref = tokenizers.Tokenizer.from_file(str(HF / "rut5_tokenizer.json"))
        return tokenforge.Tokenizer.from_gguf(f"{tmp}/rut5.gguf"), ref, None
    ours_json = tokenforge.Tokenizer.from_file(HF / "minilm_bert_uncased_tokenizer.json")
    ours_json.no_padding()
    ours_json.no_truncation()
    return tokenforge.Tokenizer.from_gguf(vocab_path("bert-bge")), bert_reference(), ours_json


@pytest.fixture(scope="module")
def tmp(tmp_path_factory):
    need_gguf()
    return str(tmp_path_factory.mktemp("offsets"))


def _check(tok, ref, ours_json, line) -> str:
    """'same', 'ids' (ids differ: not compared), 'json' (left out, see the docstring) or 'wrong'."""
    ours, theirs = tok.encode(line, add_special_tokens=False), ref.encode(line, add_special_tokens=False)
    if ours.ids != theirs.ids:
        return "ids"
    if ours.offsets == [tuple(o) for o in theirs.offsets]:
        return "same"
    if ours_json is not None and ours_json.encode(line, add_special_tokens=False).offsets != ours.offsets:
        return "wrong"
    return "json" if ours_json is not None else "wrong"


@pytest.mark.parametrize("model", ["t5", "bert"])
@pytest.mark.parametrize("corpus", ["en", "code", "multi", "mixed"])
def test_offsets_equal_tokenizers_where_ids_agree(model, corpus, tmp):
    tok, ref, ours_json = _pair(model, tmp)
    results = {"same": 0, "ids": 0, "json": 0, "wrong": []}
    lines = corpus_sample(corpus).split("\n")
    for line in lines[:: max(1, len(lines) // _LINES[corpus])]:
        kind = _check(tok, ref, ours_json, line)
        if kind == "wrong":
            results["wrong"].append(line)
        else:
            results[kind] += 1
    assert not results["wrong"], f"{len(results['wrong'])} lines differ; first: {results['wrong'][0]!r}"
    assert results["same"] > results["ids"], results
    assert results["json"] == 0, results


@settings(max_examples=200, deadline=None)
@given(text=st.text(st.characters(blacklist_categories=("Cs",)), max_size=40))
@pytest.mark.parametrize("model", ["t5", "bert"])
def test_offsets_on_hypothesis_text(model, text, tmp):
    tok, ref, ours_json = _pair(model, tmp)
    assert _check(tok, ref, ours_json, text) != "wrong"
