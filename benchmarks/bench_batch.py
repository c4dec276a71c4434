"""Batch encode throughput: tokenforge's encode_ordinary_batch vs fastokens' encode_batch (and
tiktoken's batch with --tiktoken), ~4 KB documents, in one process, alternating tools.

bench_encode.py's batch2 rows, with more repetitions and a one-thread mode: every timed
call gets a fresh instance of each tool warmed on a batch of other text (the first 400 kB
of mixed.txt), as there, so no repetition profits from having seen the timed text.  Prints
the best of --repeat per tool and the ratio tokenforge / peer.

--threads 1 re-runs itself in a child pinned to one core with RAYON_NUM_THREADS=1, so
fastokens' pool has one thread too.  On a machine shared with other jobs the two-thread
figures swing by a third; `chrt -f 1 python benchmarks/bench_batch.py` (as root) gives the
run both cores for its short duration (see bench_spm.py).

Usage:
    python benchmarks/bench_batch.py [--threads 2] [--files en code multi] [--repeat 5] [--tiktoken]
"""

from __future__ import annotations

import argparse
import gc
import os
import subprocess
import sys
import time

from _common import MODELS, corpus_text, documents

import tokenforge
from tokenforge import patterns

# As in bench_encode.py: fastokens gets the spelling of each pattern it runs fastest.
PATTERN_FOR_FASTOKENS = {"cl100k_base": patterns.LLAMA3, "o200k_base": patterns.O200K}


def factories(name: str, threads: int, with_tiktoken: bool) -> dict:
    """tool name -> function making a fresh batch function (docs -> list of id lists)."""
    ours = tokenforge.get_encoding(name)

    def fresh_ours():
        enc = tokenforge.Encoding(name, pat_str=ours._pat_str, mergeable_ranks=ours._mergeable_ranks, special_tokens={})
        return lambda docs: enc.encode_ordinary_batch(docs, num_threads=threads)

    tools = {"tokenforge": fresh_ours}
    try:
        import fastokens

        def fresh_fastokens():
            path = str(MODELS / "tiktoken" / f"{name}.tiktoken")
            tok = fastokens.Tokenizer.from_tiktoken(path, pattern=PATTERN_FOR_FASTOKENS[name], special_tokens={})
            return lambda docs: [e.ids for e in tok.encode_batch(docs)]

        tools["fastokens"] = fresh_fastokens
    except ImportError:
        pass
    if with_tiktoken:
        import tiktoken

        def fresh_tiktoken():
            ref = tiktoken.Encoding(name, pat_str=ours._pat_str, mergeable_ranks=ours._mergeable_ranks, special_tokens={})
            return lambda docs: ref.encode_ordinary_batch(docs, num_threads=threads)

        tools["tiktoken"] = fresh_tiktoken
    return tools


def run(args) -> None:
    warm = documents(corpus_text("mixed", 400_000))
    print(f"## batch of ~4 KB documents, {args.threads} thread(s), MB/s (best of {args.repeat}); ratio = tokenforge / peer")
    for name in args.encodings:
        tools = factories(name, args.threads, args.tiktoken)
        for f in args.files:
            text = corpus_text(f, args.max_bytes)
            docs = documents(text)
            mb = len(text.encode("utf-8")) / 1e6
            want = None
            best = dict.fromkeys(tools, float("inf"))
            for _ in range(args.repeat):
                for tool, make in tools.items():
                    batch = make()
                    batch(warm)
                    gc.collect()
                    t0 = time.perf_counter()
                    got = batch(docs)
                    best[tool] = min(best[tool], time.perf_counter() - t0)
                    if tool == "tokenforge":
                        want = want or got
                    elif got != want:
                        print(f"   !! {tool} output differs from tokenforge's on {f}")
                    del got
            speeds = {t: mb / s for t, s in best.items()}
            ratios = " ".join(f"{t}={speeds['tokenforge'] / v:.2f}x" for t, v in speeds.items() if t != "tokenforge")
            cells = " ".join(f"{t} {v:6.1f}" for t, v in speeds.items())
            print(f"{name:12} {f:6} {cells}   {ratios}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--files", nargs="+", default=["en", "code", "multi"])
    ap.add_argument("--encodings", nargs="+", default=["cl100k_base", "o200k_base"])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--max-bytes", type=int, default=4_000_000)
    ap.add_argument("--tiktoken", action="store_true", help="also time tiktoken's encode_ordinary_batch")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.threads == 1 and not args.child:
        # One core for every tool, set before any tool (or Rust thread pool) exists.
        env = dict(os.environ, RAYON_NUM_THREADS="1")
        subprocess.run([sys.executable, os.path.abspath(__file__), "--child", *sys.argv[1:]], env=env, check=True)
        return
    if args.child and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    run(args)


if __name__ == "__main__":
    main()
