"""A/B of the trie merge's two builds (baseline and AVX2/BMI2) in one process: the switch
tokenforge._native._testing.trie_merge_level picks the build, and each round times one
cold encode (a fresh instance, warmed on other text) under each level, in turn, in thread
CPU time; the median per-round ratio is printed.  The trie merge runs on the chunks of
long pieces (random letters, base64), so that is the text to give it.

Usage:
    python benchmarks/ab_trie_level.py FILE [--encoding o200k_base] [--rounds 21]
"""

from __future__ import annotations

import argparse
import statistics
import time

from _common import corpus_text

import tokenforge
from tokenforge import _native


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--encoding", default="o200k_base")
    ap.add_argument("--rounds", type=int, default=21)
    args = ap.parse_args()
    best = _native._testing.trie_merge_level()
    if best == 0:
        raise SystemExit("this CPU runs only the baseline build")
    with open(args.file, encoding="utf-8") as f:
        text = f.read()
    warm = corpus_text("mixed", 400_000)
    base = tokenforge.get_encoding(args.encoding)

    def timed(level):
        old = _native._testing.trie_merge_level(level)
        try:
            enc = tokenforge.Encoding(args.encoding, pat_str=base._pat_str, mergeable_ranks=base._mergeable_ranks,
                                      special_tokens={})
            enc.encode_ordinary(warm)
            t0 = time.thread_time()
            enc.encode_ordinary(text)
            return time.thread_time() - t0
        finally:
            _native._testing.trie_merge_level(old)

    ratios = []
    for r in range(args.rounds):
        levels = (0, best) if r % 2 == 0 else (best, 0)
        t = {level: timed(level) for level in levels}
        ratios.append(t[0] / t[best])
    q = statistics.quantiles(ratios, n=4)
    print(f"{args.encoding} {args.file}: level {best} / level 0 speed median {statistics.median(ratios):.3f} "
          f"(quartiles {q[0]:.3f}..{q[2]:.3f}, {args.rounds} rounds)")


if __name__ == "__main__":
    main()
