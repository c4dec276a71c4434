"""The adversarial rows of bench_encode.py as the issue measures them (a fresh instance per
repetition, warmed on the first 400 kB of mixed.txt, then one timed encode), in thread CPU
time: time per byte, and the ratio to English measured the same way, as the best of each
side and as the median of ratios of encodes timed in pairs (one of English beside each).

bench_encode.py times wall clock, which on a machine shared with other jobs swings by half
(English from 90 to 220 MB/s between two runs); time.thread_time() does not count the time
other processes hold the core.  Run it pinned.  The long-piece tables are shared by equal
vocabularies, so one encode of the inputs first builds them, as a program that has met
long pieces before would have them.

    PYTHONPATH=src taskset -c 1 python benchmarks/bench_fresh_cpu.py [cl100k_base o200k_base llama3] [--repeat 3] [--more]

With --more, also the inputs of the same kinds that the issue does not list
(_common.more_adversarial_texts: other alphabets, mixed-case letters, base64, ...).
"""

from __future__ import annotations

import argparse
import time

from _common import MODELS, adversarial_texts, corpus_text, more_adversarial_texts, paired_ratio

import tokenforge
from tokenforge import patterns


def encoding(name: str) -> tokenforge.Encoding:
    if name == "llama3":
        ranks = tokenforge.load_tiktoken_bpe(MODELS / "tiktoken" / "llama3.tiktoken")
        return tokenforge.Encoding("llama3", pat_str=patterns.LLAMA3, mergeable_ranks=ranks, special_tokens={})
    return tokenforge.get_encoding(name)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("encodings", nargs="*", default=["cl100k_base", "o200k_base", "llama3"])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--more", action="store_true", help="also the inputs of more_adversarial_texts()")
    args = parser.parse_args()
    english = corpus_text("en", 4_000_000)
    warm = corpus_text("mixed", 400_000)
    texts = {label.split(" ", 1)[1]: text for label, text in adversarial_texts().items()}
    if args.more:
        texts |= more_adversarial_texts()

    for name in args.encodings:
        ours = encoding(name)
        for text in texts.values():
            ours.encode_ordinary(text)

        def fresh() -> tokenforge.Encoding:
            enc = tokenforge.Encoding(name, pat_str=ours._pat_str, mergeable_ranks=ours._mergeable_ranks,
                                      special_tokens={})
            enc.encode_ordinary(warm)
            return enc

        def cpu(enc: tokenforge.Encoding, text: str) -> float:
            t0 = time.thread_time()
            enc.encode_ordinary(text)
            return time.thread_time() - t0

        def per_byte(text: str) -> float:
            return min(cpu(fresh(), text) for _ in range(args.repeat)) / len(text.encode())

        def paired(text: str) -> float:
            ratio = paired_ratio(max(args.repeat, 5), lambda e: e.encode_ordinary(english),
                                 lambda e: e.encode_ordinary(text), fresh, clock=time.thread_time)
            return ratio * len(english.encode()) / len(text.encode())

        base = per_byte(english)
        print(f"{name}: English {base * 1e9:.2f} ns/byte fresh (thread CPU); ns/byte (ratio to English best "
              f"of {args.repeat} / median ratio of encodes paired with English):")
        rows = {label: (per_byte(text), paired(text)) for label, text in texts.items()}
        print("  " + " | ".join(f"{label} {t * 1e9:.2f} ({t / base:.2f} / {r:.2f})" for label, (t, r) in rows.items()))


if __name__ == "__main__":
    main()
