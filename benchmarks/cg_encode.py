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


def child(so: str, inputs: str, mode: str, trie_level: int | None, threads: int) -> None:
    """Runs the counted call with only the build at `so` loaded; its inputs come pickled from
    the parent (importing tokenforge here would load its own module first, and nanobind then
    refuses the build's types of the same names)."""
    import pickle

    from ab_builds import load_native

    with open(inputs, "rb") as f:
        text, warm, ranks, scanner, pieces = pickle.load(f)
    if so == "-":
        import tokenforge

        native = tokenforge._native
    else:
        native = load_native(so, "build")
    if trie_level is not None:
        native._testing.trie_merge_level(trie_level)
    keeper = native.Encoding(ranks, {}, scanner)
    none = native.SpecialSet([])
    # The warm-ups go through the function callgrind does not count (encode_ordinary when
    # encode or count is counted, encode when the parts' encode_ordinary is).
    untimed = (lambda e, t: e.encode_ordinary(t)) if pieces is None else (lambda e, t: e.encode(t, none))
    untimed(keeper, "".join(random.Random(0).choices("abcdefghijklmnopqrstuvwxyz", k=1 << 20)))
    enc = native.Encoding(ranks, {}, scanner)
    untimed(enc, warm)
    timed = (lambda t: enc.count(t, none)) if mode == "count" else (lambda t: enc.encode(t, none))
    if pieces is None:
        timed(text)
        return
    enc.encode_ordinary_batch(pieces, threads)


def write_inputs(args, path: str) -> None:
    """Pickles the child's inputs: text, warm-up text, ranks, scanner, and the parts (None
    without --parts), cut as the parallel path cuts them."""
    import pickle

    from _common import corpus_text

    import tokenforge
    from tokenforge import _cuts, patterns

    with open(args.file, encoding="utf-8") as f:
        text = f.read()
    base = tokenforge.get_encoding(args.encoding)
    scanner = int(patterns.scanner_for(base._pat_str))
    pieces = (_cuts.split(text, args.parts, scanner != int(patterns.Scanner.GPT2))
              if args.parts > 1 else None)
    with open(path, "wb") as f:
        pickle.dump((text, corpus_text("mixed", 400_000), dict(base._mergeable_ranks), scanner, pieces), f)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("so")
    ap.add_argument("file", help="the text file (with --child: the pickled inputs)")
    ap.add_argument("--encoding", default="cl100k_base")
    ap.add_argument("--mode", choices=["cold", "count"], default="cold")
    ap.add_argument("--trie-level", type=int)
    ap.add_argument("--no-cache-sim", action="store_true")
    ap.add_argument("--parts", type=int, default=1)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        return child(args.so, args.file, args.mode, args.trie_level, args.threads)
    fn = "tf::Encoding::count(*" if args.mode == "count" else "tf::Encoding::encode(*"
    if args.parts > 1:
        fn = "tf::Encoding::encode_ordinary(*"
    with tempfile.TemporaryDirectory() as tmp:
        write_inputs(args, f"{tmp}/inputs.pickle")
        cmd = ["valgrind", "--tool=callgrind", f"--cache-sim={'no' if args.no_cache_sim else 'yes'}",
               f"--callgrind-out-file={tmp}/cg.out", "--collect-atstart=no", f"--toggle-collect={fn}",
               sys.executable, os.path.abspath(__file__), "--child", args.so, f"{tmp}/inputs.pickle",
               "--mode", args.mode, "--threads", str(args.threads)] + (["--trie-level", str(args.trie_level)] if args.trie_level is not None else [])
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
