"""A/B of two builds of the native module in one process, alternating call by call.

On a shared machine, thread-CPU time drifts by a third over tens of seconds (other jobs,
clock changes), so two builds timed in turn by separate processes often disagree by more
than the change being measured.  This script loads both builds into one process and
alternates them: each round gives every build a fresh instance (warmed on other text, as
bench_encode.py does) and times one encode of the same text; the per-round ratio cancels
the drift and the median of the rounds is printed.

Build each tree with its own nanobind domain, so the two modules can be loaded side by
side (they define the same C++ types):

    cmake -S TREE -B TREE/build/ab -G Ninja -DCMAKE_BUILD_TYPE=Release -DTOKENFORGE_NB_DOMAIN=tfa
    cmake --build TREE/build/ab

Usage:
    taskset -c 1 python benchmarks/ab_builds.py A.so B.so FILE [--encoding cl100k_base]
                                                [--rounds 15] [--mode cold|warm|count]
"""

from __future__ import annotations

import argparse
import importlib.machinery
import importlib.util
import statistics
import time

from _common import corpus_text

import tokenforge
from tokenforge import patterns


def load_native(path: str, package: str):
    """The extension module at `path`, imported as `package`._native."""
    name = f"{package}._native"
    loader = importlib.machinery.ExtensionFileLoader(name, path)
    spec = importlib.util.spec_from_file_location(name, path, loader=loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("file")
    ap.add_argument("--encoding", default="cl100k_base")
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--mode", choices=["cold", "warm", "count"], default="cold")
    args = ap.parse_args()
    with open(args.file, encoding="utf-8") as f:
        text = f.read()
    warm = corpus_text("mixed", 400_000)
    base = tokenforge.get_encoding(args.encoding)
    ranks = base._mergeable_ranks
    scanner = int(patterns.scanner_for(base._pat_str))
    natives = [load_native(args.a, "build_a"), load_native(args.b, "build_b")]

    def timed(native):
        enc = native.Encoding(ranks, {}, scanner)
        enc.encode_ordinary(warm)
        if args.mode == "warm":
            enc.encode_ordinary(text)
        if args.mode == "count":
            none = native.SpecialSet([])
            return _time(lambda: enc.count(text, none))
        return _time(lambda: enc.encode_ordinary(text))

    ids = [n.Encoding(ranks, {}, scanner).encode_ordinary(text) for n in natives]
    if ids[0] != ids[1]:
        raise SystemExit("the two builds disagree on this text")
    ratios = []
    for r in range(args.rounds):
        order = natives if r % 2 == 0 else natives[::-1]
        t = {id(n): timed(n) for n in order}
        ratios.append(t[id(natives[0])] / t[id(natives[1])])
    mb = len(text.encode()) / 1e6
    print(f"{args.encoding} {args.file} {args.mode}: B/A speed median {statistics.median(ratios):.3f} "
          f"(quartiles {statistics.quantiles(ratios, n=4)[0]:.3f}..{statistics.quantiles(ratios, n=4)[2]:.3f}, "
          f"{args.rounds} rounds, {mb:.2f} MB)")


def _time(fn):
    t0 = time.thread_time()
    fn()
    return time.thread_time() - t0


if __name__ == "__main__":
    main()
