"""Where the CPU of one long text on several threads goes, per thread, on a busy machine.

Wall-clock ratios of `bench_one_text.py` swing with other jobs; CPU time per thread does
not (much).  For each text this prints, on fresh instances (warmed on other text) and,
"warm", on an instance that has encoded the same text once:

- the CPU time of `num_threads=1` and the sum over threads of `num_threads=N` (from
  /proc/self/task/*/schedstat, nanoseconds), and how much more the N threads spent;
- the busiest thread's CPU time, and `1 thread / busiest`: the speed-up the threads would
  give on otherwise idle cores, if they never waited;
- minor page faults per call (first touch of fresh memory).

`count_tokens` next to `encode_ordinary` separates the encoding (both) from building the
list (only the latter).  Cold minus warm extra CPU is what the threads' separate piece
caches cost (each merges the new pieces the other also merges).

    python benchmarks/bench_one_text_cpu.py FILE_OR_CORPUS [...] [--encodings cl100k_base o200k_base]
                                            [--threads 2] [--repeat 7] [--mb 4]
"""

from __future__ import annotations

import os
import resource
import statistics

from _common import corpus_text

import tokenforge
from bench_one_text import arguments, load


def thread_cpu() -> dict[str, float]:
    """CPU seconds of each thread of this process."""
    out = {}
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/schedstat") as f:
                out[tid] = int(f.read().split()[0]) / 1e9
        except OSError:
            pass
    return out


def measure(call) -> tuple[float, float, int]:
    """(CPU of all threads, CPU of the busiest, minor faults) of one call."""
    before, faults = thread_cpu(), resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    call()
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults
    after = thread_cpu()
    used = [after[t] - before.get(t, 0.0) for t in after]
    return sum(used), max(used), faults


def main() -> None:
    ap = arguments(7)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    warm_text = corpus_text("mixed", 400_000)
    print(f"median of {args.repeat}; ms of CPU; 'x' = 1 thread / busiest thread of {args.threads}")
    for name in args.encodings:
        base = tokenforge.get_encoding(name)
        for label in args.texts:
            text = load(label, args.mb)
            for method in ("encode_ordinary", "count_tokens"):
                rows = {}
                for state in ("cold", "warm"):
                    for threads in (1, args.threads):
                        runs = []
                        for _ in range(args.repeat):
                            enc = tokenforge.Encoding(name, pat_str=base._pat_str,
                                                      mergeable_ranks=base._mergeable_ranks, special_tokens={})
                            fn = getattr(enc, method)
                            fn(warm_text, num_threads=threads)
                            if state == "warm":
                                fn(text, num_threads=threads)
                            runs.append(measure(lambda: fn(text, num_threads=threads)))
                        rows[state, threads] = [statistics.median(r[i] for r in runs) for i in range(3)]
                for state in ("cold", "warm"):
                    one, many = rows[state, 1], rows[state, args.threads]
                    print(f"{name} {os.path.basename(label)} {method} {state}: 1 thread {one[0] * 1e3:.1f} | "
                          f"{args.threads} threads sum {many[0] * 1e3:.1f} (+{(many[0] / one[0] - 1) * 100:.0f}%), "
                          f"busiest {many[1] * 1e3:.1f} -> x{one[0] / many[1]:.2f} | "
                          f"faults {one[2]:.0f} / {many[2]:.0f}", flush=True)


if __name__ == "__main__":
    main()
