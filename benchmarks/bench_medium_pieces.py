"""Adversarial pieces of 64-256 bytes (whitespace runs, runs of one letter, random spaces and
tabs, digits) and random letters: time per byte against English, warm (an encoding that has
seen them, so its long-piece tables are built) and cold (a fresh encoding per run, which
pays any table build), best of N, all in one process; and parity with tiktoken.

    PYTHONPATH=src python benchmarks/bench_medium_pieces.py [cl100k_base|o200k_base] [N]
"""

from __future__ import annotations

import random
import sys
import time

from _common import corpus_text

import tokenforge


def main():
    import tiktoken

    name = sys.argv[1] if len(sys.argv) > 1 else "cl100k_base"
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    ours = tokenforge.get_encoding(name)
    rng = random.Random(0)
    cases = {
        "random letters": "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(1_000_000)),
        "254sp+qg": (" " * 254 + "qg") * 4000,
        "var sp 64-256": "".join(" " * rng.randrange(64, 257) + "qg" for _ in range(6000)),
        "rnd ws 64-256": "".join("".join(rng.choice(" \t") for _ in range(rng.randrange(64, 257))) + "qg"
                                 for _ in range(6000)),
        "rnd ws 65-128": "".join("".join(rng.choice(" \t") for _ in range(rng.randrange(65, 129))) + "qg"
                                 for _ in range(10000)),
        "var a 64-256": "".join("a" * rng.randrange(64, 257) + " " for _ in range(6000)),
        "var dig 64-256": "".join(" " + "".join(rng.choice("0123456789") for _ in range(rng.randrange(64, 257)))
                                  for _ in range(3000)),
    }
    english = corpus_text("en", 4_000_000)

    def fresh():
        return tokenforge.Encoding(name, pat_str=ours._pat_str, mergeable_ranks=ours._mergeable_ranks,
                                   special_tokens={})

    warm = fresh()
    warm.encode_ordinary(english)
    best = {}
    for _ in range(rounds):
        for label, text in [("english", english), *cases.items()]:
            for mode in ("warm", "cold"):
                enc = warm if mode == "warm" else fresh()
                t0 = time.perf_counter()
                enc.encode_ordinary(text)
                t = (time.perf_counter() - t0) / len(text.encode())
                best[label, mode] = min(best.get((label, mode), t), t)
    ref = tiktoken.Encoding(name, pat_str=ours._pat_str, mergeable_ranks=ours._mergeable_ranks, special_tokens={})
    base = best["english", "warm"]
    print(f"{name}: English {base * 1e9:.2f} ns/byte (warm)")
    for label, text in cases.items():
        same = warm.encode_ordinary(text) == ref.encode_ordinary(text)
        w, c = best[label, "warm"], best[label, "cold"]
        print(f"  {label:16} warm {w * 1e9:7.2f} ns/byte ({w / base:5.2f} of English)   cold {c * 1e9:7.2f}"
              f"{'' if same else '  !! differs'}")


if __name__ == "__main__":
    main()
