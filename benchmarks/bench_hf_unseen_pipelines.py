"""tokenizer.json pipelines that the shared files do not have, over GPT-2's vocabulary:
StarCoder's (Digits, then ByteLevel: tokenforge cuts the digits out in C++, tokenizer/native_cut.py)
and BLOOM's (a Split regex with nested classes, then a regex-free ByteLevel: cut in Python by its
regex path, tokenizer/native_splits.py).
`Tokenizer.encode_batch` of ~4 KB documents, offsets read, wall clock (tokenizers on its own
threads), best of --repeat; the readable Python pipeline's row is what those files ran on
before the regex path took them.

Usage:
    python benchmarks/bench_hf_unseen_pipelines.py [--corpora en code multi] [--mb 0.3] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import time

from _common import MODELS, corpus_text, documents

PIPELINES = {
    "starcoder": [{"type": "Digits", "individual_digits": True},
                  {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True}],
    "bloom": [{"type": "Split", "pattern": {"Regex": " ?[^(\\s|[.,!?…。，、।۔،])]+"}, "behavior": "Isolated",
               "invert": False},
              {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False}],
}


def main() -> None:
    import tokenizers

    from tokenforge.tokenizer import Tokenizer

    ap = argparse.ArgumentParser()
    ap.add_argument("--corpora", nargs="+", default=["en", "code", "multi"])
    ap.add_argument("--mb", type=float, default=0.3)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    base = json.loads((MODELS / "hf" / "gpt2_tokenizer.json").read_text(encoding="utf-8"))
    for name, steps in PIPELINES.items():
        base["pre_tokenizer"] = {"type": "Sequence", "pretokenizers": steps}
        text = json.dumps(base)
        for corpus in args.corpora:
            docs = documents(corpus_text(corpus, int(args.mb * 1_000_000)))
            size = sum(len(d.encode("utf-8")) for d in docs) / 1e6
            python_path = Tokenizer.from_str(text)
            python_path._native_checked = True  # the readable pipeline alone
            object.__setattr__(python_path, "_native", None)
            rows = {}
            for label, tok in (("tokenizers", tokenizers.Tokenizer.from_str(text)), ("tokenforge", Tokenizer.from_str(text)),
                               ("Python pipeline", python_path)):
                tok.no_truncation()
                best = float("inf")
                for _ in range(args.repeat):
                    t0 = time.perf_counter()
                    for e in tok.encode_batch(docs):
                        e.offsets
                    best = min(best, time.perf_counter() - t0)
                rows[label] = size / best
            print(f"{name:9} {corpus:5} MB/s: " + "  ".join(f"{k} {v:.2f}" for k, v in rows.items())
                  + f"  |  tokenforge vs tokenizers {rows['tokenforge'] / rows['tokenizers']:.2f}x", flush=True)


if __name__ == "__main__":
    main()
