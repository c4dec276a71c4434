"""Resident memory over many calls of each encode/decode entry point (issue 32, item 4):
RSS after a warm-up, its peak, and its end, per entry point, for cl100k_base and a
SentencePiece model.  Growth beyond the warm-up means a leak (the piece caches are bounded
and full after the warm-up).  Not a test: it takes minutes.

    python benchmarks/memory_flat.py [CALLS]    # default 1,000,000 per entry point
"""

from __future__ import annotations

import gc
import os
import sys

from _common import MODELS, corpus_text

import tokenforge


def rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def measure(name: str, call, calls: int) -> None:
    for i in range(min(calls // 10, 20_000)):  # warm-up: caches fill
        call(i)
    gc.collect()
    start = peak = rss_mb()
    for i in range(calls):
        call(i)
        if i % 10_000 == 0:
            peak = max(peak, rss_mb())
    gc.collect()
    end = rss_mb()
    print(f"{name:28s} start {start:8.1f} MB  peak {peak:8.1f} MB  end {end:8.1f} MB  growth {end - start:+7.1f} MB")


def main() -> None:
    calls = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    lines = [line for line in corpus_text("multi", 2_000_000).splitlines() if line][:5000]
    enc = tokenforge.get_encoding("cl100k_base")
    ids = [enc.encode_ordinary(line) for line in lines]
    sp = tokenforge.SentencePieceProcessor(model_file=str(MODELS / "sentencepiece" / "llama2_tokenizer.model"))
    n = len(lines)
    print(f"{calls} calls per entry point, {n} distinct lines")
    measure("encode_ordinary", lambda i: enc.encode_ordinary(lines[i % n]), calls)
    measure("encode (allowed all)", lambda i: enc.encode(lines[i % n], allowed_special="all"), calls)
    measure("count_tokens", lambda i: enc.count_tokens(lines[i % n]), calls)
    measure("encode_to_numpy", lambda i: enc.encode_to_numpy(lines[i % n]), calls)
    measure("decode", lambda i: enc.decode(ids[i % n]), calls)
    measure("decode_bytes", lambda i: enc.decode_bytes(ids[i % n]), calls)
    measure("encode_ordinary_batch x16", lambda i: enc.encode_ordinary_batch(lines[i % n:i % n + 16], num_threads=2),
            calls // 16)
    measure("spm encode", lambda i: sp.encode(lines[i % n]), calls)
    measure("spm encode str", lambda i: sp.encode(lines[i % n], out_type=str), calls)
    measure("spm decode", lambda i: sp.decode(sp.encode(lines[i % n])), calls // 2)


if __name__ == "__main__":
    main()
