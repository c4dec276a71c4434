"""Single-thread encode_ordinary in thread CPU time, tokenforge vs fastokens, in one process.

bench_encode.py times wall clock, which swings by a third on a machine shared with other
jobs; this script times each call with time.thread_time() (best of N), so A/B decisions
between two builds hold up under load.  Run it pinned (`taskset -c 1`).  As in
bench_encode.py every timed call gets a fresh instance warmed on other text ("cold"); the
"warm" column reuses one instance that has seen the timed text (piece caches full).  The
last column is count_tokens speed / encode_ordinary speed on fresh instances.

Usage:
    taskset -c 1 python benchmarks/bench_encode_cpu.py [--files en code multi] [--repeat 5]
"""

from __future__ import annotations

import argparse
import time

from _common import MODELS, corpus_text

import tokenforge
from tokenforge import patterns


def best_cpu(n, fn, setup):
    best = float("inf")
    for _ in range(n):
        state = setup()
        t0 = time.thread_time()
        fn(state)
        best = min(best, time.thread_time() - t0)
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", nargs="+", default=["en", "code", "multi"])
    ap.add_argument("--encodings", nargs="+", default=["cl100k_base", "o200k_base"])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--max-bytes", type=int, default=4_000_000)
    args = ap.parse_args()
    warm_text = corpus_text("mixed", 400_000)
    try:
        import fastokens
    except ImportError:
        fastokens = None
    print(f"{'encoding':12} {'file':6} {'cold':>7} {'warm':>7} {'fastok':>7} {'ratio':>6} {'count/enc':>9}  (MB/s)")
    for name in args.encodings:
        ours = tokenforge.get_encoding(name)
        pattern = patterns.LLAMA3 if name == "cl100k_base" else patterns.O200K

        def fresh():
            e = tokenforge.Encoding(name, pat_str=ours._pat_str, mergeable_ranks=ours._mergeable_ranks, special_tokens={})
            e.encode_ordinary(warm_text)
            return e

        def fresh_fastokens():
            path = str(MODELS / "tiktoken" / f"{name}.tiktoken")
            t = fastokens.Tokenizer.from_tiktoken(path, pattern=pattern, special_tokens={})
            t.encode_ordinary(warm_text)
            return t

        for f in args.files:
            text = corpus_text(f, args.max_bytes)
            mb = len(text.encode("utf-8")) / 1e6
            ours.encode_ordinary(text)
            cold = best_cpu(args.repeat, lambda e: e.encode_ordinary(text), fresh)
            warm = best_cpu(args.repeat, lambda e: e.encode_ordinary(text), lambda: ours)
            count = best_cpu(args.repeat, lambda e: e.count_tokens(text), fresh)
            peer = best_cpu(args.repeat, lambda t: t.encode_ordinary(text).ids, fresh_fastokens) if fastokens else float("nan")
            print(f"{name:12} {f:6} {mb / cold:7.1f} {mb / warm:7.1f} {mb / peer:7.1f} {peer / cold:6.2f} {cold / count:9.2f}",
                  flush=True)


if __name__ == "__main__":
    main()
