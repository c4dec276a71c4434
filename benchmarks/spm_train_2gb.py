"""Unigram training on about 2 GB: every line of the four corpora, repeated and shuffled, with
no sentence sampling (input_sentence_size=0, "on everything").  Each trainer runs in its own
process; the child reports wall time, CPU time and peak RSS (its own VmHWM).  The issue's
check: tokenforge's Unigram 32k under 4 GB peak, with sentencepiece's figure beside it.

    python benchmarks/spm_train_2gb.py [--gb 2] [--vocab 32000] [--trainers tokenforge sentencepiece]

The input is written once to --folder (default: a temporary folder; pass one to keep it).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile

from _common import corpus_text

CHILD = r"""
import json, resource, sys, time
trainer, path, prefix, vocab, threads = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
t0 = time.perf_counter()
args = dict(input=path, model_prefix=prefix, vocab_size=vocab, model_type="unigram", num_threads=threads,
            input_sentence_size=0, minloglevel=2, train_extremely_large_corpus=True)
if trainer == "sentencepiece":
    import sentencepiece as spm
    spm.SentencePieceTrainer.train(**args)
else:
    import tokenforge
    tokenforge.SentencePieceTrainer.train(**args)
ru = resource.getrusage(resource.RUSAGE_SELF)
# VmHWM, not ru_maxrss: Linux carries ru_maxrss over from the parent across fork + exec, and
# the parent held the whole shuffled input while writing it.
try:
    peak = next(int(x.split()[1]) for x in open("/proc/self/status") if x.startswith("VmHWM:"))
except OSError:
    peak = ru.ru_maxrss
print(json.dumps({"wall": time.perf_counter() - t0, "cpu": ru.ru_utime + ru.ru_stime, "rss_mb": peak / 1024}))
"""


def make_input(gb: float, folder: str) -> str:
    """Every corpus line, repeated to about `gb` GB and shuffled (seed 0)."""
    path = os.path.join(folder, f"input_{gb:g}gb.txt")
    if os.path.exists(path):
        return path
    lines = [x for name in ("en", "code", "multi", "mixed") for x in corpus_text(name).split("\n") if x]
    size = sum(len(x.encode()) + 1 for x in lines)
    reps = max(1, round(gb * 1e9 / size))
    rng = random.Random(0)
    order = [i for _ in range(reps) for i in range(len(lines))]
    rng.shuffle(order)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        for i in order:
            f.write(lines[i])
            f.write("\n")
    os.replace(tmp, path)
    return path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gb", type=float, default=2.0)
    ap.add_argument("--vocab", type=int, default=32000)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--trainers", nargs="+", default=["tokenforge", "sentencepiece"])
    ap.add_argument("--folder", default=None)
    args = ap.parse_args()
    folder = args.folder or tempfile.mkdtemp()
    path = make_input(args.gb, folder)
    print(f"input {path}: {os.path.getsize(path) / 1e9:.2f} GB", flush=True)
    for trainer in args.trainers:
        prefix = os.path.join(folder, f"{trainer}_{args.vocab}")
        out = subprocess.run([sys.executable, "-c", CHILD, trainer, path, prefix, str(args.vocab), str(args.threads)],
                             capture_output=True, text=True)
        if out.returncode != 0:
            print(f"{trainer}: failed ({out.returncode}): {out.stderr[-400:]}", flush=True)
            continue
        r = json.loads(out.stdout.strip().splitlines()[-1])
        print(f"{trainer:14} wall {r['wall']:8.1f} s  cpu {r['cpu']:8.1f} s  peak RSS {r['rss_mb']:8.0f} MB", flush=True)


if __name__ == "__main__":
    main()
