"""Loading a tokenizer.json: tokenforge's `Tokenizer.from_file` against `tokenizers` (and
fastokens where it loads the file), in one process, best of --repeat, alternating.

    python benchmarks/bench_hf_load.py [--files gpt2 llama3 gemma ...] [--repeat 3]

Prints each tool's milliseconds and tokenforge's speed over `tokenizers`'.  A tokenizer.json
load is mostly the JSON parse and the merge table; the first encode after a load is not
counted (bench_hf_json.py warms each fresh instance before timing it).
"""

from __future__ import annotations

import argparse
import gc
import time

from _common import MODELS

FILES = ["gpt2", "llama3", "mistral_v1", "minilm_bert_uncased", "rut5", "cl100k_base_converted",
         "o200k_base_converted", "qwen3", "deepseek_v3", "gemma"]


def loaders(path: str) -> dict:
    import tokenizers

    from tokenforge.tokenizer import Tokenizer

    out = {"tokenforge": lambda: Tokenizer.from_file(path), "tokenizers": lambda: tokenizers.Tokenizer.from_file(path)}
    try:
        import fastokens

        fastokens.Tokenizer.from_file(path)
        out["fastokens"] = lambda: fastokens.Tokenizer.from_file(path)
    except Exception:  # not installed, or it refuses the file
        pass
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", nargs="+", default=FILES)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    for name in args.files:
        path = str(MODELS / "hf" / f"{name}_tokenizer.json")
        tools = loaders(path)
        best: dict[str, float] = {}
        for _ in range(args.repeat):
            for tool, load in tools.items():
                gc.collect()
                t0 = time.perf_counter()
                obj = load()
                best[tool] = min(best.get(tool, float("inf")), time.perf_counter() - t0)
                del obj
        row = "  ".join(f"{tool} {best[tool] * 1e3:7.0f} ms" for tool in tools)
        print(f"{name:24} {row}  | x{best['tokenizers'] / best['tokenforge']:.2f} tokenizers", flush=True)


if __name__ == "__main__":
    main()
