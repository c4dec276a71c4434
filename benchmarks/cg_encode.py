"""Instruction and cache-miss counts of one cold encode, under callgrind: exact and repeatable
whatever else the machine runs, so two builds can be compared to well under a percent.

    python benchmarks/cg_encode.py BUILD.so FILE [--encoding cl100k_base] [--mode cold|count]
                                   [--trie-level N] [--no-cache-sim] [--parts N [--threads T]]

Loads only the build at BUILD.so (as ab_builds.py does; `-` for the installed one), keeps one instance whose long-piece
tables are built (1 MB of random letters), makes a fresh instance warmed on 400 KB of other
text, and counts only the timed call (`Encoding::encode`, or `Encoding::count` with
--mode count).  Prints Ir (instructions), D1 misses and LL misses.  Callgrind simulates L1
and the last level, not L2: a path whose gain is L2 residency shows only in the misses, and
neither replaces a timing on a quiet machine.  About a minute a run (two without
--no-cache-sim).

With --parts N the text is cut as the parallel path cuts it (tokenforge._cuts.split) and
the parts encoded by the native batch on T threads (default 1), as `encode_ordinary` of a
long text does; the count (`Encoding::encode_ordinary` of each part, on every thread) is
then the work of the parallel path, and T = 2 against T = 1 is what the second thread's
cold caches cost.  Valgrind runs one thread at a time, so how the parts fall to the
threads may differ from a real run.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import subprocess
import sys
import tempfile


def child(so: str, file: str, encoding: str, mode: str, trie_level: int | None, parts: int, threads: int) -> None:
    from _common import corpus_text
    from ab_builds import load_native

    import tokenforge
    from tokenforge import patterns

    with open(file, encoding="utf-8") as f:
        text = f.read()
    warm = corpus_text("mixed", 400_000)
    base = tokenforge.get_encoding(encoding)
    ranks, pat = dict(base._mergeable_ranks), base._pat_str
    del base
    native = tokenforge._native if so == "-" else load_native(so, "build")
    if trie_level is not None:
        native._testing.trie_merge_level(trie_level)
    scanner = int(patterns.scanner_for(pat))
    keeper = native.Encoding(ranks, {}, scanner)
    none = native.SpecialSet([])
    keeper.encode("".join(random.Random(0).choices("abcdefghijklmnopqrstuvwxyz", k=1 << 20)), none)
    enc = native.Encoding(ranks, {}, scanner)
    enc.encode(warm, none)
    timed = (lambda t: enc.count(t, none)) if mode == "count" else (lambda t: enc.encode(t, none))
    if parts <= 1:
        timed(text)
        return
    from tokenforge import _cuts

    pieces = _cuts.split(text, parts, scanner != int(patterns.Scanner.GPT2))
    enc.encode_ordinary_batch(pieces, threads)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("so")
    ap.add_argument("file")
    ap.add_argument("--encoding", default="cl100k_base")
    ap.add_argument("--mode", choices=["cold", "count"], default="cold")
    ap.add_argument("--trie-level", type=int)
    ap.add_argument("--no-cache-sim", action="store_true")
    ap.add_argument("--parts", type=int, default=1)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        return child(args.so, args.file, args.encoding, args.mode, args.trie_level, args.parts, args.threads)
    fn = "tf::Encoding::count(*" if args.mode == "count" else "tf::Encoding::encode(*"
    if args.parts > 1:
        fn = "tf::Encoding::encode_ordinary(*"
    with tempfile.TemporaryDirectory() as tmp:
        cmd = ["valgrind", "--tool=callgrind", f"--cache-sim={'no' if args.no_cache_sim else 'yes'}",
               f"--callgrind-out-file={tmp}/cg.out", "--collect-atstart=no", f"--toggle-collect={fn}",
               sys.executable, os.path.abspath(__file__), "--child", args.so, args.file, "--encoding", args.encoding,
               "--mode", args.mode, "--parts", str(args.parts), "--threads", str(args.threads)] + (["--trie-level", str(args.trie_level)] if args.trie_level is not None else [])
        done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    m = re.search(r"Collected : ([\d ]+)", done.stderr)
    if done.returncode != 0 or m is None:
        raise SystemExit(f"callgrind failed:\n{done.stderr[-2000:]}")
    n = list(map(int, m.group(1).split()))
    split = f" parts {args.parts} threads {args.threads}" if args.parts > 1 else ""
    line = f"{args.encoding} {os.path.basename(args.file)} {args.mode}{split}: Ir {n[0]}"
    if len(n) >= 9:  # Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw
        line += f" D1 misses {n[4] + n[5]} LL misses {n[6] + n[7] + n[8]}"
    print(line)


if __name__ == "__main__":
    main()
