"""A constructor that raises frees what it built: nanobind runs a native object's destructor
only when its __init__ returned, so an `Encoding` whose special tokens were refused after
its ranks were indexed, or a `SentencePieceProcessor` whose charsmap was refused after its
vocabulary was built, leaked those tables (about 1 MB for each failed `Encoding`; found by
LeakSanitizer, scripts/sanitize_tests.sh).  RSS over a few hundred failed constructions
must stay flat.

Left out: the trainers' native handles (same guard, cpp/bindings/spm_train_binding.cc),
reached only through `tokenforge.spm_train`'s own checks.
"""

from __future__ import annotations

import gc

import pytest
from _shared import MODELS, need_shared, under_sanitizer

import tokenforge
from tokenforge import patterns
from tokenforge.sentencepiece import ModelProto

BYTES = {bytes([b]): b for b in range(256)}
ROUNDS = 300


pytestmark = pytest.mark.skipif(under_sanitizer(), reason="RSS under ASan holds its quarantine and shadow memory")


def rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        import os

        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def growth(make, message: str) -> int:
    """RSS growth over ROUNDS failed calls of make() (each must raise ValueError)."""
    for _ in range(20):
        with pytest.raises(ValueError, match=message):
            make()
    gc.collect()
    before = rss_bytes()
    for _ in range(ROUNDS):
        with pytest.raises(ValueError, match=message):
            make()
    gc.collect()
    return rss_bytes() - before


def test_encoding_refused_after_its_ranks_were_indexed():
    def make():
        tokenforge.Encoding("b", pat_str=patterns.GPT2, mergeable_ranks=BYTES, special_tokens={"<a>": 2**31})

    grown = growth(make, "too large")
    assert grown < 16 << 20, f"RSS grew by {grown >> 20} MB over {ROUNDS} failed constructions"


def test_processor_refused_after_its_vocabulary_was_built():
    need_shared()
    m = ModelProto.load(str(MODELS / "sentencepiece" / "botchan_en_unigram_1000.model"))
    m.normalizer_spec.precompiled_charsmap = b"\x00\x04\x00\x00" + b"\x00" * 8  # a trie larger than the blob
    proto = m.to_bytes()
    grown = growth(lambda: tokenforge.SentencePieceProcessor(model_proto=proto), "precompiled_charsmap")
    assert grown < 16 << 20, f"RSS grew by {grown >> 20} MB over {ROUNDS} failed constructions"
