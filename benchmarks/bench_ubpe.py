"""UBPE: tokenforge.ubpe against PyPI `ubpe` 0.3.0's C++ backend (ubpe-cython), same inputs.

Fits both models on the first `--fit-bytes` of a corpus (lines as UTF-8 bytes, alphabet
0..255, vocab `--vocab`), then encodes the next `--encode-bytes` line by line: classic, and
universal with top_n=1.  ubpe needs CPython >= 3.12, so it runs in .venv-ubpe
(scripts/ubpe_venv.sh) through scripts/ubpe_oracle.py; ours runs here.  Both sides are timed
in thread CPU time (the machine may be shared), one thread each.  Prints seconds, the ratios
(ubpe / ours), tokens per byte, and whether the dumps and encodings agree.

    python benchmarks/bench_ubpe.py [--corpus en] [--fit-bytes 1000000] [--encode-bytes 200000]
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import time

from _common import REPO, corpus_text

from tokenforge.ubpe import UBPE, UBPEClassic


def byte_lines(data: bytes) -> list[list[int]]:
    return [list(line) for line in data.split(b"\n") if line]


def run_ubpe(models: list[dict], backend: str) -> list[dict]:
    py = REPO / ".venv-ubpe" / "bin" / "python"
    if not py.exists():
        sys.exit(f"{py} is missing: run scripts/ubpe_venv.sh")
    proc = subprocess.run([str(py), str(REPO / "scripts" / "ubpe_oracle.py")],
                          input=json.dumps({"backend": backend, "models": models}),
                          capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(proc.stderr[-3000:])
    return json.loads(proc.stdout)


def same(a: list, b: list) -> str:
    ids = sum(x[0][0] == y[0][0] for x, y in zip(a, b))
    weights = sum(math.isclose(x[0][1], y[0][1], rel_tol=1e-9, abs_tol=1e-9) for x, y in zip(a, b))
    return f"{ids}/{len(a)} same ids, {weights}/{len(a)} same weight"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default="en")
    ap.add_argument("--fit-bytes", type=int, default=1_000_000)
    ap.add_argument("--encode-bytes", type=int, default=200_000)
    ap.add_argument("--vocab", type=int, default=4096)
    ap.add_argument("--no-rearrange", action="store_true")
    ap.add_argument("--backend", default="cython", help="ubpe backend: cython or native")
    args = ap.parse_args()

    data = corpus_text(args.corpus).encode("utf-8")
    fit_docs = byte_lines(data[:args.fit_bytes])
    enc_docs = byte_lines(data[args.fit_bytes:args.fit_bytes + args.encode_bytes])
    enc_bytes = sum(map(len, enc_docs))
    rearrange = not args.no_rearrange
    print(f"corpus {args.corpus}: fit {args.fit_bytes} B ({len(fit_docs)} lines), encode "
          f"{enc_bytes} B ({len(enc_docs)} lines), vocab {args.vocab}, rearrange_tokens={rearrange}, "
          f"ubpe-{args.backend}; thread CPU seconds")

    specs = [{"cls": name, "alphabet": list(range(256)), "symbols": "int", "n_tokens": args.vocab,
              "corpus": fit_docs, "fit_kwargs": {"rearrange_tokens": rearrange},
              "docs": enc_docs, "top_n": [1]} for name in ("UBPEClassic", "UBPE")]
    theirs = run_ubpe(specs, args.backend)

    for cls, res in zip((UBPEClassic, UBPE), theirs):
        model = cls(list(range(256)), n_tokens=args.vocab)
        t0 = time.thread_time()
        model.fit(fit_docs, rearrange_tokens=rearrange)
        fit_s = time.thread_time() - t0
        t0 = time.thread_time()
        ours = model.encode_batch(enc_docs, num_threads=1)
        enc_s = time.thread_time() - t0
        tokens = sum(len(e[0][0]) for e in ours)
        their_tokens = sum(len(e[0][0]) for e in res["encodings"]["1"])
        print(f"\n{cls.__name__}:")
        print(f"  fit     ours {fit_s:8.3f} s   ubpe {res['fit_seconds']:8.3f} s   "
              f"ratio {res['fit_seconds'] / fit_s:7.1f}x   same dump: {model.dumps() == res['dump']}")
        print(f"  encode  ours {enc_s:8.3f} s   ubpe {res['encodings']['seconds_1']:8.3f} s   "
              f"ratio {res['encodings']['seconds_1'] / enc_s:7.1f}x   "
              f"ours {enc_bytes / enc_s / 1e6:.2f} MB/s")
        print(f"  tokens/byte  ours {tokens / enc_bytes:.3f}   ubpe {their_tokens / enc_bytes:.3f}   "
              f"({same(ours, res['encodings']['1'])})")


if __name__ == "__main__":
    main()
