"""tokenizer.json batches of (text, pair), as cross-encoders and question answering encode them:
tokenforge's and tokenizers' `encode_batch`, `encode_batch_fast` and a loop of `encode(text,
pair)` on the same pairs of corpus lines (each cut to 300 characters), with truncation off and
at 128 tokens, ids read, wall clock, best of --repeat.  Both libraries use their default
threads in the batch calls (this machine's cores).

--kinds adds Hub-like files of bench_hf_unseen_pipelines.py (RoBERTa's trimming processor by
default), truncation off there and at 50 tokens (the file's own).

Usage:
    python benchmarks/bench_hf_pairs.py [--files minilm_bert_uncased gpt2 llama3 mistral_v1] [--pairs 2000]
        [--calls batch fast encode] [--kinds roberta]
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
    ap.add_argument("--kinds", nargs="*", default=["roberta"])
    args = ap.parse_args()
    lines = [ln for ln in corpus_text("en", 400_000).split("\n") if ln.strip()]
    pairs = [(lines[i][:300], lines[i + 1][:300]) for i in range(0, len(lines) - 1, 2)][:args.pairs]
    files = [(name, (MODELS / "hf" / f"{name}_tokenizer.json").read_text(encoding="utf-8"), 128) for name in args.files]
    if args.kinds:
        from bench_hf_unseen_pipelines import config

        files += [(f"{kind} (Hub-like)", config(kind), 50) for kind in args.kinds]
    for name, text, limit in files:
        for call in args.calls:
            for truncation in (None, limit):
                best = {}
                for label, tok in (("tokenizers", tokenizers.Tokenizer.from_str(text)),
                                   ("tokenforge", Tokenizer.from_str(text))):
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
