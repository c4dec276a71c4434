"""One long text, as a user encodes it: wall time, unpinned, every tool on its defaults.

tokenforge spreads one long `encode_ordinary` over the usable cores (issue 30), and so does
fastokens; tiktoken stays on one thread.  Each repetition gets a fresh instance warmed on
other text (400 kB of mixed.txt), best of --repeat, the tools taking turns within each
repetition; ids are checked against tiktoken's.

    python benchmarks/bench_one_text.py FILE_OR_CORPUS [...] [--encodings cl100k_base o200k_base]
                                        [--repeat 3] [--mb 4]

FILE_OR_CORPUS: a path, or a corpus name of ../shared/corpus (en, code, multi, mixed);
`python benchmarks/unseen_text.py DIR` writes held-out text.  Prints MB/s of tokenforge
(default threads and 1 thread), fastokens and tiktoken, and the ratios the issue asks for.
"""

from __future__ import annotations

import argparse
import os
import time

from _common import MODELS, corpus_text

import tokenforge
from bench_encode import PATTERN_FOR_FASTOKENS


def load(name: str, mb: float) -> str:
    if os.path.exists(name):
        with open(name, encoding="utf-8") as f:
            text = f.read()
    else:
        text = corpus_text(name)
    limit = int(mb * 1_000_000)
    return text[:limit] if len(text.encode()) > limit else text


def arguments(repeat: int) -> argparse.ArgumentParser:
    """The arguments of this script (bench_one_text_cpu.py adds its own)."""
    ap = argparse.ArgumentParser()
    ap.add_argument("texts", nargs="+")
    ap.add_argument("--encodings", nargs="+", default=["cl100k_base", "o200k_base"])
    ap.add_argument("--repeat", type=int, default=repeat)
    ap.add_argument("--mb", type=float, default=4.0)
    return ap


def main() -> None:
    args = arguments(3).parse_args()
    rows(args.encodings, args.texts, args.repeat, args.mb)


def rows(encodings: list[str], texts: list[str], repeat: int, mb_limit: float) -> None:
    """Prints a row per encoding and text (bench_encode.py prints them too)."""
    import tiktoken

    warm = corpus_text("mixed", 400_000)
    print(f"usable cores: {len(os.sched_getaffinity(0))}")
    for name in encodings:
        ours = tokenforge.get_encoding(name)
        ranks, pat = ours._mergeable_ranks, ours._pat_str
        ref = tiktoken.Encoding(name, pat_str=pat, mergeable_ranks=ranks, special_tokens={})
        def ours_with(threads):
            enc = tokenforge.Encoding(name, pat_str=pat, mergeable_ranks=ranks, special_tokens={})
            return lambda t: enc.encode_ordinary(t, num_threads=threads)

        tools = {
            "tokenforge": lambda: ours_with(None),
            "tokenforge 1 thread": lambda: ours_with(1),
            "tiktoken": lambda: ref.encode_ordinary,
        }
        try:
            import fastokens

            path = str(MODELS / "tiktoken" / f"{name}.tiktoken")

            def fast():
                tok = fastokens.Tokenizer.from_tiktoken(path, pattern=PATTERN_FOR_FASTOKENS[name], special_tokens={})
                return lambda t: tok.encode_ordinary(t).ids

            tools["fastokens"] = fast
        except ImportError:
            pass
        for label in texts:
            text = load(label, mb_limit)
            mb = len(text.encode()) / 1e6
            want = ref.encode_ordinary(text)
            for tool, factory in tools.items():
                fn = factory()
                fn(warm)
                if list(fn(text)) != want:
                    print(f"  {tool}: ids differ from tiktoken's on {label}")
            # Each repetition runs every tool once, in turn, each on a fresh instance warmed on
            # other text: a load that comes and goes then falls on all of them alike (all of
            # one tool's repetitions back to back could meet a quiet or a busy phase alone).
            best = dict.fromkeys(tools, float("inf"))
            for _ in range(repeat):
                for tool, factory in tools.items():
                    fn = factory()
                    fn(warm)
                    t0 = time.perf_counter()
                    fn(text)
                    best[tool] = min(best[tool], time.perf_counter() - t0)
            speed = {tool: mb / t for tool, t in best.items()}
            row = "  ".join(f"{t} {v:.1f}" for t, v in speed.items())
            ratios = f"vs fastokens {speed['tokenforge'] / speed['fastokens']:.2f}x, " if "fastokens" in speed else ""
            print(f"{name} {os.path.basename(label)} ({mb:.1f} MB) MB/s: {row}  |  tokenforge {ratios}"
                  f"vs tiktoken {speed['tokenforge'] / speed['tiktoken']:.2f}x, "
                  f"vs 1 thread {speed['tokenforge'] / speed['tokenforge 1 thread']:.2f}x")


if __name__ == "__main__":
    main()
