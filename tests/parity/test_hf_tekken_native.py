"""Mistral's Tekken split (o200k's without contractions, one digit a piece) on the native
byte-level path (cpp/pretokenize/o200k_scanner.h's next_piece_tekken): a tokenizer.json with
Llama 3's vocabulary and Tekken's Split against `tokenizers` on sampled corpus lines, on texts
where Tekken and o200k differ (contractions, digit runs, case changes, marks), and on
Hypothesis text from every code point."""

from __future__ import annotations

import functools
import json

import pytest
from _hf_json import diff, lines
from _shared import MODELS, need_shared
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tokenforge import patterns

EDGES = ["don't", "DON'T stop", "it's 12345 o'clock", "HTTPServer x", "l'été", "\u0915\u093e\u0930", "e\u0301t\u00e9",
         "a\n\n  b", "  x  ", "x/\n/y", "\u00bd \u0663\u0664", "ǅungla", "'s'll", "1,000,000.25", "\u4e2d\u6587\u5b57"]


@functools.lru_cache(maxsize=1)
def _pair():
    import tokenizers

    from tokenforge.tokenizer import Tokenizer

    d = json.loads((MODELS / "hf" / "llama3_tokenizer.json").read_text(encoding="utf-8"))
    d["pre_tokenizer"]["pretokenizers"][0]["pattern"]["Regex"] = patterns.TEKKEN
    text = json.dumps(d)
    ref, ours = tokenizers.Tokenizer.from_str(text), Tokenizer.from_str(text)
    for t in (ref, ours):
        t.no_truncation()
        t.no_padding()
    return ref, ours


def test_tekken_file_native_equals_tokenizers():
    need_shared()
    from tokenforge.tokenizer.native import NativeByteLevel

    ref, ours = _pair()
    native = ours._native_engine()
    assert type(native) is NativeByteLevel and native.scanner == int(patterns.Scanner.TEKKEN)
    sample = EDGES + [ln for c in ("en", "multi", "code", "mixed") for ln in lines(c, 25, seed=17)]
    for ln in sample:
        assert diff(ref.encode(ln), ours.encode(ln)) is None, ln[:60]
    for x, y in zip(ref.encode_batch(sample), ours.encode_batch(sample)):
        assert diff(x, y) is None
    for x, y in zip(ref.encode_batch_fast(sample), ours.encode_batch_fast(sample)):
        assert x.ids == y.ids


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.text(st.characters(blacklist_categories=("Cs",)), max_size=30)
       | st.text("aAbB '\n\r\t1234./-_\u00e9\u00c9\u0301\u4e2d\u01c5\u02b0\u0915\u093e!?", max_size=30))
def test_tekken_on_any_text(text):
    need_shared()
    ref, ours = _pair()
    assert ours.encode(text).ids == ref.encode(text).ids
