"""Loading time of GGUF tokenizers: tokenforge against gguf's own reader.

For each of llama.cpp's test vocabularies (../shared/models/gguf) and, with ``--written``,
the larger GGUFs tokenforge writes from shared models (o200k, Qwen 3, Gemma, DeepSeek V3,
ruT5, ...), in one process and in thread CPU time (the machine may be shared), best of
``--repeat``:

- ``GGUFReader``: ``gguf.GGUFReader(path)`` alone, what any GGUF tool pays to open the file
  before it has a tokenizer;
- ``read``: tokenforge's ``read_vocab(path, reader="tokenforge")`` (one bounds-checked walk of
  the key/values; the default, ``reader="gguf"``, costs ``GGUFReader`` plus the layout check);
- ``build``: the engine from the GGUFVocab (``GGUFTokenizer``);
- ``load``: ``tokenforge.gguf.load(path, reader="tokenforge")`` (read + build), then ``load/reader``, its ratio to
  GGUFReader alone (below 1: faster than gguf's reader, which builds no tokenizer);
- ``from_gguf``: ``tokenforge.Tokenizer.from_gguf(path, reader="tokenforge")``, the HF-style
  face around the engine;
- ``same``: whether tokenforge's walk equals ``read_vocab_with_gguf`` (the values through
  ``gguf.GGUFReader``) on the file.

    python benchmarks/bench_gguf_load.py [--repeat 2] [--written] [NAME ...]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from _common import MODELS

NAMES = ["llama-spm", "phi-3", "gpt-2", "llama-bpe", "qwen2", "deepseek-coder", "starcoder", "bert-bge"]
# name -> how to make its vocabulary (written to a temporary GGUF once).
WRITTEN = {
    "o200k (tiktoken)": lambda gguf, tf: gguf.vocab_from_encoding(tf.get_encoding("o200k_base")),
    "cl100k (tiktoken)": lambda gguf, tf: gguf.vocab_from_encoding(tf.get_encoding("cl100k_base")),
    "qwen3 (json)": lambda gguf, tf: gguf.vocab_from_json(MODELS / "hf" / "qwen3_tokenizer.json"),
    "deepseek-v3 (json)": lambda gguf, tf: gguf.vocab_from_json(MODELS / "hf" / "deepseek_v3_tokenizer.json"),
    "gemma (json)": lambda gguf, tf: gguf.vocab_from_json(MODELS / "hf" / "gemma_tokenizer.json"),
    "rut5 t5 (json)": lambda gguf, tf: gguf.vocab_from_json(MODELS / "hf" / "rut5_tokenizer.json"),
    "minilm bert (json)": lambda gguf, tf: gguf.vocab_from_json(MODELS / "hf" / "minilm_bert_uncased_tokenizer.json"),
}


def best(n: int, fn) -> tuple[float, object]:
    result, times = None, []
    for _ in range(n):
        t0 = time.thread_time()
        result = fn()
        times.append(time.thread_time() - t0)
    return min(times), result


def main() -> None:
    import gguf as gguf_package

    import tokenforge
    from tokenforge import gguf
    from tokenforge.gguf.reader import read_vocab_with_gguf

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*", default=NAMES)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--written", action="store_true", help="also GGUFs written from shared models")
    args = ap.parse_args()
    files = [(name, MODELS / "gguf" / f"ggml-vocab-{name}.gguf") for name in args.names]
    tmp = Path(tempfile.mkdtemp(prefix="bench_gguf_"))
    if args.written:
        for k, (name, make) in enumerate(WRITTEN.items()):
            path = tmp / f"w{k}.gguf"
            gguf.write_vocab(make(gguf, tokenforge), path)
            files.append((name, path))
    print(f"{'vocabulary':20} {'model':6} {'tokens':>7} {'merges':>7} {'MB':>5} {'GGUFReader s':>12} {'read s':>7} "
          f"{'build s':>8} {'load s':>7} {'load/reader':>11} {'from_gguf s':>11} {'same':>4}")
    for name, path in files:
        t_reader, _ = best(args.repeat, lambda: gguf_package.GGUFReader(path))
        t_read, vocab = best(args.repeat, lambda: gguf.read_vocab(path, reader="tokenforge"))
        t_build, _ = best(args.repeat, lambda: gguf.GGUFTokenizer(vocab))
        t_load, _ = best(args.repeat, lambda: gguf.load(path, reader="tokenforge"))
        t_face, _ = best(args.repeat, lambda: tokenforge.Tokenizer.from_gguf(path, reader="tokenforge"))
        same = "yes" if read_vocab_with_gguf(path) == vocab else "NO"
        mb = path.stat().st_size / 1e6
        print(f"{name:20} {vocab.model:6} {vocab.n_tokens:7} {len(vocab.merges or []):7} {mb:5.1f} {t_reader:12.3f} "
              f"{t_read:7.3f} {t_build:8.3f} {t_load:7.3f} {t_load / t_reader:11.3f} {t_face:11.3f} {same:>4}", flush=True)


if __name__ == "__main__":
    main()
