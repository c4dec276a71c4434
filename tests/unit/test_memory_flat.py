"""RSS stays flat over repeated calls of every encode/decode entry point, error paths
included: the table of benchmarks/memory_flat.py (which runs 10^6 calls of each), here with
a few thousand calls after a warm-up.  A leak of one Python object per call (a list, an
exception's bytes) shows as megabytes; the threshold leaves room for allocator noise.

Left out: the 10^6-call run (minutes: benchmarks/memory_flat.py) and concurrent callers
(test_threads.py).
"""

from __future__ import annotations

import gc

import pytest
from _shared import MODELS, benchmark_module, corpus_sample, need_shared, under_sanitizer

import tokenforge

CALLS = 3000
SLACK = 4 << 20  # bytes of RSS growth tolerated over CALLS calls (a leak of ~1.4 KB a call)

pytestmark = pytest.mark.skipif(under_sanitizer(), reason="RSS under ASan holds its quarantine and shadow memory")


@pytest.fixture(scope="module")
def table():
    need_shared()
    bench = benchmark_module("memory_flat")
    lines = [line for line in corpus_sample("multi").splitlines() if line][:500]
    spm = MODELS / "sentencepiece"
    enc = tokenforge.get_encoding("cl100k_base")
    sp_bpe = tokenforge.SentencePieceProcessor(model_file=str(spm / "llama2_tokenizer.model"))
    sp_unigram = tokenforge.SentencePieceProcessor(model_file=str(spm / "botchan_en_unigram_1000.model"))
    return bench, bench.entry_points(enc, sp_bpe, sp_unigram, lines)


ENTRY_POINTS = [
    "encode_ordinary", "encode allowed=all", "encode disallowed (error)", "count_tokens", "encode_to_numpy",
    "encode_with_unstable", "_encode_bytes", "encode_single_token", "encode_single_token (error)", "encode_batch x8",
    "encode_ordinary_batch x8", "decode", "decode_bytes", "decode_with_offsets", "decode_tokens_bytes",
    "decode_single_token_bytes", "decode unknown id (error)", "decode_batch x8", "spm encode",
    "spm encode str +bos/eos", "spm encode immutable_proto", "spm encode batch x8", "spm decode ids",
    "spm decode pieces", "spm decode bad id (error)", "spm unigram sample", "spm unigram nbest 4",
    "spm unigram entropy", "spm normalize offsets",
]


def test_table_names_every_entry_point(table):
    assert list(table[1]) == ENTRY_POINTS


def assert_flat(bench, name: str, call, n: int, rounds: int = 3) -> None:
    """Rounds of n calls: the first fills caches and the allocator's pools; one of the next
    `rounds` must not grow.  A leak grows in every round; a piece cache that was left nearly
    full by earlier tests in this process (get_encoding's instance is shared) may be cleared
    and refilled in one round, which shows as growth once."""
    bench.measure(call, n)
    grown = []
    for _ in range(rounds):
        gc.collect()
        start, _, end = bench.measure(call, n)
        grown.append((end - start) >> 10)
        if end - start < SLACK:
            return
    raise AssertionError(f"{name}: RSS grew in each of {rounds} rounds of {n} calls (KB: {grown})")


@pytest.mark.parametrize("name", ENTRY_POINTS)
def test_rss_flat(table, name):
    bench, calls = table
    assert_flat(bench, name, calls[name], max(CALLS // bench.FEWER_CALLS.get(name, 1), 300))


@pytest.fixture(scope="module")
def hf_table():
    need_shared()
    bench = benchmark_module("memory_flat")
    lines = [line for line in corpus_sample("multi").splitlines() if line][:200]
    hf = MODELS / "hf"
    toks = {name: tokenforge.Tokenizer.from_file(str(hf / f"{file}_tokenizer.json"))
            for name, file in bench.HF_FILES.items()}
    return bench, bench.hf_entry_points(toks, lines)


HF_KINDS = ["encode", "encode pair", "encode trunc+pad", "encode_batch x8", "encode_batch_fast x8", "decode",
            "decode_batch x8", "DecodeStream.step", "decode bad id (error)"]
HF_ENTRY_POINTS = [f"hf {model} {kind}" for model in ("gpt2", "minilm", "mistral", "rut5") for kind in HF_KINDS]
HF_ENTRY_POINTS.append("from_str malformed (error)")


def test_hf_table_names_every_entry_point(hf_table):
    assert list(hf_table[1]) == HF_ENTRY_POINTS


@pytest.mark.parametrize("name", HF_ENTRY_POINTS)
def test_hf_rss_flat(hf_table, name):
    bench, calls = hf_table
    assert_flat(bench, name, calls[name], 1000)
