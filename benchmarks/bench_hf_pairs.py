"""tokenizer.json batches of (text, pair), as cross-encoders and question answering encode them:
tokenforge's and tokenizers' `encode_batch`, `encode_batch_fast` and a loop of `encode(text,
pair)` on the same pairs of corpus lines (each cut to 300 characters), with truncation off and
at 128 tokens, ids read, wall clock, best of --repeat.  Both libraries use their default
threads in the batch calls (this machine's cores).

Usage:
    python benchmarks/bench_hf_pairs.py [--files minilm_bert_uncased gpt2 llama3 mistral_v1] [--pairs 2000]
        [--calls batch fast encode]
"""

from __future__ import annotations

import argparse
import time

from _common import MODELS, corpus_text


def run(tok, call: str, pairs: list) -> None:
    if call == "batch":
        for e in tok.encode_batch(pairs):
            e.ids
    elif call == "fast":
        for e in tok.encode_batch_fast(pairs):
            e.ids
    else:
        for a, b in pairs:
            tok.encode(a, b).ids


def main() -> None:
    import tokenizers

    from tokenforge.tokenizer import Tokenizer

    ap = argparse.ArgumentParser()
    ap.add_argument("--files", nargs="+", default=["minilm_bert_uncased", "gpt2", "llama3", "mistral_v1"])
    ap.add_argument("--pairs", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--calls", nargs="+", default=["batch", "fast", "encode"])
    args = ap.parse_args()
    lines = [ln for ln in corpus_text("en", 400_000).split("\n") if ln.strip()]
    pairs = [(lines[i][:300], lines[i + 1][:300]) for i in range(0, len(lines) - 1, 2)][:args.pairs]
    for name in args.files:
        path = str(MODELS / "hf" / f"{name}_tokenizer.json")
        for call in args.calls:
            for truncation in (None, 128):
                best = {}
                for label, tok in (("tokenizers", tokenizers.Tokenizer.from_file(path)),
                                   ("tokenforge", Tokenizer.from_file(path))):
                    tok.no_padding()
                    tok.no_truncation()
                    if truncation:
                        tok.enable_truncation(truncation)
                    best[label] = float("inf")
                    for _ in range(args.repeat):
                        t0 = time.perf_counter()
                        run(tok, call, pairs)
                        best[label] = min(best[label], time.perf_counter() - t0)
                print(f"{name:22} {call:6} truncation {str(truncation):4} {len(pairs)} pairs: tokenizers "
                      f"{best['tokenizers'] * 1e3:6.0f} ms  tokenforge {best['tokenforge'] * 1e3:6.0f} ms  |  "
                      f"x{best['tokenizers'] / best['tokenforge']:.2f}", flush=True)


if __name__ == "__main__":
    main()
