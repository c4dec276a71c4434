"""BPE training: wall time and peak memory of tokenforge vs HF tokenizers, rustbpe, bpeasy.

Every trainer runs in its own subprocess, so its peak RSS (VmHWM) is that trainer's alone; the time is the training call measured inside the subprocess (imports
excluded).  Inputs: en+code+multi together (72 MB) and mixed.txt (the adversarial file),
vocabulary 32768.  tokenforge and HF read the file themselves; rustbpe and bpeasy get it as
an iterator of ~64 kB documents read lazily (they cannot read files).

Options:
    --parity   also check that tokenforge's merges equal HF's on the whole corpus (same
               documents, Llama 3 pattern; takes a minute or two for HF).
    --big GB   build a file of about GB gigabytes by repeating and shuffling the corpus
               paragraphs (in $TMPDIR or /tmp), report tokenforge's time and peak memory
               on it, then delete the file.

Usage:
    python benchmarks/bench_train.py [--vocab 32768] [--tools tokenforge hf rustbpe bpeasy]
                                     [--inputs ecm mixed] [--parity] [--big 2] [--repeat 5]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

from _common import corpus_text

TMP = Path(os.environ.get("TMPDIR", "/tmp"))
TOOLS = ["tokenforge", "hf", "rustbpe", "bpeasy"]


def input_path(name: str) -> Path:
    """A corpus input as a file: 'ecm' (en+code+multi) or a corpus file name."""
    path = TMP / f"tokenforge-train-{name}.txt"
    if not path.exists():
        parts = ["en", "code", "multi"] if name == "ecm" else [name]
        tmp = path.with_suffix(".part")
        tmp.write_text("".join(corpus_text(p) for p in parts), encoding="utf-8")
        os.replace(tmp, path)
    return path


def big_input(gigabytes: float) -> Path:
    """About `gigabytes` GB of corpus paragraphs, shuffled and repeated (seeded)."""
    path = TMP / f"tokenforge-train-big-{gigabytes:g}.txt"
    paragraphs = "".join(corpus_text(p) for p in ("en", "code", "multi", "mixed")).split("\n\n")
    rng = random.Random(20241122)
    target, written = int(gigabytes * 1e9), 0
    tmp = path.with_suffix(".part")
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            while written < target:
                rng.shuffle(paragraphs)
                for p in paragraphs:
                    f.write(p + "\n\n")
                    written += len(p.encode("utf-8")) + 2
                    if written >= target:
                        break
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    os.replace(tmp, path)
    return path


def documents(path: Path, size: int = 1 << 16):
    """The file as documents of about `size` characters, cut at line ends, read lazily."""
    buf, n = [], 0
    with open(path, encoding="utf-8", newline="") as f:
        for line in f:
            buf.append(line)
            n += len(line)
            if n >= size:
                yield "".join(buf)
                buf, n = [], 0
    if buf:
        yield "".join(buf)


def train(tool: str, path: Path, vocab: int) -> dict:
    """Runs one trainer (inside the worker subprocess); returns its time and vocab size."""
    from tokenforge import patterns

    t0 = time.perf_counter()
    if tool == "tokenforge":
        import tokenforge

        enc = tokenforge.BpeTrainer(vocab, pat_str=patterns.CL100K, show_progress=False).train([path])
        n = enc.n_vocab
    elif tool == "hf":
        from tokenizers import Regex, Tokenizer, models, pre_tokenizers, trainers

        tok = Tokenizer(models.BPE())
        tok.pre_tokenizer = pre_tokenizers.Sequence(
            [
                pre_tokenizers.Split(Regex(patterns.LLAMA3), behavior="isolated"),
                pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
            ]
        )
        trainer = trainers.BpeTrainer(
            vocab_size=vocab, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False
        )
        tok.train([str(path)], trainer)
        n = tok.get_vocab_size()
    elif tool == "rustbpe":
        import rustbpe

        tok = rustbpe.Tokenizer()
        tok.train_from_iterator(documents(path), vocab, pattern=patterns.LLAMA3)
        n = tok.vocab_size
    elif tool == "bpeasy":
        import bpeasy

        n = len(bpeasy.train_bpe(documents(path), patterns.LLAMA3, 128, vocab))
    else:
        raise ValueError(tool)
    return {"seconds": time.perf_counter() - t0, "vocab": n, "rss_mb": peak_rss_mb()}


def peak_rss_mb() -> float:
    """This process's peak RSS since exec (VmHWM).  ru_maxrss of a child is no good here: on
    Linux it also counts the parent's memory image that the child was forked from."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def measure(tool: str, path: Path, vocab: int, repeat: int = 1) -> dict:
    """Runs `tool` in a subprocess `repeat` times; each reports its time and peak RSS in MB.
    The result is the fastest run (on a shared machine the others only measure the load)."""
    runs = []
    for _ in range(repeat):
        cmd = [sys.executable, __file__, "--worker", tool, str(path), str(vocab)]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        out = proc.stdout.read()
        err = proc.stderr.read()
        if proc.wait() != 0:
            return {"error": err.strip().splitlines()[-1] if err.strip() else f"exit status {proc.returncode}"}
        runs.append(json.loads(out))
    return min(runs, key=lambda r: r["seconds"])


def parity(vocab: int) -> None:
    """HF's and tokenforge's merges on the same documents of en+code+multi."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "parity"))
    from test_train_parity import first_difference, hf_merges, our_merges

    docs = list(documents(input_path("ecm"), 1 << 20))
    t0 = time.perf_counter()
    ours = our_merges(docs, vocab)
    t1 = time.perf_counter()
    theirs = hf_merges(docs, vocab)
    t2 = time.perf_counter()
    verdict = "IDENTICAL" if ours == theirs else "DIFFERENT: " + first_difference(ours, theirs)
    print(f"parity on en+code+multi, vocab {vocab}: {len(ours)} merges {verdict} (ours {t1 - t0:.1f} s, HF {t2 - t1:.1f} s)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--vocab", type=int, default=32768)
    parser.add_argument("--tools", nargs="+", default=TOOLS, choices=TOOLS)
    parser.add_argument("--inputs", nargs="+", default=["ecm", "mixed"])
    parser.add_argument("--parity", action="store_true")
    parser.add_argument("--big", type=float, default=0.0, help="also train on a GB-sized shuffled corpus")
    parser.add_argument("--repeat", type=int, default=1, help="runs per trainer and input; the fastest is shown")
    parser.add_argument("--worker", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        tool, path, vocab = args.worker
        print(json.dumps(train(tool, Path(path), int(vocab))))
        return
    per_byte = {}  # input -> tokenforge's seconds per byte
    for name in args.inputs:
        path = input_path(name)
        size = path.stat().st_size
        print(f"\n{name}: {size / 1e6:.1f} MB, vocab {args.vocab}")
        results = {tool: measure(tool, path, args.vocab, args.repeat) for tool in args.tools}
        base = results.get("tokenforge", {})
        for tool, r in results.items():
            if "error" in r:
                print(f"  {tool:<11} failed: {r['error']}")
                continue
            ratio = f"  tokenforge is {r['seconds'] / base['seconds']:.1f}x faster" if "seconds" in base and tool != "tokenforge" else ""
            print(f"  {tool:<11} {r['seconds']:7.2f} s  {r['rss_mb']:7.0f} MB  {size / r['seconds'] / 1e6:6.1f} MB/s{ratio}")
        if "seconds" in base:
            per_byte[name] = base["seconds"] / size
    if "mixed" in per_byte and "ecm" in per_byte:
        print(f"\ntokenforge's time per byte, mixed / ecm: {per_byte['mixed'] / per_byte['ecm']:.2f}x")
    if args.parity:
        parity(args.vocab)
    if args.big:
        path = big_input(args.big)
        try:
            r = measure("tokenforge", path, args.vocab)
            size = path.stat().st_size
        finally:
            path.unlink()  # do not leave gigabytes behind
        print(f"\nbig: {size / 1e9:.2f} GB shuffled corpus, vocab {args.vocab}: tokenforge {r.get('seconds', 0):.1f} s, "
              f"peak RSS {r.get('rss_mb', 0):.0f} MB {r.get('error', '')}")


if __name__ == "__main__":
    main()
