"""Many Python threads on one object: 8 threads share one `Encoding` and one
`SentencePieceProcessor` and call every entry point (single texts, batches on native threads,
sampling) in a random order of their own, while another thread creates and drops instances
of the same vocabularies and runs `gc.collect()`.  Every result must equal the one computed
on one thread first; RSS must not grow from one such round to the next.  Also: `get_encoding`
called at once from 8 threads builds one encoding, and a child of `os.fork()` (after the
parent's native thread pool ran) encodes, batches included, without deadlock.

Left out: timing (tests never assert times) and fork while another thread is inside a call.
"""

from __future__ import annotations

import gc
import os
import random
import subprocess
import sys
import textwrap
import threading
import time

import pytest
from _shared import MODELS, corpus_sample, need_shared
from _tiktoken_refs import pair

import tokenforge
from tokenforge import SentencePieceProcessor

WORKERS = 8
ROUNDS = 3
SPM_MODEL = "botchan_en_unigram_1000.model"  # Unigram: sampling and n-best too


@pytest.fixture(scope="module")
def texts() -> list[str]:
    need_shared()
    lines = [line for name in ("en", "multi", "code") for line in corpus_sample(name).splitlines()[100:140] if line]
    return lines + ["", " ", "hello <|endoftext|> world <|fim_prefix|>", "a" * 3000, "中文" * 200, "\n\n  \t x"]


@pytest.fixture(scope="module")
def shared_objects():
    need_shared()
    enc, _ = pair("cl100k_base")
    sp = SentencePieceProcessor(model_file=str(MODELS / "sentencepiece" / SPM_MODEL))
    return enc, sp


def entry_points(enc, sp, texts: list[str]) -> dict[str, object]:
    """name -> a call whose result does not depend on the thread it runs on."""
    ids = [enc.encode(t, allowed_special="all") for t in texts]
    plain = [t for t in texts if "<|" not in t]
    return {
        "encode": lambda: [enc.encode(t, allowed_special="all") for t in texts],
        "encode_ordinary": lambda: [enc.encode_ordinary(t) for t in texts],
        "encode_disallowed_raises": lambda: [_outcome(lambda: enc.encode(t)) for t in texts[-6:]],
        "count_tokens": lambda: [enc.count_tokens(t) for t in texts],
        "encode_to_numpy": lambda: [enc.encode_to_numpy(t).tolist() for t in plain],
        "decode": lambda: [enc.decode(i) for i in ids],
        "decode_with_offsets": lambda: [enc.decode_with_offsets(i) for i in ids[:20]],
        "encode_with_unstable": lambda: [enc.encode_with_unstable(t[:40]) for t in plain[:10]],
        "encode_batch": lambda: enc.encode_batch(texts, num_threads=2, allowed_special="all"),
        "encode_ordinary_batch": lambda: enc.encode_ordinary_batch(texts, num_threads=2),
        "decode_batch": lambda: enc.decode_batch(ids, num_threads=2),
        "spm_encode": lambda: [sp.encode(t) for t in texts],
        "spm_pieces": lambda: [sp.encode(t, out_type=str, add_bos=True, add_eos=True) for t in texts],
        "spm_batch": lambda: sp.encode(texts, num_threads=2),
        "spm_batch_pieces": lambda: sp.encode(texts, out_type=str, num_threads=2),
        "spm_decode": lambda: sp.decode([sp.encode(t) for t in texts]),
        "spm_nbest": lambda: [sp.nbest_encode(t, nbest_size=3) for t in plain[:10]],
        # Sampled ids differ from call to call; what they decode to does not.
        "spm_sampling": lambda: [sp.decode(sp.encode(t, enable_sampling=True, alpha=0.1, nbest_size=-1))
                                 for t in plain[:30]],
        "spm_sampling_batch": lambda: sp.decode(sp.encode(plain, enable_sampling=True, alpha=0.5, nbest_size=-1,
                                                          num_threads=2)),
    }


def _outcome(fn):
    try:
        return fn()
    except ValueError as e:
        return ("ValueError", str(e))


def rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def run_round(calls: dict, want: dict, enc, sp) -> list:
    """8 workers call everything in their own order while a churner makes and drops
    instances of the same vocabularies; returns the mismatches and errors."""
    failures: list = []
    stop = threading.Event()
    start = threading.Barrier(WORKERS + 1)

    def worker(k: int) -> None:
        rng = random.Random(k)
        names = sorted(calls)
        start.wait()
        try:
            for _ in range(ROUNDS):
                rng.shuffle(names)
                for name in names:
                    got = calls[name]()
                    if got != want[name]:
                        failures.append((k, name))
        except Exception as e:  # noqa: BLE001 - reported by the test
            failures.append((k, repr(e)))

    def churn() -> None:
        start.wait()
        while not stop.is_set():
            other = tokenforge.Encoding(enc.name, pat_str=enc._pat_str, mergeable_ranks=enc._mergeable_ranks,
                                        special_tokens=enc._special_tokens)
            other.encode_ordinary_batch(["churn", "again and again"], num_threads=2)
            again = SentencePieceProcessor(model_proto=sp.serialized_model_proto())
            again.encode(["churn"] * 10, num_threads=2)
            del other, again
            gc.collect()

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(WORKERS)]
    churner = threading.Thread(target=churn)
    for t in threads + [churner]:
        t.start()
    for t in threads:
        t.join()
    stop.set()
    churner.join()
    return failures


def test_eight_threads_share_one_encoding_and_one_processor(shared_objects, texts):
    enc, sp = shared_objects
    calls = entry_points(enc, sp, texts)
    want = {name: call() for name, call in calls.items()}  # on one thread
    assert want["spm_sampling"] == [sp.decode(sp.encode(t)) for t in texts if "<|" not in t][:30]
    assert all(isinstance(r, tuple) for r in want["encode_disallowed_raises"][2:3])
    assert run_round(calls, want, enc, sp) == []
    gc.collect()
    before = rss_bytes()
    assert run_round(calls, want, enc, sp) == []
    gc.collect()
    grown = rss_bytes() - before
    assert grown < 64 << 20, f"RSS grew by {grown >> 20} MB over a second round"


def test_get_encoding_from_eight_threads_builds_one():
    """A fresh process; 8 threads ask for the same name at once: one object, one parse of
    the rank file, one build."""
    need_shared()
    script = textwrap.dedent("""
        import threading
        import tokenforge
        from tokenforge import registry

        barrier = threading.Barrier(8)
        got = []

        def ask():
            barrier.wait()
            got.append(tokenforge.get_encoding("o200k_base"))

        threads = [threading.Thread(target=ask) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert len(got) == 8 and all(e is got[0] for e in got), got
        assert registry._ranks.cache_info().misses == 1, registry._ranks.cache_info()
        assert registry._get_encoding.cache_info().misses == 1, registry._get_encoding.cache_info()
        assert got[0].encode("hello world") == [24912, 2375]  # tiktoken's ids
        print("ok")
    """)
    env = dict(os.environ, TOKENFORGE_MODELS_DIR=str(MODELS / "tiktoken"))
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0 and "ok" in done.stdout, done.stderr[-3000:]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork on this platform")
def test_fork_child_encodes_and_batches(shared_objects, texts):
    """After the parent's batches ran on the native pool, a forked child (which has none of
    the pool's threads) encodes single texts and batches on threads, and exits."""
    enc, sp = shared_objects
    want = (enc.encode_ordinary_batch(texts, num_threads=2), sp.encode(texts, num_threads=2),
            [enc.encode_ordinary(t) for t in texts])
    assert want[0] == want[2]
    pid = os.fork()
    if pid == 0:  # the child: no pytest from here on
        code = 1
        try:
            got = (enc.encode_ordinary_batch(texts, num_threads=2), sp.encode(texts, num_threads=2),
                   [enc.encode_ordinary(t) for t in texts])
            code = 0 if got == want else 2
        finally:
            os._exit(code)
    deadline = time.monotonic() + 120
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            assert os.waitstatus_to_exitcode(status) == 0
            return
        if time.monotonic() > deadline:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
            pytest.fail("the forked child hung (deadlock in the native thread pool?)")
        time.sleep(0.05)
