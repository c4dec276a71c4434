"""A/B of two builds of the native module: child processes of each build, in turn.

Each round starts one child process per build (in alternating order) that loads only its
build, makes `--per-child` fresh instances (each warmed on other text, as bench_encode.py
does, beside one kept instance whose long-piece tables are built) and reports the thread-CPU time of the median encode; a round's ratio A/B cancels
the machine's drift over tens of seconds, and the median over the rounds is printed.

Why not both builds in one process, alternating call by call: tried, and there the build
that ran second encoded a fresh instance up to 2.5 times faster than the first, whichever
build that was (cold cl100k on multilingual text; something one module leaves warm for
the other, in the allocator or the kernel), so the in-process ratios split into two modes.
One build per process keeps every measurement in the same state a user's process is in.

Build each tree into its own folder:

    cmake -S TREE -B TREE/build/ab -G Ninja -DCMAKE_BUILD_TYPE=Release
    cmake --build TREE/build/ab

Usage:
    taskset -c 0 python benchmarks/ab_builds.py A.so B.so FILE [--encoding cl100k_base]
                                                [--rounds 9] [--mode cold|warm|count]
"""

from __future__ import annotations

import argparse
import importlib.machinery
import importlib.util
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time


def load_native(path: str, package: str):
    """The extension module at `path`, imported as `package`._native."""
    name = f"{package}._native"
    loader = importlib.machinery.ExtensionFileLoader(name, path)
    spec = importlib.util.spec_from_file_location(name, path, loader=loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def child(so: str, inputs: str, mode: str, per_child: int) -> None:
    """Prints (as JSON) the thread-CPU seconds of the median of `per_child` encodes and a
    digest of the ids, with only the build at `so` loaded: the text, the warm-up text and
    the vocabulary come pickled from the parent (importing tokenforge here would load its
    own module first, and nanobind then refuses the build's types of the same names)."""
    import pickle

    with open(inputs, "rb") as f:
        text, warm, ranks, pat, parent_scanner = pickle.load(f)
    native = load_native(so, "build")
    scanner = int(native.scanner_for(pat)) if hasattr(native, "scanner_for") else parent_scanner
    # An instance kept alive with its long-piece tables built (they are built once per
    # vocabulary, lazily, after enough long pieces), so that each fresh instance below
    # starts with cold piece caches but does not time that one-off build.
    keeper = native.Encoding(ranks, {}, scanner)
    rng = random.Random(0)
    keeper.encode_ordinary("".join(rng.choices("abcdefghijklmnopqrstuvwxyz", k=1 << 20)))
    times, digest = [], None
    for _ in range(per_child):
        enc = native.Encoding(ranks, {}, scanner)
        enc.encode_ordinary(warm)
        if mode == "warm":
            enc.encode_ordinary(text)
        t0 = time.thread_time()
        if mode == "count":
            out = enc.count(text, native.SpecialSet([]))
        else:
            out = enc.encode_ordinary(text)
        times.append(time.thread_time() - t0)
        digest = hash(out if isinstance(out, int) else tuple(out))
        del enc
    print(json.dumps({"t": statistics.median(times), "digest": digest}))


def write_inputs(args, path: str) -> None:
    """Pickles what every child needs (text, warm-up text, ranks, pattern, scanner) into `path`."""
    import pickle

    from _common import corpus_text

    import tokenforge
    from tokenforge import patterns

    with open(args.file, encoding="utf-8") as f:
        text = f.read()
    base = tokenforge.get_encoding(args.encoding)
    pat = base._pat_str
    with open(path, "wb") as f:
        pickle.dump((text, corpus_text("mixed", 400_000), dict(base._mergeable_ranks), pat,
                     int(patterns.scanner_for(pat))), f)


def run_child(so: str, args) -> dict:
    done = subprocess.run(
        [sys.executable, __file__, "--child", so, args.inputs, "--mode", args.mode,
         "--per-child", str(args.per_child)],
        capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"child of {so} failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("a")
    ap.add_argument("b", nargs="?")
    ap.add_argument("file", nargs="?")
    ap.add_argument("--encoding", default="cl100k_base")
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--per-child", type=int, default=3)
    ap.add_argument("--mode", choices=["cold", "warm", "count"], default="cold")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        return child(args.a, args.b, args.mode, args.per_child)
    builds = [args.a, args.b]
    ratios, digests = [], set()
    with tempfile.TemporaryDirectory() as d:
        args.inputs = os.path.join(d, "inputs.pickle")
        write_inputs(args, args.inputs)
        for r in range(args.rounds):
            t = {}
            for so in (builds if r % 2 == 0 else builds[::-1]):
                got = run_child(so, args)
                t[so] = got["t"]
                digests.add(got["digest"])
            ratios.append(t[args.a] / t[args.b])
    if len(digests) != 1:
        raise SystemExit("the two builds disagree on this text")
    q = statistics.quantiles(ratios, n=4)
    with open(args.file, encoding="utf-8") as f:
        mb = len(f.read().encode()) / 1e6
    print(f"{args.encoding} {args.file} {args.mode}: B/A speed median {statistics.median(ratios):.3f} "
          f"(quartiles {q[0]:.3f}..{q[2]:.3f}, {args.rounds} rounds x {args.per_child}, {mb:.2f} MB)")


if __name__ == "__main__":
    main()
