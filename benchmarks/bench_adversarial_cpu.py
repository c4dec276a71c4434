"""The adversarial rows of bench_encode.py (and the medium-piece rows of
bench_medium_pieces.py) in thread CPU time, best of N, relative to English; with --more,
also inputs of the same kinds that the issue does not list (_common.more_adversarial_texts).

bench_encode.py times wall clock, which swings by a third on a machine shared with other
jobs; time.thread_time() does not count the time other processes hold the core, so A/B
decisions between two builds hold up better.  Run it pinned (`taskset -c 1`).  One
instance per encoding, warmed on every text first (its long-piece tables are built); the
medium rows are made of pieces over PieceCache::kMaxPiece bytes, which a repeated run does
not find in the piece cache.

    PYTHONPATH=src taskset -c 1 python benchmarks/bench_adversarial_cpu.py [cl100k_base o200k_base] [--repeat 5] [--more]
"""

from __future__ import annotations

import argparse
import random
import time

from _common import adversarial_texts, corpus_text, more_adversarial_texts

import tokenforge


def cases() -> dict[str, str]:
    adversarial = {label.split(" ", 1)[1]: text for label, text in adversarial_texts().items()}
    rng = random.Random(1)
    medium = {
        "rnd ws 129-256": "".join("".join(rng.choice(" \t") for _ in range(rng.randrange(129, 257))) + "qg"
                                  for _ in range(4000)),
        "254sp+qg": (" " * 254 + "qg") * 4000,
        "var a 129-256": "".join("a" * rng.randrange(129, 257) + " " for _ in range(4000)),
    }
    return {**adversarial, **medium}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("encodings", nargs="*", default=["cl100k_base", "o200k_base"])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--more", action="store_true", help="also the inputs of more_adversarial_texts()")
    args = parser.parse_args()
    texts = cases() | (more_adversarial_texts() if args.more else {})
    english = corpus_text("en", 4_000_000)

    def best(enc, text):
        t = float("inf")
        for _ in range(args.repeat):
            t0 = time.thread_time()
            enc.encode_ordinary(text)
            t = min(t, time.thread_time() - t0)
        return t / len(text.encode())

    for name in args.encodings:
        enc = tokenforge.get_encoding(name)
        for text in texts.values():
            enc.encode_ordinary(text)
        base = best(enc, english)
        print(f"{name}: English {1e-6 / base:.0f} MB/s (thread CPU); time per byte / English's:")
        print("  " + " | ".join(f"{label} {best(enc, text) / base:.2f}" for label, text in texts.items()))


if __name__ == "__main__":
    main()
