"""A/B of two builds on one long text encoded on several threads, by thread CPU time.

For a busy machine, where wall-clock ratios of `bench_one_text.py` swing with other jobs:
each round starts one child process per build (alternating which goes first); a child
loads only its build, and on `--per-child` fresh instances (each warmed on other text,
as bench_one_text.py warms them) encodes the text once with `num_threads=1` and once,
on another fresh instance, in parts on `--threads` threads (the cuts tokenforge._cuts
gives).  It reports the medians of: the CPU of the one-thread encode, the CPU summed over
all threads of the parallel one, its busiest thread (from /proc/self/task/*/schedstat),
and both wall times.  Printed per build: the medians over rounds, "extra" = summed CPU /
one-thread CPU - 1 (work the threads repeat, e.g. merges each thread's own cache misses),
and "x" = one-thread CPU / busiest thread (the speed-up on otherwise idle cores if the
threads never waited).  Ids are checked to agree between builds.

    python benchmarks/ab_one_text.py A.so B.so FILE [FILE ...] [--encodings cl100k_base o200k_base]
                                     [--rounds 5] [--per-child 3] [--threads 2] [--mb 4] [--method list|numpy]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import statistics
import subprocess
import sys
import time

from ab_builds import load_native


def thread_cpu() -> dict[str, int]:
    """CPU nanoseconds of each thread of this process."""
    out = {}
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/schedstat") as f:
                out[tid] = int(f.read().split()[0])
        except OSError:
            pass
    return out


def child(so: str, job: str, per_child: int, threads: int, method: str) -> None:
    """Only the build at `so` is loaded (not tokenforge's own module): the text, its cuts and
    the vocabulary come pickled from the parent."""
    import pickle

    with open(job, "rb") as f:
        text, warm, cuts, warm_cuts, ranks, scanner = pickle.load(f)
    native = load_native(so, "build")
    # An instance kept alive with its long-piece tables built (once per vocabulary, lazily,
    # after enough long pieces; see ab_builds.py), so that no measured encode pays for that.
    keeper = native.Encoding(ranks, {}, scanner)
    keeper.encode_ordinary("".join(random.Random(0).choices("abcdefghijklmnopqrstuvwxyz", k=1 << 20)))
    none = native.SpecialSet([])

    def one_thread(enc):
        return enc.encode_to_numpy(text, none) if method == "numpy" else enc.encode_ordinary(text)

    def parts(enc, t, c):
        if method == "numpy":
            return enc.encode_to_numpy(t, none, cuts=c, threads=threads)
        return enc.encode_parts(t, c, None, threads)

    rows, digest = [], set()
    for _ in range(per_child):
        one = native.Encoding(ranks, {}, scanner)
        one.encode_ordinary(warm)
        c0, w0 = time.thread_time(), time.perf_counter()
        ids = one_thread(one)
        c1, w1 = time.thread_time() - c0, time.perf_counter() - w0
        digest.add(hashlib.sha1(ids.tobytes()).hexdigest() if method == "numpy" else hash(tuple(ids)))
        del one, ids
        many = native.Encoding(ranks, {}, scanner)
        parts(many, warm, warm_cuts)
        before, w0 = thread_cpu(), time.perf_counter()
        ids = parts(many, text, cuts)
        wall = time.perf_counter() - w0
        after = thread_cpu()
        used = [(after[t] - before.get(t, 0)) / 1e9 for t in after]
        digest.add(hashlib.sha1(ids.tobytes()).hexdigest() if method == "numpy" else hash(tuple(ids)))
        del many, ids
        rows.append((c1, sum(used), max(used), w1, wall))
    if len(digest) != 1:
        raise SystemExit("threads and one thread disagree")
    print(json.dumps({"rows": [statistics.median(r[i] for r in rows) for i in range(5)], "digest": digest.pop()}))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("files", nargs="+")
    ap.add_argument("--encodings", nargs="+", default=["cl100k_base", "o200k_base"])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--per-child", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--mb", type=float, default=4.0)
    ap.add_argument("--method", choices=["list", "numpy"], default="list",
                    help="encode_ordinary / encode_parts, or encode_to_numpy (one thread and with cuts)")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        return child(args.a, args.files[0], args.per_child, args.threads, args.method)
    import pickle
    import tempfile

    from _common import corpus_text
    from bench_one_text import load

    import tokenforge
    from tokenforge import patterns

    warm = corpus_text("mixed", 400_000)
    print("ms of CPU, medians over rounds; extra = threads' summed CPU / 1 thread - 1; "
          f"x = 1 thread / busiest of {args.threads}; wall ms are busy-machine figures")
    for enc in args.encodings:
        for file in args.files:
            base = tokenforge.get_encoding(enc)
            text = load(file, args.mb)
            job = os.path.join(tempfile.gettempdir(), f"ab_one_text_{os.getpid()}.pkl")
            with open(job, "wb") as f:
                pickle.dump((text, warm, base._parallel_cuts(text, args.threads)[0],
                             base._parallel_cuts(warm, args.threads)[0], dict(base._mergeable_ranks),
                             int(patterns.scanner_for(base._pat_str))), f)
            got = {args.a: [], args.b: []}
            digests = set()
            for r in range(args.rounds):
                for so in ((args.a, args.b) if r % 2 == 0 else (args.b, args.a)):
                    done = subprocess.run(
                        [sys.executable, __file__, so, so, job, "--child",
                         "--per-child", str(args.per_child), "--threads", str(args.threads), "--method", args.method],
                        capture_output=True, text=True, check=False)
                    if done.returncode != 0:
                        raise SystemExit(f"child of {so} failed:\n{done.stderr[-2000:]}")
                    out = json.loads(done.stdout.strip().splitlines()[-1])
                    got[so].append(out["rows"])
                    digests.add(out["digest"])
            os.unlink(job)
            if len(digests) != 1:
                raise SystemExit("the two builds disagree")
            for label, so in (("A", args.a), ("B", args.b)):
                one, total, busiest, wall1, wall = (statistics.median(r[i] for r in got[so]) * 1e3 for i in range(5))
                print(f"{enc} {os.path.basename(file)} {label}: 1 thread {one:.1f} | {args.threads} threads sum "
                      f"{total:.1f} (extra {total / one - 1:+.0%}), busiest {busiest:.1f} -> x{one / busiest:.2f}"
                      f" | wall {wall1:.1f} / {wall:.1f} ms")


if __name__ == "__main__":
    main()
