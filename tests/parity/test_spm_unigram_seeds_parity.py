"""The Unigram seeds against sentencepiece 0.2.3's: the same number of seed pieces.

spm_train logs "Initialized N seed pieces" (alphabet included) at minloglevel=0; it runs in a
subprocess (its log goes to the C++ stderr) and is stopped once that line is out.  Ours: the
native trainer with no EM round and room for every piece, whose result is the seeds.  The
count is sensitive to the rule for what follows a substring (sentencepiece 0.2.3 builds its
suffix array over the UTF-8 bytes of whole sentences: a word's end is followed by the next
word's first byte or the sentence's end, and followers differ only if their first bytes do).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from _shared import corpus_sample, need_shared

pytest.importorskip("sentencepiece")

from tokenforge import _native  # noqa: E402
from tokenforge.spm_train import front_end  # noqa: E402
from tokenforge.spm_train.charsmaps import fill_normalizer_spec  # noqa: E402
from tokenforge.spm_train.meta_pieces import meta_pieces  # noqa: E402
from tokenforge.spm_train.options import parse_options  # noqa: E402

SPM_SEEDS = """
import sys, sentencepiece as spm
import json
spm.SentencePieceTrainer.train(input=sys.argv[1], model_prefix=sys.argv[2], vocab_size=2000,
                               model_type="unigram", minloglevel=0, num_threads=1, **json.loads(sys.argv[3]))
"""
OPTIONS = [
    {"split_by_whitespace": False},
    {"user_defined_symbols": ["ing", "<x>"]},
    {"split_digits": True, "allow_whitespace_only_pieces": True, "remove_extra_whitespaces": False},
    {"normalization_rule_name": "identity"},
    # The followers match (a simulation on whole sentences gives our count), the count does not:
    # something else (piece validity or normalization with the suffix) differs.
    pytest.param({"treat_whitespace_as_suffix": True},
                 marks=pytest.mark.xfail(reason="seed count differs with treat_whitespace_as_suffix", strict=True)),
]


def spm_seed_count(path: str, prefix: str, options: dict) -> int:
    proc = subprocess.Popen([sys.executable, "-c", SPM_SEEDS, path, prefix, json.dumps(options)],
                            stderr=subprocess.PIPE, text=True)
    try:
        for line in proc.stderr:
            m = re.search(r"Initialized (\d+) seed (?:sentence)?pieces", line)
            if m:
                return int(m.group(1))
    finally:
        proc.kill()
        proc.wait()
    raise AssertionError("sentencepiece logged no seed count")


def our_seed_count(path: str, options: dict) -> int:
    ts, ns, _ = parse_options(None, dict(input=[path], model_prefix="unused", vocab_size=2000, **options))
    fill_normalizer_spec(ns)
    corpus = front_end.count_corpus(ts, ns, [p for p, _ in meta_pieces(ts).values()], [path], None, lambda m: None)
    rules = (ts.max_sentencepiece_length, ts.split_by_unicode_script, ts.split_by_whitespace, ts.split_by_number,
             ts.split_digits, ts.treat_whitespace_as_suffix, ts.allow_whitespace_only_pieces)
    trainer = _native.SpmUnigramTrainer(corpus.counter, sorted(corpus.alphabet.items()), rules)
    trainer.train(10**7, ts.seed_sentencepiece_size, ts.shrinking_factor, 0, 1)
    return len(trainer.pieces())


@pytest.mark.parametrize("name", ["en", "code", "multi"])
def test_seed_count_equals_sentencepiece(name, tmp_path):
    need_shared()
    path = tmp_path / f"{name}.txt"
    path.write_text(corpus_sample(name, 150_000)[:150_000], encoding="utf-8")
    assert our_seed_count(str(path), {}) == spm_seed_count(str(path), str(tmp_path / "spm"), {})


@pytest.mark.parametrize("options", OPTIONS)
def test_seed_count_with_options_equals_sentencepiece(options, tmp_path):
    need_shared()
    path = tmp_path / "en.txt"
    path.write_text(corpus_sample("en", 100_000)[:100_000], encoding="utf-8")
    assert our_seed_count(str(path), options) == spm_seed_count(str(path), str(tmp_path / "spm"), options)
