"""Pairs truncated to a few tokens, against HF tokenizers 0.23.3: each sequence is cut into
many windows and `Encoding.merge_with` makes every combination of them, nested (thousands
of overflowing encodings per pair, made as they are read).  Every field of every window at
every depth as tokenizers, for each strategy and a few strides, with padding on and off,
and after the windows were read once (a second read gives the same)."""

from __future__ import annotations

import random

import pytest
from _hf_json import HF_FILES, diff, lines, load
from _shared import need_shared

pytestmark = pytest.mark.skipif(not HF_FILES, reason="needs ../shared/models/hf")

FILES = [f for f in ("gpt2_tokenizer.json", "minilm_bert_uncased_tokenizer.json", "rut5_tokenizer.json",
                     "llama3_tokenizer.json", "mistral_v1_tokenizer.json") if f in HF_FILES]


def _count(e) -> int:
    return 1 + sum(_count(o) for o in e.overflowing)


@pytest.mark.parametrize("name", FILES)
def test_tiny_pair_truncation(name):
    need_shared()
    ref, ours = load(name)
    pool = lines("en", 30) + lines("multi", 10) + lines("code", 10)
    rng = random.Random(name)
    compared = nested = 0
    try:
        for k in range(24):
            a, b = rng.choice(pool)[:rng.randint(10, 160)], rng.choice(pool)[:rng.randint(10, 160)]
            max_length, stride = rng.randint(3, 8), rng.choice([0, 0, 1, 2])
            strategy = ("longest_first", "only_first", "only_second")[k % 3]
            special, pad = k % 4 != 3, k % 5 == 0
            for t in (ref, ours):
                t.enable_truncation(max_length=max_length, stride=stride, strategy=strategy)
                if pad:
                    t.enable_padding(length=max_length + 2)
                else:
                    t.no_padding()
            try:
                want = ref.encode(a, b, add_special_tokens=special)
            except BaseException as e:  # noqa: BLE001 - pyo3's PanicException: stride too long for the room left
                if isinstance(e, (KeyboardInterrupt, SystemExit)):
                    raise
                with pytest.raises(ValueError):
                    ours.encode(a, b, add_special_tokens=special)
                continue
            got = ours.encode(a, b, add_special_tokens=special)
            assert diff(want, got) is None, (a, b, max_length, stride, strategy, special, pad)
            assert diff(want, got) is None  # read again
            compared += 1
            nested += _count(got)
    finally:
        for t in (ref, ours):
            t.no_truncation()
            t.no_padding()
    assert compared >= 5 and nested > 10 * compared
