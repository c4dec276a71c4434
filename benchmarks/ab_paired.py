"""Paired A/B of two builds of `_native` on one text, one core, taking turns encode by encode.

(--threads N runs the children unpinned, timing wall clock: a one-text encode on N threads.)

This machine's speed drifts by tens of percent over seconds (other tenants of the host),
so two builds timed one after the other, even alternating by process, differ by more than
most changes do.  Here both builds run at once, one child process each, pinned to the same
core: the parent asks them in turn (A B, B A, ...) to encode the text once and report the
CPU time, so each pair of timings is taken moments apart and the drift cancels in their
ratio.  Printed: each build's median and minimum, and the median of the per-pair ratios
B/A with its interquartile range (an A/A run, the same build twice, gives about 1.00).

Modes: `cold` encodes with a fresh instance each time (warmed on 400 kB of mixed.txt, as
bench_one_text.py warms them; the next one is built before the child answers, so never
while the other build is timed), `warm`
encodes again with one instance (every piece cached), `count` is `count_tokens` on a
warm instance.  Ids are compared between the builds once.

    python benchmarks/ab_paired.py A.so B.so FILE_OR_CORPUS [...] [--encoding cl100k_base]
                                   [--mode cold|warm|count] [--rounds 40] [--mb 3] [--hf gemma]

With `--hf NAME` the child runs a tokenizer.json file of ../shared/models/hf instead: its
`encode_batch` of the text in 4 KB documents, offsets read (`--mode count`: `encode_batch_fast`, ids read),
truncation and padding off, on one thread.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import os
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(os.path.dirname(HERE), "src", "tokenforge")


def child(args) -> None:
    """Loads the build on sys.path, then answers 'go' lines with one timing each."""
    sys.path.insert(0, HERE)
    from _common import corpus_text, documents

    import tokenforge

    text = args.texts[0]
    t = open(text, encoding="utf-8").read() if os.path.exists(text) else corpus_text(text)
    t = t[: int(args.mb * 1_000_000)]
    warm = corpus_text("mixed", 400_000)
    if args.hf:
        hf_child(args, documents(t), documents(warm[:200_000]))
        return
    base = tokenforge.get_encoding(args.encoding)

    def fresh():
        e = tokenforge.Encoding(args.encoding, pat_str=base._pat_str, mergeable_ranks=base._mergeable_ranks,
                                special_tokens={})
        e.encode_ordinary(warm, num_threads=1)
        return e

    def timed(enc) -> None:
        if args.mode == "count":
            enc.count_tokens(t, num_threads=args.threads)
        else:
            enc.encode_ordinary(t, num_threads=args.threads)

    serve(args.mode, fresh, lambda enc: enc.encode_ordinary(t, num_threads=1), timed, args.threads)


def hf_child(args, docs: list[str], warm: list[str]) -> None:
    """child() for a tokenizer.json file: `encode_batch` (offsets read) of 4 KB documents."""
    from _common import MODELS

    from tokenforge import Tokenizer

    path = str(MODELS / "hf" / f"{args.hf}_tokenizer.json")

    def fresh():
        tok = Tokenizer.from_file(path)
        tok.no_truncation()
        tok.no_padding()
        tok.encode_batch(warm, num_threads=1)
        return tok

    def timed(tok) -> None:
        if args.mode == "count":  # the fast row: ids only (read, as bench_hf_json.py reads them)
            [e.ids for e in tok.encode_batch_fast(docs, num_threads=1)]
        else:
            [e.offsets for e in tok.encode_batch(docs, num_threads=1)]

    serve(args.mode, fresh, lambda tok: [e.ids for e in tok.encode_batch(docs, num_threads=1)], timed)


def serve(mode: str, fresh, ids_of, timed, threads: int = 1) -> None:
    """A child's protocol: the digest of ids_of(a fresh instance), then per 'go' line the CPU
    ms of timed(instance) (wall ms with several threads; a new fresh instance each time in
    cold mode)."""
    clock = time.process_time if threads == 1 else time.perf_counter
    obj = fresh()
    print(hashlib.sha256(str(ids_of(obj)).encode()).hexdigest(), flush=True)
    upcoming = fresh()
    for _ in sys.stdin:
        if mode == "cold":
            obj = upcoming
        t0 = clock()
        timed(obj)
        took = clock() - t0
        if mode == "cold":  # before answering: the other build's turn must not share the core with it
            upcoming = fresh()
        gc.collect()  # what the load and this encode left is not collected inside the next timing
        print(f"{took * 1e3:.3f}", flush=True)


def package_with(so: str, root: str) -> str:
    """A copy of src/tokenforge with `so` as its _native module; returns the folder to put on sys.path."""
    pkg = os.path.join(root, "tokenforge")
    shutil.copytree(SRC, pkg, ignore=shutil.ignore_patterns("_native*.so", "__pycache__"))
    shutil.copy(so, os.path.join(pkg, "_native" + sysconfig.get_config_var("EXT_SUFFIX")))
    # An editable install's finder would load the installed build first: a sitecustomize
    # in the same folder drops it.
    with open(os.path.join(root, "sitecustomize.py"), "w") as f:
        f.write("import sys\nsys.meta_path[:] = [f for f in sys.meta_path if 'editable' not in "
                "type(f).__module__.lower() and 'scikit' not in type(f).__name__.lower()]\n")
    return root


def compare(args, text: str) -> None:
    core = str(min(os.sched_getaffinity(0)))
    procs = {}
    with tempfile.TemporaryDirectory() as tmp:
        for tag, so in (("A", args.a), ("B", args.b)):
            root = package_with(so, os.path.join(tmp, tag))
            env = dict(os.environ, PYTHONPATH=root)
            pin = ["taskset", "-c", core] if args.threads == 1 else []
            cmd = [*pin, sys.executable, __file__, "--child", args.a, args.b, text, "--threads", str(args.threads),
                   "--encoding", args.encoding, "--mode", args.mode, "--mb", str(args.mb)]
            if args.hf:
                cmd += ["--hf", args.hf]
            procs[tag] = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
        digests = {tag: p.stdout.readline().strip() for tag, p in procs.items()}
        if len(set(digests.values())) != 1:
            print(f"!! the builds' ids differ on {text}")
        times = {"A": [], "B": []}
        for r in range(args.rounds):
            for tag in ("A", "B") if r % 2 == 0 else ("B", "A"):
                p = procs[tag]
                p.stdin.write("go\n")
                p.stdin.flush()
                times[tag].append(float(p.stdout.readline()))
        for p in procs.values():
            p.stdin.close()
            p.wait()
    ratios = sorted(b / a for a, b in zip(times["A"], times["B"]))
    q = len(ratios) // 4
    a, b = times["A"], times["B"]
    what = args.hf or args.encoding
    print(f"{os.path.basename(text)} {what} {args.mode}: A median {statistics.median(a):.1f} ms "
          f"(min {min(a):.1f}), B median {statistics.median(b):.1f} ms (min {min(b):.1f}); "
          f"B/A median of pairs {statistics.median(ratios):.3f} (IQR {ratios[q]:.3f}-{ratios[-q - 1]:.3f})",
          flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("texts", nargs="+")
    ap.add_argument("--encoding", default="cl100k_base")
    ap.add_argument("--mode", choices=["cold", "warm", "count"], default="cold")
    ap.add_argument("--rounds", type=int, default=40)
    ap.add_argument("--threads", type=int, default=1,
                    help="encode_ordinary's num_threads (not --hf); above 1 the children run unpinned and report wall time")
    ap.add_argument("--mb", type=float, default=3.0)
    ap.add_argument("--hf", help="a ../shared/models/hf file (gpt2, gemma, ...): its Tokenizer's encode_batch "
                                 "of 4 KB documents, offsets read (--mode count: encode_batch_fast)")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args)
        return
    for text in args.texts:
        compare(args, text)


if __name__ == "__main__":
    main()
