"""Peak memory of `Encoding.encode_to_numpy` on one long text, one thread against several
(issue 32, item 4): what the call adds to the process at its peak, in multiples of the
text's UTF-8 size, beside the result's own size.

Each case runs in a fresh subprocess: it builds the text (a corpus repeated to SIZE_MB),
resets the kernel's peak-RSS mark (/proc/self/clear_refs), calls encode_to_numpy and reads
VmHWM, twice.  The first call also fills each worker thread's bounded piece cache (that
memory stays, to be reused: the more threads, the more caches); the second shows what a
call itself holds.  The ids of every thread count are checked equal to the one-thread ids
(by a hash of the array, so two arrays are never held at once).  Linux only.

    python benchmarks/memory_numpy.py [SIZE_MB] [CORPUS ...]   # default 200 MB of en, multi

Left out: time (benchmarks/bench_one_text.py), SentencePiece, count_tokens and encode
(lists of ints are 8+ bytes an id whatever the threads).
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

THREADS = [1, 2, 4, None]  # None: the default (TOKENFORGE_NUM_THREADS or the CPU count)


def _status(field: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise RuntimeError(field)


def measure(corpus: str, size_mb: int, threads: int | None) -> dict:
    """One case, in this process: the call's peak RSS above the RSS before it."""
    import tokenforge
    from _common import corpus_text

    base = corpus_text(corpus)
    text = base * max(1, size_mb * 2**20 // len(base.encode("utf-8")))
    utf8_size = len(text.encode("utf-8"))
    enc = tokenforge.get_encoding("cl100k_base")
    added = []
    for _ in range(2):
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")  # resets VmHWM to the current RSS
        before = _status("VmRSS")
        ids = enc.encode_to_numpy(text, num_threads=threads)
        added.append(_status("VmHWM") - before)
        sha, n, nbytes = hashlib.sha256(ids.tobytes()).hexdigest(), len(ids), ids.nbytes
        del ids
    return {"corpus": corpus, "threads": threads, "chars": len(text), "utf8": utf8_size, "ids": n,
            "added": added, "result": nbytes, "sha": sha}


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--one":
        print(json.dumps(measure(sys.argv[2], int(sys.argv[3]), None if sys.argv[4] == "None" else int(sys.argv[4]))))
        return
    size_mb = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    corpora = sys.argv[2:] or ["en", "multi"]
    print(f"{'corpus':8} {'threads':>7} {'text MB':>8} {'result MB':>9} {'peak added MB, 1st call':>24} "
          f"{'2nd call':>9} {'2nd / result':>12}  same ids")
    for corpus in corpora:
        want = None
        for threads in THREADS:
            out = subprocess.run([sys.executable, __file__, "--one", corpus, str(size_mb), str(threads)],
                                 capture_output=True, text=True, check=True)
            r = json.loads(out.stdout)
            want = want or r["sha"]
            first, second = (a / 2**20 for a in r["added"])
            print(f"{corpus:8} {str(threads):>7} {r['utf8'] / 2**20:8.0f} {r['result'] / 2**20:9.0f} {first:24.0f} "
                  f"{second:9.0f} {r['added'][1] / r['result']:12.2f}  {r['sha'] == want}", flush=True)


if __name__ == "__main__":
    main()
