"""Throughput of SentencePiece encoding: tokenforge vs sentencepiece vs HF tokenizers vs fastokens.

For every model in ../shared/models/sentencepiece and every corpus file in ../shared/corpus,
encodes (a) a list of lines and (b) a list of whole documents to lists of ids, with one
and with two threads, and prints MB/s per library and the ratios tokenforge/sentencepiece
and tokenforge/fastokens.  HF tokenizers and fastokens run on the equivalent tokenizer.json
in ../shared/models/hf where one exists (fastokens cannot load every json).  An adversarial
group times single long texts: 1 MB of one letter, 1 MB of digits, and space-free CJK.

Usage:
    python benchmarks/bench_spm.py [--mb 1.0] [--models llama2,rut5] [--corpora en,multi] [--repeat 2]
    python benchmarks/bench_spm.py --long-text 4 [--models ...] [--corpora en,code,multi] [--repeat 3]

--long-text MB times instead one text of MB megabytes per corpus file (its start), encoded
whole: tokenforge with num_threads=1 and num_threads=2 (the text cut into parts on the
native pool) and sentencepiece (one thread for one text), each on a fresh processor per
repetition (cold caches), best of --repeat, in this process: wall time, process CPU time
(all threads) and their ratio, and the ratios tf2/tf1 and tf2/spm by wall time.

Thread counts are set per child process (RAYON_NUM_THREADS for the Rust libraries; the
one-thread child is also pinned to one core), so the script re-runs itself once per thread
count.  It prints results; it asserts nothing.

On a machine shared with other sessions, the scheduler splits the cores between sessions
whatever their nice values (autogroup), so a two-thread run often gets one core and
tf/tf1 reads 1.0-1.4 x.  For two-thread figures run it in short bursts under
`chrt -f 1 python benchmarks/bench_spm.py --models ... --corpora ...` (as root), which
gives the two cores to the benchmark while it runs.
"""

from __future__ import annotations

import argparse
import json
import lzma
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT / ".." / "shared"
SPM_DIR = SHARED / "models" / "sentencepiece"
HF_DIR = SHARED / "models" / "hf"
CORPUS_DIR = SHARED / "corpus"
HF_EQUIVALENT = {"mistral_v1_tokenizer.model": "mistral_v1_tokenizer.json", "rut5_spiece.model": "rut5_tokenizer.json"}


def load_corpus(name: str, budget: int) -> tuple[list[str], list[str]]:
    """About `budget` bytes of lines and of whole documents from the start of a corpus file."""
    with lzma.open(CORPUS_DIR / f"{name}.txt.xz", "rt", encoding="utf-8", newline="") as f:
        text = f.read(budget * 3)
    lines, docs, size = [], [], 0
    for line in text.split("\n"):
        if size >= budget:
            break
        lines.append(line)
        size += len(line.encode()) + 1
    size = 0
    for doc in text.split("\n\n"):
        if size >= budget:
            break
        docs.append(doc)
        size += len(doc.encode()) + 2
    return lines, docs


def adversarial() -> dict[str, list[str]]:
    with lzma.open(CORPUS_DIR / "multi.txt.xz", "rt", encoding="utf-8") as f:
        cjk = "".join(ch for ch in f.read(4_000_000) if "\u4e00" <= ch <= "\u9fff")[:350_000]
    return {"1MB 'a'": ["a" * 1_000_000], "1MB digits": ["7" * 1_000_000], "CJK no spaces": [cjk]}


def best_time(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def encoders(model: str, threads: int) -> dict:
    """name -> function(list of texts) -> list of id lists, for the libraries that load `model`."""
    import sentencepiece as spm

    import tokenforge

    out = {}
    tf = tokenforge.SentencePieceProcessor(model_file=str(SPM_DIR / model))
    out["tokenforge"] = lambda texts: tf.encode(texts, num_threads=threads)
    sp = spm.SentencePieceProcessor(model_file=str(SPM_DIR / model))
    out["sentencepiece"] = lambda texts: sp.encode(texts, num_threads=threads)
    hf_json = HF_EQUIVALENT.get(model)
    if hf_json and (HF_DIR / hf_json).exists():
        try:
            import tokenizers

            hf = tokenizers.Tokenizer.from_file(str(HF_DIR / hf_json))
            hf.no_truncation()
            hf.no_padding()
            out["hf-tokenizers"] = lambda texts: [e.ids for e in hf.encode_batch(texts, add_special_tokens=False)]
        except Exception as e:  # noqa: BLE001 - report and go on
            print(f"  (HF tokenizers cannot load {hf_json}: {e})", file=sys.stderr)
        try:
            import fastokens

            ft = fastokens.Tokenizer.from_file(str(HF_DIR / hf_json))
            out["fastokens"] = lambda texts: [e.ids for e in ft.encode_batch(texts)]
        except Exception as e:  # noqa: BLE001
            print(f"  (fastokens cannot load {hf_json}: {str(e)[:80]})", file=sys.stderr)
    return out


def child(args: argparse.Namespace) -> None:
    """Runs every measurement with args.threads threads; prints one JSON record per line."""
    if args.threads == 1 and hasattr(os, "sched_setaffinity"):
        # Pin to one core: fastokens keeps helper threads even with RAYON_NUM_THREADS=1
        # (about 1.6 CPU-seconds per wall second measured here), which is not single-thread.
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    corpora = {c: load_corpus(c, int(args.mb * 1e6)) for c in args.corpora}
    for model in args.models:
        libs = encoders(model, args.threads)
        groups = [(c, kind, texts) for c, (lines, docs) in corpora.items()
                  for kind, texts in (("lines", lines), ("docs", docs))]
        if args.adversarial:
            groups += [("adversarial", name, texts) for name, texts in adversarial().items()]
        for corpus, kind, texts in groups:
            nbytes = sum(len(t.encode()) for t in texts)
            rec = {"model": model, "corpus": corpus, "kind": kind, "threads": args.threads, "mbps": {}}
            for name, fn in libs.items():
                rec["mbps"][name] = nbytes / best_time(lambda: fn(texts), args.repeat) / 1e6
            print(json.dumps(rec), flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mb", type=float, default=1.0, help="MB of lines and of documents per corpus file")
    ap.add_argument("--models", default="", help="comma-separated substrings of model file names (default: all)")
    ap.add_argument("--corpora", default="en,code,multi,mixed")
    ap.add_argument("--threads", type=int, default=0, help="(internal) run one thread count in this process")
    ap.add_argument("--thread-counts", default="1,2")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--no-adversarial", dest="adversarial", action="store_false")
    ap.add_argument("--long-text", type=float, default=0.0, metavar="MB",
                    help="time one long text of MB megabytes per corpus instead (see above)")
    args = ap.parse_args()
    models = sorted(p.name for p in SPM_DIR.glob("*.model"))
    if args.models:
        models = [m for m in models if any(s in m for s in args.models.split(","))]
    args.models, args.corpora = models, args.corpora.split(",")
    if args.long_text:
        long_text(args)
        return
    if args.threads:
        child(args)
        return

    records = []
    for threads in (int(t) for t in args.thread_counts.split(",")):
        env = dict(os.environ, RAYON_NUM_THREADS=str(threads), TOKENIZERS_PARALLELISM="true")
        cmd = [sys.executable, __file__, "--threads", str(threads), "--mb", str(args.mb), "--repeat", str(args.repeat),
               "--models", ",".join(models), "--corpora", ",".join(args.corpora)]
        if not args.adversarial:
            cmd.append("--no-adversarial")
        proc = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, text=True, check=True)
        records += [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    report(records)


def long_text(args: argparse.Namespace) -> None:
    """One long text per corpus: tokenforge on 1 and 2 threads vs sentencepiece, wall and CPU time."""
    import sentencepiece as spm

    import tokenforge

    def timed(make, run, repeat: int) -> tuple[float, float]:
        best_wall = best_cpu = float("inf")
        for _ in range(repeat):
            enc = make()  # fresh instance: its word caches start cold
            w, c = time.perf_counter(), time.process_time()
            run(enc)
            best_wall = min(best_wall, time.perf_counter() - w)
            best_cpu = min(best_cpu, time.process_time() - c)
        return best_wall, best_cpu

    budget = int(args.long_text * 1e6)
    texts = {}
    for name in args.corpora:
        with lzma.open(CORPUS_DIR / f"{name}.txt.xz", "rt", encoding="utf-8", newline="") as f:
            texts[name] = f.read(budget)
    print(f"one long text per corpus, best of {args.repeat}, fresh processor each time; wall ms / CPU ms (all threads)")
    print(f"{'model':<28} {'corpus':<6} {'MB':>5} {'tf 1 thr':>15} {'tf 2 thr':>15} {'sentencepiece':>15} "
          f"{'cpu/wall':>8} {'tf2/tf1':>7} {'tf2/spm':>7}")
    for model in args.models:
        path = str(SPM_DIR / model)
        for name, text in texts.items():
            expected = None
            rows = {}
            for label, make, run in (
                ("tf1", lambda: tokenforge.SentencePieceProcessor(model_file=path), lambda e: e.encode(text, num_threads=1)),
                ("tf2", lambda: tokenforge.SentencePieceProcessor(model_file=path), lambda e: e.encode(text, num_threads=2)),
                ("spm", lambda: spm.SentencePieceProcessor(model_file=path), lambda e: e.encode(text)),
            ):
                ids = run(make())
                if expected is None:
                    expected = ids
                elif ids != expected:
                    print(f"  {model} {name}: {label} ids differ from tf1's", file=sys.stderr)
                rows[label] = timed(make, run, args.repeat)
            fmt = lambda wc: f"{wc[0] * 1e3:7.1f}/{wc[1] * 1e3:7.1f}"  # noqa: E731
            print(f"{model.removesuffix('.model'):<28} {name:<6} {len(text.encode()) / 1e6:5.2f} {fmt(rows['tf1'])} "
                  f"{fmt(rows['tf2'])} {fmt(rows['spm'])} {rows['tf2'][1] / rows['tf2'][0]:8.2f} "
                  f"{rows['tf1'][0] / rows['tf2'][0]:7.2f} {rows['spm'][0] / rows['tf2'][0]:7.2f}", flush=True)


def report(records: list[dict]) -> None:
    single = {(r["model"], r["corpus"], r["kind"]): r["mbps"] for r in records if r["threads"] == 1}
    print(f"{'model':<30} {'corpus':<12} {'input':<14} {'thr':>3} {'tokenforge':>10} {'spm':>8} {'hf':>8} "
          f"{'fastok':>8} {'tf/spm':>7} {'tf/fast':>7} {'tf/tf1':>7}")
    for r in records:
        m = r["mbps"]
        tf, sp = m.get("tokenforge"), m.get("sentencepiece")
        hf, ft = m.get("hf-tokenizers"), m.get("fastokens")
        tf1 = single.get((r["model"], r["corpus"], r["kind"]), {}).get("tokenforge")
        fmt = lambda x: f"{x:8.1f}" if x else f"{'-':>8}"  # noqa: E731
        ratio = lambda a, b: f"{a / b:7.2f}" if a and b else f"{'-':>7}"  # noqa: E731
        print(f"{r['model']:<30} {r['corpus']:<12} {r['kind']:<14} {r['threads']:>3} {tf:10.1f} {fmt(sp)} {fmt(hf)} "
              f"{fmt(ft)} {ratio(tf, sp)} {ratio(tf, ft)} {ratio(tf, tf1) if r['threads'] != 1 else f'{1:7.2f}'}")


if __name__ == "__main__":
    main()
