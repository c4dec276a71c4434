"""Loading time of llama.cpp's test vocabularies: tokenforge.gguf.load against gguf's own reader.

For each ../shared/models/gguf vocabulary, in one process and in thread CPU time (the machine
may be shared): `gguf.GGUFReader(path)` alone (what any GGUF tool pays to open the file),
tokenforge's `read_vocab` (layout check + GGUFReader + copying the tokenizer.* values),
building the GGUFTokenizer from it, and the `tokenforge.Tokenizer` face around that engine
(added tokens, post-processor, decoder); the ratio is tokenforge's whole load (read + build)
over gguf's reader.  The layout check alone is shown too: it walks every string of the file
in pure Python, so it bounds what a reader that decoded the values in that same walk would
cost.

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
    from tokenforge.gguf.layout import check_layout
    from tokenforge.gguf.tokenizer_face import tokenizer_from_gguf

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*", default=NAMES)
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args()
    print(f"{'vocabulary':16} {'tokens':>7} {'merges':>7} {'GGUFReader s':>12} {'read_vocab s':>12} "
          f"{'build s':>8} {'face s':>7} {'load/reader':>11} {'layout s':>9}")
    for name in args.names:
        path = MODELS / "gguf" / f"ggml-vocab-{name}.gguf"
        t_reader, _ = best(args.repeat, lambda: gguf.GGUFReader(path))
        t_read, vocab = best(args.repeat, lambda: read_vocab(path))
        t_build, _ = best(args.repeat, lambda: GGUFTokenizer(vocab))
        t_face, _ = best(args.repeat, lambda: tokenizer_from_gguf(vocab))
        data = path.read_bytes()
        t_layout, _ = best(args.repeat, lambda: check_layout(data))
        print(f"{name:16} {vocab.n_tokens:7} {len(vocab.merges or []):7} {t_reader:12.2f} {t_read:12.2f} "
              f"{t_build:8.2f} {t_face:7.2f} {(t_read + t_build) / t_reader:11.2f} {t_layout:9.2f}")


if __name__ == "__main__":
    main()
