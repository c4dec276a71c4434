"""tokenizer.json throughput: tokenforge.tokenizer.Tokenizer vs HF tokenizers vs fastokens.

Same ~4 KB documents of each corpus for every tool, in one process; every timed repetition of
every row gets a fresh instance of each tool (loaded before the clock starts) warmed on a batch of other
text (the first 200 kB of mixed.txt); best of --repeat.  Rows, per file and corpus (MB/s):

  single      encode() per document, every Encoding's offsets read (tokenizers: encode)
  batch       encode_batch(docs), offsets read
  fast        encode_batch_fast(docs) ids (fastokens: encode_batch ids)

Truncation and padding are off for every tool (fastokens, too, applies a file's own: GPT-2's
truncates at 50 tokens), and the fast rows' ids are compared with tokenizers' once: a row
whose ids differ says so, since its ratio would time different work.

Ratios printed: ours / tokenizers (single, batch) and ours fast / fastokens.  --threads 1
(the default) re-runs itself pinned to one core with RAYON_NUM_THREADS=1 so the Rust pools have
one thread; timing is thread CPU time where the tool runs in this thread (time.thread_time
would miss Rust worker threads, so wall time is used and the run pinned instead).  On a busy
machine, --clock process times CPU time of the whole process (every thread, Rust's too: with
one core and one worker, the work of the row alone) instead of wall time.

Usage:
    python benchmarks/bench_hf_json.py [--files gpt2 llama3 ...] [--corpora en code multi] [--repeat 3] [--mb 0.5]
        [--clock wall|process]
"""

from __future__ import annotations

import argparse
import gc
import os
import subprocess
import sys
import time

from _common import MODELS, corpus_text, documents

FILES = ["gpt2", "llama3", "llama3_1", "cl100k_base_converted", "o200k_base_converted", "gpt35turbo", "claude",
         "qwen3", "deepseek_v3", "mistral_v1", "gemma", "minilm_bert_uncased", "rut5"]


def tools(path: str, threads: int) -> dict:
    """tool -> function making (row -> fn(docs)) for a fresh, warmed instance."""
    import tokenizers

    from tokenforge.tokenizer import Tokenizer

    warm = documents(corpus_text("mixed", 200_000))

    def fresh_ours():
        t = Tokenizer.from_file(path)
        t.no_truncation()
        t.no_padding()
        t.encode_batch(warm)
        return {"single": lambda docs: [t.encode(d).offsets for d in docs],
                "batch": lambda docs: [e.offsets for e in t.encode_batch(docs, num_threads=threads)],
                "fast": lambda docs: [e.ids for e in t.encode_batch_fast(docs, num_threads=threads)]}

    def fresh_hf():
        t = tokenizers.Tokenizer.from_file(path)
        t.no_truncation()
        t.no_padding()
        t.encode_batch(warm)
        return {"single": lambda docs: [t.encode(d).offsets for d in docs],
                "batch": lambda docs: [e.offsets for e in t.encode_batch(docs)],
                "fast": lambda docs: [e.ids for e in t.encode_batch_fast(docs)]}

    out = {"tokenforge": fresh_ours, "tokenizers": fresh_hf}
    try:
        import fastokens

        fastokens.Tokenizer.from_file(path)

        def fresh_fastokens():
            t = fastokens.Tokenizer.from_file(path)
            # fastokens applies a file's own truncation and padding too (GPT-2's truncates at 50
            # tokens): turned off where the file sets them, and only there.
            if t.truncation is not None:
                t.no_truncation()
            if t.padding is not None:
                t.no_padding()
            t.encode_batch(warm)
            return {"fast": lambda docs: [e.ids for e in t.encode_batch(docs)]}

        out["fastokens"] = fresh_fastokens
    except Exception:  # not installed, or it refuses the file (BertNormalizer, Precompiled, NFKC)
        pass
    return out


def run(args) -> None:
    clock = time.process_time if args.clock == "process" else time.perf_counter
    for name in args.files:
        path = str(MODELS / "hf" / f"{name}_tokenizer.json")
        makers = tools(path, args.threads)
        row_names = {tool: list(make()) for tool, make in makers.items()}
        for corpus in args.corpora:
            docs = documents(corpus_text(corpus, int(args.mb * 1_000_000)))
            size = sum(len(d.encode("utf-8")) for d in docs) / 1e6
            best: dict[tuple[str, str], float] = {}
            fast_ids: dict[str, list] = {}  # each tool's fast-row ids, from the first repetition
            for rep in range(args.repeat):
                for tool, make in makers.items():
                    for row in row_names[tool]:  # a fresh instance per row: no row meets another's caches
                        if tool == "tokenizers" and row == "single" and args.skip_hf_single:
                            continue
                        fn = make()[row]
                        gc.collect()
                        t0 = clock()
                        out = fn(docs)
                        dt = clock() - t0
                        best[(tool, row)] = min(best.get((tool, row), dt), dt)
                        if rep == 0 and row == "fast":
                            fast_ids[tool] = out
                        del out
            mbs = {k: size / v for k, v in best.items()}
            line = [f"{name:24} {corpus:6}"]
            for tool, row in sorted(mbs):
                line.append(f"{tool}.{row} {mbs[(tool, row)]:7.1f}")
            ratios = []
            for row in ("single", "batch"):
                if ("tokenizers", row) in mbs:
                    ratios.append(f"{row} x{mbs[('tokenforge', row)] / mbs[('tokenizers', row)]:.1f} HF")
            if ("fastokens", "fast") in mbs:
                ratios.append(f"fast x{mbs[('tokenforge', 'fast')] / mbs[('fastokens', 'fast')]:.2f} fastokens")
            differ = sorted(tool for tool, ids in fast_ids.items() if ids != fast_ids["tokenizers"])
            if differ:  # a ratio over different work means nothing: say so on the row
                ratios.append("IDS DIFFER from tokenizers: " + ", ".join(differ))
            print("  ".join(line), "|", ", ".join(ratios), flush=True)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--files", nargs="+", default=FILES)
    p.add_argument("--corpora", nargs="+", default=["en", "code", "multi"])
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--mb", type=float, default=0.5, help="MB of each corpus to cut into 4 KB documents")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--skip-hf-single", action="store_true")
    p.add_argument("--clock", choices=["wall", "process"], default="wall",
                   help="wall time (default) or the process's CPU time (a busy machine)")
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.threads == 1 and not args.child and hasattr(os, "sched_setaffinity"):
        env = dict(os.environ, RAYON_NUM_THREADS="1", TOKENFORGE_THREADS="1")
        cmd = ["taskset", "-c", str(min(os.sched_getaffinity(0))), sys.executable, __file__, "--child", *sys.argv[1:]]
        sys.exit(subprocess.call(cmd, env=env))
    run(args)


if __name__ == "__main__":
    main()
