"""Training speed of tokenforge.minbpe against minbpe's algorithm in pure Python.

minbpe is not on PyPI, so its stand-in is tokenforge.minbpe.reference, which is minbpe's
training loop (every merge recounts every pair of the text).  That loop is timed on a small
slice and its cost scaled by (merges x bytes), the shape of its work; tokenforge's is timed
on the full size.  Thread CPU time, best of 3.

    python benchmarks/bench_minbpe_train.py [--mb 1] [--vocab 4096] [--reference-kb 50 --reference-merges 64]
"""

from __future__ import annotations

import argparse
import time

import regex
from _common import corpus_text

from tokenforge.minbpe import BasicTokenizer, RegexTokenizer
from tokenforge.minbpe import reference as R


def cpu(fn) -> float:
    best = float("inf")
    for _ in range(3):
        t0 = time.thread_time()
        fn()
        best = min(best, time.thread_time() - t0)
    return best


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", default="en")
    ap.add_argument("--mb", type=float, default=1.0)
    ap.add_argument("--vocab", type=int, default=4096)
    ap.add_argument("--reference-kb", type=float, default=50)
    ap.add_argument("--reference-merges", type=int, default=64)
    args = ap.parse_args()
    text = corpus_text(args.corpus, int(args.mb * 1e6))
    merges = args.vocab - 256
    print(f"{args.corpus}: {len(text.encode()) / 1e6:.2f} MB to {args.vocab} tokens")
    for cls in (RegexTokenizer, BasicTokenizer):
        t = cpu(lambda: cls().train(text, args.vocab))
        print(f"  tokenforge.minbpe.{cls.__name__:15} {t:8.3f} s")
    small = text[: int(args.reference_kb * 1e3)]
    chunks = [list(c.encode()) for c in regex.findall(RegexTokenizer().pattern, small)]
    t0 = time.thread_time()
    R.train(chunks, 256 + args.reference_merges)
    ref = time.thread_time() - t0
    scaled = ref * (merges / args.reference_merges) * (len(text) / len(small))
    print(f"  reference (minbpe's loop), {len(small) / 1e3:.0f} kB x {args.reference_merges} merges: {ref:.2f} s,"
          f" scaled to the full run: ~{scaled:.0f} s")


if __name__ == "__main__":
    main()
