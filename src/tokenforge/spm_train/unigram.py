"""Unigram training: the Python side of the native ``SpmUnigramTrainer``.

Seeds, EM rounds and pruning run natively (see cpp/training/sentencepiece/unigram_trainer.h); this
module passes the options, reports the rounds on stderr and returns (piece, score) pairs,
best first.  The result is not spm_train's bit for bit: the target is the same quality
(held-out tokens per byte and likelihood), checked against sentencepiece in the tests.
The same steps in readable Python, the oracle of the property tests: unigram_reference.py.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable
from typing import Any

from tokenforge import _native


def learn_unigram(corpus: Any, ts: Any, meta_count: int, log: Callable[[str], None],
                  show: bool) -> list[tuple[str, float]]:
    """(piece, score) for the ``vocab_size - meta_count`` pieces, best first."""
    rules = (ts.max_sentencepiece_length, ts.split_by_unicode_script, ts.split_by_whitespace, ts.split_by_number,
             ts.split_digits, ts.treat_whitespace_as_suffix, ts.allow_whitespace_only_pieces)
    trainer = _native.SpmUnigramTrainer(corpus.counter, sorted(corpus.alphabet.items()), rules)
    wanted = ts.vocab_size - meta_count
    threads = max(1, min(ts.num_threads, os.cpu_count() or 1))
    args = (wanted, ts.seed_sentencepiece_size, ts.shrinking_factor, ts.num_sub_iterations, threads)
    if not show:
        trainer.train(*args)
    else:
        worker = threading.Thread(target=trainer.train, args=args, daemon=True)
        worker.start()
        last = None
        while worker.is_alive():
            worker.join(0.5)
            state = trainer.progress
            if state[0] != last and state[0] > 0:
                print(f"spm_train: EM round {state[0]}: {state[1]} pieces, objective {state[2]:.4f}",
                      file=sys.stderr, flush=True)
                last = state[0]
    pieces = trainer.pieces()
    log(f"learned {len(pieces)} pieces")
    return pieces
