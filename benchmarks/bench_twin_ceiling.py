"""What a second core can give on this machine: one-thread work alone, and beside a twin.

A two-thread speed-up target (issue 26's "two threads >= 1.6 x our one", issue 30's ">= 1.7 x
our own num_threads=1") assumes that a second core runs the same work as fast as the first.
This measures whether it does here, with no threads at all: the same one-thread workload runs
in one process pinned to a core, alone, and then in two processes at once, pinned to two
cores (nothing shared between them but the hardware: caches, memory, the host).  Phases
alternate (alone, twin, alone, twin, ...) so drift falls on both.  Each encode's thread CPU
time is recorded; printed are the medians alone and beside the twin, and

    ceiling = 2 x alone / twin

the most that two threads of this work can gain over one here, if splitting it cost nothing.
A pure-ALU loop gives about 2.0; work that lives in the shared cache gives less.

Workloads: an encoding name (cl100k_base, ...) runs `encode_ordinary(text, num_threads=1)` on
--mb of the text; `--hf NAME` runs `encode_batch_fast` of ../shared/models/hf/NAME's
tokenizer.json on the text cut into 4 KB documents, ids read, truncation and padding off.

    python benchmarks/bench_twin_ceiling.py TEXT [...] [--encodings cl100k_base o200k_base]
        [--hf gpt2 llama3 ...] [--mb 1] [--seconds 4] [--phases 4] [--cold]

Warm by default (one instance, the text encoded once before timing, so every piece is
cached); --cold makes a fresh instance per encode outside the timing, warmed on 200 kB of mixed.txt,
as the speed rows do (most of a multilingual text's pieces are then merged for the first time).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

from _common import MODELS, corpus_text, documents


def child(args) -> None:
    """Loads the workload, says ready, waits for a line, runs it for --seconds, prints times."""
    text = corpus_text(args.text, int(args.mb * 1_000_000))
    warm = corpus_text("mixed", 200_000)  # what a fresh instance is warmed on (--cold), as the speed rows do
    if args.hf:
        from tokenforge.tokenizer import Tokenizer

        path = str(MODELS / "hf" / f"{args.workload}_tokenizer.json")
        docs = documents(text)

        def fresh():
            tok = Tokenizer.from_file(path)
            tok.no_truncation()
            tok.no_padding()
            tok.encode_batch_fast(documents(warm), num_threads=1)
            return lambda: [e.ids for e in tok.encode_batch_fast(docs, num_threads=1)]
    else:
        import tokenforge

        base = tokenforge.get_encoding(args.workload)

        def fresh():
            enc = tokenforge.Encoding(args.workload, pat_str=base._pat_str, mergeable_ranks=base._mergeable_ranks,
                                      special_tokens={})
            enc.encode_ordinary(warm, num_threads=1)
            return lambda: enc.encode_ordinary(text, num_threads=1)
    work = fresh()
    work()  # warm: every piece cached, as in a long-running job (--cold: a fresh instance per encode)
    print("ready", flush=True)
    sys.stdin.readline()
    times = []
    end = time.perf_counter() + args.seconds
    while time.perf_counter() < end:
        if args.cold:
            work = fresh()
        t0 = time.thread_time()
        work()
        times.append(time.thread_time() - t0)
    print(" ".join(f"{t:.6f}" for t in times), flush=True)


def run_phase(base: list[str], cores: list[int]) -> list[list[float]]:
    """Runs one child per core at once (started together once all are loaded)."""
    procs = [subprocess.Popen(["taskset", "-c", str(c), sys.executable, __file__, *base, "--child"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) for c in cores]
    for p in procs:
        if p.stdout.readline().strip() != "ready":
            raise RuntimeError("a child failed to load its workload")
    for p in procs:
        p.stdin.write("go\n")
        p.stdin.flush()
    out = []
    for p in procs:
        line = p.stdout.readline()
        p.wait()
        out.append([float(x) for x in line.split()])
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("texts", nargs="+", help="corpus names of ../shared/corpus or paths")
    ap.add_argument("--encodings", nargs="*", default=["cl100k_base", "o200k_base"])
    ap.add_argument("--hf", nargs="*", default=[], help="tokenizer.json names of ../shared/models/hf")
    ap.add_argument("--mb", type=float, default=1.0)
    ap.add_argument("--seconds", type=float, default=4.0)
    ap.add_argument("--phases", type=int, default=4, help="alone/twin pairs of phases")
    ap.add_argument("--cold", action="store_true", help="a fresh instance per encode (made outside the timing)")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--workload", help=argparse.SUPPRESS)
    ap.add_argument("--child-hf", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        args.text, args.hf = args.texts[0], args.child_hf
        return child(args)
    cores = sorted(os.sched_getaffinity(0))
    if len(cores) < 2:
        sys.exit("needs two usable cores")
    workloads = [(name, False) for name in args.encodings] + [(name, True) for name in args.hf]
    print(f"cores {cores[0]} and {cores[1]}; {args.phases} alone/twin phase pairs of {args.seconds:g} s; "
          f"{'a fresh instance per encode' if args.cold else 'warm instances'}; thread CPU ms per encode, medians")
    for text in args.texts:
        for name, hf in workloads:
            base = [text, "--workload", name, "--mb", str(args.mb), "--seconds", str(args.seconds)]
            if args.cold:
                base.append("--cold")
            if hf:
                base.append("--child-hf")
            alone, twin = [], []
            for _ in range(args.phases):
                alone += run_phase(base, cores[:1])[0]
                for times in run_phase(base, cores[:2]):
                    twin += times
            a, t = statistics.median(alone), statistics.median(twin)
            label = f"{'hf ' if hf else ''}{name}"
            print(f"{label:28} {os.path.basename(text):18} alone {a * 1e3:7.2f}  twin {t * 1e3:7.2f}  "
                  f"ceiling {2 * a / t:.2f}x  ({len(alone)} / {len(twin)} encodes)", flush=True)


if __name__ == "__main__":
    main()
