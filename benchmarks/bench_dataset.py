"""Datasets to token shards: `tokenforge tokenize` (tokenforge.data.tokenize_files) against
what users write today, a loop over tiktoken with multiprocessing.Pool(2) writing numpy
shards (nanoGPT's FineWeb script: the main process reads documents, the pool encodes them
with encode_ordinary, the main process appends the arrays to a shard buffer and saves it).

Input: a JSONL file of about --gb GB made of ~4 KB documents of the shared corpora (en,
code, multi, repeated), written under /tmp (never in the repo) once and reused.  Both
sides write uint32 shards of the same size with <|endoftext|> after each document, each
run in a child process; printed per side: input MB/s (wall), CPU seconds (user + system of
the process and its children, since the machine is shared), peak RSS (the largest of the
process and its children).  Then our shards are decoded back and compared with the input
documents, and (--compare-shards) with the baseline's, id for id.

Usage:
    python benchmarks/bench_dataset.py [--gb 1.0] [--encoding cl100k_base] [--threads 2]
                                       [--baseline-gb 1.0] [--no-verify]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import time

from _common import corpus_text, documents

SHARD = 100_000_000


def make_input(path: str, gb: float) -> int:
    """Writes (once) the JSONL of about `gb` GB; returns its size."""
    want = int(gb * 1e9)
    if os.path.exists(path) and abs(os.path.getsize(path) - want) < 10_000_000:
        return os.path.getsize(path)
    docs = [d for name in ("en", "code", "multi") for d in documents(corpus_text(name), 4096)]
    lines = [json.dumps({"text": d}, ensure_ascii=False) + "\n" for d in docs]
    block = "".join(lines).encode("utf-8")
    tmp = path + ".part"
    with open(tmp, "wb") as f:
        written = 0
        while written < want:
            piece = block[: want - written]
            piece = piece[: piece.rfind(b"\n") + 1]
            if not piece:
                break
            f.write(piece)
            written += len(piece)
    os.replace(tmp, path)
    return os.path.getsize(path)


# ---- the baseline: what a nanoGPT-style script does ----

_enc = None


def _init_worker(name: str) -> None:
    global _enc
    import tiktoken

    import tokenforge

    # tiktoken's Encoding on the shared rank file (tiktoken.get_encoding would download it).
    ours = tokenforge.get_encoding(name)
    _enc = tiktoken.Encoding(name, pat_str=ours._pat_str, mergeable_ranks=ours._mergeable_ranks,
                             special_tokens=ours._special_tokens)


def _tokenize_line(line: str):
    import numpy as np

    ids = _enc.encode_ordinary(json.loads(line)["text"])
    ids.append(_enc.eot_token)
    return np.array(ids, dtype=np.uint32)


def run_baseline(src: str, out: str, name: str, limit_bytes: int) -> None:
    import multiprocessing as mp

    import numpy as np

    os.makedirs(out, exist_ok=True)
    buf = np.empty(SHARD, dtype=np.uint32)
    fill, k = 0, 0

    def lines():
        seen = 0
        with open(src, encoding="utf-8") as f:
            for line in f:
                seen += len(line)
                if seen > limit_bytes:
                    return
                yield line

    with mp.Pool(2, initializer=_init_worker, initargs=(name,)) as pool:
        for ids in pool.imap(_tokenize_line, lines(), chunksize=16):
            while len(ids):
                take = min(SHARD - fill, len(ids))
                buf[fill:fill + take] = ids[:take]
                fill += take
                ids = ids[take:]
                if fill == SHARD:
                    np.save(os.path.join(out, f"shard_{k:06d}.npy"), buf)
                    fill, k = 0, k + 1
    if fill:
        np.save(os.path.join(out, f"shard_{k:06d}.npy"), buf[:fill])


def run_ours(src: str, out: str, name: str, threads: int) -> None:
    from tokenforge.data import tokenize_files

    tokenize_files([src], out, encoding=name, dtype="uint32", shard_size=SHARD, num_threads=threads, progress=False)


def child(args) -> None:
    t0 = time.perf_counter()
    if args.child == "ours":
        run_ours(args.src, args.out, args.encoding, args.threads)
    else:
        run_baseline(args.src, args.out, args.encoding, int(args.baseline_gb * 1e9))
    wall = time.perf_counter() - t0
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    # VmHWM, not ru_maxrss: Linux keeps the parent's ru_maxrss across fork + exec (the parent
    # held the corpus); pool workers' peaks come from RUSAGE_CHILDREN (forked after start).
    with open("/proc/self/status") as f:
        hwm = next(int(line.split()[1]) for line in f if line.startswith("VmHWM"))
    kid_rss = kids.ru_maxrss if args.child == "baseline" else 0
    print(json.dumps({"wall": wall, "cpu": me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime,
                      "rss_mb": max(hwm, kid_rss) / 1024}))


def run_side(side: str, args, src: str, out: str) -> dict:
    shutil.rmtree(out, ignore_errors=True)
    cmd = [sys.executable, __file__, "--child", side, "--src", src, "--out", out, "--encoding", args.encoding,
           "--threads", str(args.threads), "--baseline-gb", str(args.baseline_gb)]
    result = subprocess.run(cmd, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"{side} failed:\n{result.stderr}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def verify(src: str, out: str, name: str) -> str:
    import numpy as np

    import tokenforge
    from tokenforge.data import TokenDataset

    enc = tokenforge.get_encoding(name)
    ds = TokenDataset(out)
    with open(src, "rb") as f:
        for i, line in enumerate(f):
            ids = ds.document(i)
            if enc.decode_bytes(ids.tolist()) != json.loads(line)["text"].encode("utf-8"):
                return f"MISMATCH at document {i}"
    stream_ok = all(int(s[-1]) == enc.eot_token for s in ds.shards[-1:])
    return f"{len(ds)} documents decode back exactly" + ("" if stream_ok else " (last id is not eot!)") + \
        f", {sum(len(s) for s in ds.shards)} ids in {len(ds.shards)} shards ({np.dtype(ds.dtype).name})"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--gb", type=float, default=1.0)
    p.add_argument("--baseline-gb", type=float, default=None, help="time the baseline on this prefix (default: all)")
    p.add_argument("--encoding", default="cl100k_base")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--no-verify", action="store_true")
    p.add_argument("--child", choices=["ours", "baseline"])
    p.add_argument("--src")
    p.add_argument("--out")
    args = p.parse_args()
    if args.child:
        return child(args)
    args.baseline_gb = args.baseline_gb or args.gb
    tmp = os.environ.get("TMPDIR", "/tmp")
    src = os.path.join(tmp, f"tokenforge-bench-{args.gb:g}gb.jsonl")
    size = make_input(src, args.gb)
    print(f"input {src}: {size / 1e6:.0f} MB of JSONL; {args.encoding}, uint32 shards of {SHARD} ids;"
          f" {os.cpu_count()} CPUs (shared machine: other jobs were running)")
    ours = run_side("ours", args, src, os.path.join(tmp, "tokenforge-bench-ours"))
    base_bytes = min(size, int(args.baseline_gb * 1e9))
    base = run_side("baseline", args, src, os.path.join(tmp, "tokenforge-bench-baseline"))
    rows = [("tokenforge tokenize", size, ours), ("tiktoken + Pool(2)", base_bytes, base)]
    print(f"{'':<22}{'MB/s':>8}{'CPU s/GB':>10}{'peak RSS MB':>13}")
    for label, nbytes, r in rows:
        print(f"{label:<22}{nbytes / 1e6 / r['wall']:>8.1f}{r['cpu'] / (nbytes / 1e9):>10.1f}{r['rss_mb']:>13.0f}")
    speed = (size / ours["wall"]) / (base_bytes / base["wall"])
    cpu = (base["cpu"] / base_bytes) / (ours["cpu"] / size)
    print(f"ratio: {speed:.2f} x the baseline's MB/s (wall), {cpu:.2f} x less CPU per byte")
    if not args.no_verify:
        print(verify(src, os.path.join(tmp, "tokenforge-bench-ours"), args.encoding))


if __name__ == "__main__":
    main()
