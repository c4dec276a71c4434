"""SentencePiece training: sentencepiece, HF tokenizers and tokenforge, each in its own process.

For every (input size, model type, vocab size) each trainer runs in a fresh subprocess on the
same file (a mix of en, code and multi cut to the size); the child reports wall time, CPU
time (user + sys, all threads) and peak RSS; the parent then measures held-out tokens per
byte of the trained model (sentencepiece and tokenforge models through sentencepiece, HF's
through tokenizers).  The table ends with tokenforge's ratios to sentencepiece.

    python benchmarks/bench_spm_train.py --sizes 20 60 --vocabs 8000 32000 --types bpe unigram
    python benchmarks/bench_spm_train.py --sizes 5 --trainers sentencepiece tokenforge   # quick

The machine is shared: compare the ratios of one run, not figures across runs.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

from _common import corpus_text

CHILD = r"""
import json, os, resource, sys, time
trainer, model_type, vocab, path, prefix, threads = sys.argv[1:7]
vocab, threads = int(vocab), int(threads)
t0 = time.perf_counter()
if trainer == "sentencepiece":
    import sentencepiece as spm
    spm.SentencePieceTrainer.train(input=path, model_prefix=prefix, vocab_size=vocab, model_type=model_type,
                                   num_threads=threads, minloglevel=2)
elif trainer == "tokenforge":
    import tokenforge
    tokenforge.SentencePieceTrainer.train(input=path, model_prefix=prefix, vocab_size=vocab, model_type=model_type,
                                          num_threads=threads, minloglevel=2)
else:
    os.environ["RAYON_NUM_THREADS"] = str(threads)
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, trainers
    if model_type == "bpe":
        tok = Tokenizer(models.BPE(unk_token="<unk>"))
        tr = trainers.BpeTrainer(vocab_size=vocab, special_tokens=["<unk>", "<s>", "</s>"], show_progress=False)
    else:
        tok = Tokenizer(models.Unigram())
        tr = trainers.UnigramTrainer(vocab_size=vocab, special_tokens=["<unk>", "<s>", "</s>"], unk_token="<unk>",
                                     show_progress=False)
    tok.normalizer = normalizers.NFKC()
    tok.pre_tokenizer = pre_tokenizers.Metaspace()
    tok.train([path], tr)
    tok.save(prefix + ".json")
wall = time.perf_counter() - t0
ru = resource.getrusage(resource.RUSAGE_SELF)
# VmHWM, not ru_maxrss: Linux carries ru_maxrss over from the parent across fork + exec.
hwm = next(int(x.split()[1]) for x in open("/proc/self/status") if x.startswith("VmHWM:"))
print(json.dumps({"wall": wall, "cpu": ru.ru_utime + ru.ru_stime, "rss_mb": hwm / 1024}))
"""


def make_input(mb: int, folder: str) -> tuple[str, list[str]]:
    """A file of about `mb` MB (thirds of en, code, multi) and held-out lines from beyond it."""
    parts, held = [], []
    for name in ("en", "code", "multi"):
        text = corpus_text(name)
        want = mb * 1_000_000 // 3
        reps = want // max(1, len(text)) + 1
        body = (text * reps)[:want]
        parts.append(body[: body.rfind("\n") + 1])
        mid = len(text) // 2
        held += [x for x in text[mid:mid + 200_000].split("\n")[1:-1] if x]
    path = os.path.join(folder, f"input_{mb}mb.txt")
    with open(path, "w", encoding="utf-8") as f:
        f.write("".join(parts))
    return path, held


def tokens_per_byte(trainer: str, prefix: str, lines: list[str]) -> float:
    nbytes = sum(len(x.encode()) for x in lines)
    if trainer == "hf":
        from tokenizers import Tokenizer

        tok = Tokenizer.from_file(prefix + ".json")
        return sum(len(e.ids) for e in tok.encode_batch(lines)) / nbytes
    import sentencepiece as spm

    sp = spm.SentencePieceProcessor(model_file=prefix + ".model")
    return sum(map(len, sp.encode(lines))) / nbytes


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[20], help="input sizes in MB")
    ap.add_argument("--vocabs", type=int, nargs="+", default=[8000])
    ap.add_argument("--types", nargs="+", default=["bpe", "unigram"])
    ap.add_argument("--trainers", nargs="+", default=["sentencepiece", "hf", "tokenforge"])
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=900, help="seconds per run")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        print(f"{'size':>5} {'type':8} {'vocab':>6} {'trainer':14} {'wall s':>8} {'cpu s':>8} {'RSS MB':>8} {'tok/B':>7}")
        for mb in args.sizes:
            path, held = make_input(mb, d)
            for model_type in args.types:
                for vocab in args.vocabs:
                    rows = {}
                    for trainer in args.trainers:
                        prefix = os.path.join(d, f"{trainer}_{model_type}_{vocab}_{mb}")
                        try:
                            out = subprocess.run([sys.executable, "-c", CHILD, trainer, model_type, str(vocab), path,
                                                  prefix, str(args.threads)], capture_output=True, text=True,
                                                 timeout=args.timeout)
                        except subprocess.TimeoutExpired:
                            print(f"{mb:>5} {model_type:8} {vocab:>6} {trainer:14} unfinished after {args.timeout} s "
                                  f"(--timeout)")
                            continue
                        if out.returncode != 0:
                            print(f"{mb:>5} {model_type:8} {vocab:>6} {trainer:14} failed: {out.stderr.strip()[-300:]}")
                            continue
                        r = json.loads(out.stdout.strip().splitlines()[-1])
                        r["tpb"] = tokens_per_byte(trainer, prefix, held)
                        rows[trainer] = r
                        print(f"{mb:>5} {model_type:8} {vocab:>6} {trainer:14} {r['wall']:8.2f} {r['cpu']:8.2f} "
                              f"{r['rss_mb']:8.0f} {r['tpb']:7.4f}", flush=True)
                    if "sentencepiece" in rows and "tokenforge" in rows:
                        a, b = rows["sentencepiece"], rows["tokenforge"]
                        print(f"      tokenforge vs sentencepiece: {a['wall'] / b['wall']:.2f}x faster (wall), "
                              f"{b['rss_mb'] / a['rss_mb']:.2f}x the peak RSS, {b['tpb'] / a['tpb']:.4f}x the "
                              f"tokens per byte")


if __name__ == "__main__":
    main()
