"""encode_ordinary, encode, count_tokens and encode_to_numpy on a str never encoded before
(a new str per repetition, so no UTF-8 copy is cached on it), ours and tiktoken's, in MB/s.

The other benchmarks time one str repeatedly, whose UTF-8 CPython caches after the first
call; a corpus pipeline encodes each document once, and pays the conversion every time.

    python benchmarks/bench_fresh_str.py [--files en code multi] [--max-bytes 4000000]
"""

from __future__ import annotations

import argparse
import time

from _common import corpus_text

import tokenforge


def best_fresh(fn, text: str, n: int = 7) -> float:
    best = float("inf")
    for _ in range(n):
        fresh = (text + " ")[:-1]  # an equal str with nothing cached on it
        start = time.perf_counter()
        fn(fresh)
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", nargs="+", default=["en", "code", "multi"])
    ap.add_argument("--encodings", nargs="+", default=["cl100k_base", "o200k_base"])
    ap.add_argument("--max-bytes", type=int, default=4_000_000)
    args = ap.parse_args()
    import tiktoken

    for name in args.encodings:
        ours = tokenforge.get_encoding(name)
        ref = tiktoken.Encoding(name, pat_str=ours._pat_str, mergeable_ranks=ours._mergeable_ranks,
                                special_tokens=ours._special_tokens)
        print(f"\n## {name}: MB/s on a fresh str (tokenforge / tiktoken)")
        for f in args.files:
            text = corpus_text(f, args.max_bytes)
            mb = len(text.encode("utf-8")) / 1e6
            ours.encode_ordinary(text[:100_000])
            cells = []
            for label, fo, fr in [
                ("encode_ordinary", ours.encode_ordinary, ref.encode_ordinary),
                ("encode", ours.encode, ref.encode),
                ("count_tokens", ours.count_tokens, lambda t: len(ref.encode_ordinary(t))),
                ("encode_to_numpy", ours.encode_to_numpy, ref.encode_to_numpy),
            ]:
                cells.append(f"{label} {mb / best_fresh(fo, text):.0f} / {mb / best_fresh(fr, text, 2):.0f}")
            print(f"  {f:6} " + ", ".join(cells))


if __name__ == "__main__":
    main()
