"""Loading time of llama.cpp's test vocabularies: tokenforge.gguf.load against gguf's own reader.

For each ../shared/models/gguf vocabulary, in one process and in thread CPU time (the machine
may be shared): `gguf.GGUFReader(path)` alone (what any GGUF tool pays to open the file),
tokenforge's `read_vocab` (layout check + GGUFReader + copying the tokenizer.* values) and
building the GGUFTokenizer from it; the ratio is tokenforge's whole load over gguf's reader.

    python benchmarks/bench_gguf_load.py [--repeat 2] [NAME ...]
"""

from __future__ import annotations

import argparse
import time

from _common import MODELS

NAMES = ["llama-spm", "phi-3", "gpt-2", "llama-bpe", "qwen2", "deepseek-coder", "starcoder", "bert-bge"]


def best(n: int, fn) -> tuple[float, object]:
    result, times = None, []
    for _ in range(n):
        t0 = time.thread_time()
        result = fn()
        times.append(time.thread_time() - t0)
    return min(times), result


def main() -> None:
    import gguf

    from tokenforge.gguf import GGUFTokenizer, read_vocab

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*", default=NAMES)
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args()
    print(f"{'vocabulary':16} {'tokens':>7} {'merges':>7} {'GGUFReader s':>12} {'read_vocab s':>12} "
          f"{'build s':>8} {'load/reader':>11}")
    for name in args.names:
        path = MODELS / "gguf" / f"ggml-vocab-{name}.gguf"
        t_reader, _ = best(args.repeat, lambda: gguf.GGUFReader(path))
        t_read, vocab = best(args.repeat, lambda: read_vocab(path))
        try:
            t_build, _ = best(args.repeat, lambda: GGUFTokenizer(vocab))
            build = f"{t_build:8.2f}"
        except ValueError:  # bert: not yet supported
            t_build, build = 0.0, f"{'n/a':>8}"
        print(f"{name:16} {vocab.n_tokens:7} {len(vocab.merges or []):7} {t_reader:12.2f} {t_read:12.2f} {build} "
              f"{(t_read + t_build) / t_reader:11.2f}")


if __name__ == "__main__":
    main()
