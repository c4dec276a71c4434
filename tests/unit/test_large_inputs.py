"""Inputs past the 32-bit limits encode correctly or raise ValueError (the cases of
benchmarks/large_inputs.py).  Each case allocates gigabytes: it runs only when /proc/meminfo
shows enough memory available, else it skips saying so.  The refusals take seconds and run
in CI; the cases that encode gigabytes take minutes on one core and run only with
TOKENFORGE_BIG_INPUTS=1 (else they skip; `python benchmarks/large_inputs.py` runs them all).

Left out: SentencePiece encodes of gigabyte texts that fit its limits (memory: tens of bytes
per byte of text).
"""

from __future__ import annotations

import gc
import os

import pytest
from _shared import MODELS, benchmark_module, need_shared, under_sanitizer

import tokenforge

# Bytes available: the quick cases peak near 9 GiB (a 4 GiB input, or a 2 GiB str, its ids and
# their comparison), the slow ones near 15 GiB (a 3.4 GiB str, 4 GiB of ids, its 4.3 GB UTF-8).
NEEDED = {"quick": 10 << 30, "slow": 16 << 30}

pytestmark = pytest.mark.skipif(under_sanitizer(), reason="gigabyte inputs: run on the normal build (ASan adds shadow memory)")


CASES = benchmark_module("large_inputs")


@pytest.fixture(scope="module")
def models():
    need_shared()
    enc = tokenforge.get_encoding("cl100k_base")
    sp = tokenforge.SentencePieceProcessor(model_file=str(MODELS / "sentencepiece" / "llama2_tokenizer.model"))
    return enc, sp


def _run(case, models, needed: int):
    gc.collect()
    available = CASES.free_bytes()
    if available < needed:
        pytest.skip(f"needs {needed >> 30} GiB of available memory, {available / 2**30:.1f} GiB available")
    case(*models)


@pytest.mark.parametrize("case", CASES.CHEAP, ids=lambda c: c.__name__)
def test_quick_cases(case, models):
    _run(case, models, NEEDED["quick"])


@pytest.mark.skipif(os.environ.get("TOKENFORGE_BIG_INPUTS") != "1",
                    reason="encodes gigabytes (minutes): set TOKENFORGE_BIG_INPUTS=1, or run benchmarks/large_inputs.py")
@pytest.mark.parametrize("case", CASES.HEAVY, ids=lambda c: c.__name__)
def test_slow_cases(case, models):
    _run(case, models, NEEDED["slow"])
