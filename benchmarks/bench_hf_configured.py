"""tokenizer.json files as configured (their own truncation and padding), tokenforge against
HF tokenizers, on short lines and on ~4 KB documents: what a user of a sentence-transformers
model (MiniLM: truncation at 128, padding to 128) or of GPT-2's file (truncation at 50) gets
from `encode` and `encode_batch` without calling `no_truncation`/`no_padding`.

Rows per file and text (ms, best of --repeat, a fresh warmed instance per repetition; each
result's ids and attention mask read, as a model's input needs):

  single   encode() of each of the first 1,000 items
  batch    encode_batch(items) on the default threads

Ids, attention masks and overflowing windows are checked equal to tokenizers' on every item
first.  bench_hf_json.py measures the same files with truncation and padding off.

Usage:
    python benchmarks/bench_hf_configured.py [--files gpt2 minilm_bert_uncased] [--repeat 3] [--lines 4000]
"""

from __future__ import annotations

import argparse

from _common import MODELS, best_of, corpus_text, documents


def main() -> None:
    import tokenizers

    from tokenforge.tokenizer import Tokenizer

    ap = argparse.ArgumentParser()
    ap.add_argument("--files", nargs="+", default=["gpt2", "minilm_bert_uncased"])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--lines", type=int, default=4000)
    args = ap.parse_args()
    text = corpus_text("en", 2_000_000)
    sets = {"lines": [ln for ln in text.splitlines() if ln.strip()][:args.lines],
            "4KB docs": documents(text)[:args.lines // 8]}
    warm = documents(corpus_text("mixed", 200_000))
    print(f"{'file':22s} {'items':9s} {'row':7s} {'tokenforge ms':>14s} {'tokenizers ms':>14s} {'ratio':>7s}")
    for name in args.files:
        path = str(MODELS / "hf" / f"{name}_tokenizer.json")

        def ours():
            t = Tokenizer.from_file(path)
            t.encode_batch(warm)
            return t

        def theirs():
            t = tokenizers.Tokenizer.from_file(path)
            t.encode_batch(warm)
            return t

        a, b = ours(), theirs()
        for label, items in sets.items():
            for x, y in zip(a.encode_batch(items), b.encode_batch(items)):
                assert (x.ids, x.attention_mask) == (y.ids, y.attention_mask), f"{name}: ids differ"
                assert [o.ids for o in x.overflowing] == [o.ids for o in y.overflowing], f"{name}: overflow differs"
            rows = {"single": lambda t, items=items: [(e.ids, e.attention_mask) for e in map(t.encode, items[:1000])],
                    "batch": lambda t, items=items: [(e.ids, e.attention_mask) for e in t.encode_batch(items)]}
            for row, run in rows.items():
                ta, tb = best_of(args.repeat, run, ours), best_of(args.repeat, run, theirs)
                print(f"{name:22s} {label:9s} {row:7s} {ta * 1e3:14.1f} {tb * 1e3:14.1f} {tb / ta:6.2f}x", flush=True)


if __name__ == "__main__":
    main()
