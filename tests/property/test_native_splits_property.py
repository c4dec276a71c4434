"""Hypothesis: the regex-split byte-level path (tokenforge.tokenizer.native_splits, here on
DeepSeek V3's Sequence of Split regexes, which the Tokenizer routes to the native scanner:
test_deepseek_scanner_property.py) == the readable Python pipeline (its oracle) on text drawn
from every code point and == tokenizers on corpus lines; its fast patterns (as written, where
no disputed code point occurs) cut exactly as the written-out ones."""

from __future__ import annotations

import functools

import pytest
from _hf_json import diff, lines, load
from _shared import MODELS, need_shared
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

NAME = "deepseek_v3_tokenizer.json"
pytestmark = pytest.mark.skipif(not (MODELS / "hf" / NAME).is_file(), reason="needs ../shared/models/hf")
SPECIALS = ["<\uff5cbegin\u2581of\u2581sentence\uff5c>", "<\uff5cend\u2581of\u2581sentence\uff5c>"]
# Code points where Oniguruma's classes and the `regex` module's differ, and their neighbours:
# U+0558 (unassigned for Oniguruma), U+00B2 U+00B3 U+00B9 U+00BC-U+00BE U+200C U+200D (its \w),
# U+0295, U+1E900 (Adlam), U+30FB (CJK range, punctuation).
DISPUTED = "\u0558\u0559\u00b2\u00b3\u00b9\u00bc\u00bd\u00be\u200c\u200d\u0295\U0001e900\u30fb\u3099"
EVERY = st.characters(blacklist_categories=("Cs",))  # every code point a str can encode
TEXT = (st.text(EVERY, max_size=40)
        | st.text(" \n\r\tab1234'é中文かなカナ😀!?.,-_[]²" + DISPUTED, max_size=40)
        | st.lists(st.sampled_from(SPECIALS + ["hello", " world", "12345", "中文", "\n\n", "!?", "\u0558x"]),
                   max_size=8).map("".join))
SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@functools.lru_cache(maxsize=1)
def regex_path(ours):
    from tokenforge.tokenizer.native_splits import NativeSplits

    path = NativeSplits.build(ours)
    assert path is not None and path.fast is not None
    return path


@SETTINGS
@given(text=TEXT)
def test_regex_path_equals_oracle(text):
    need_shared()
    from tokenforge.tokenizer.pipeline import encode_sequence

    _, ours = load(NAME)
    slow = encode_sequence(text, ours.normalizer, ours.pre_tokenizer, ours.model, ours.added)
    assert diff(slow, regex_path(ours).encode(text)) is None


@SETTINGS
@given(text=TEXT)
def test_fast_patterns_cut_as_written_out(text):
    need_shared()
    from tokenforge.tokenizer.native_splits import pieces

    _, ours = load(NAME)
    path = regex_path(ours)
    exact = pieces(text, path.regexes)
    assert path._pieces(text) == exact
    if path.guard.search(text) is None:
        assert pieces(text, path.fast) == exact


def test_regex_path_on_corpus_lines():
    need_shared()
    ref, ours = load(NAME)
    path = regex_path(ours)
    for corpus in ("en", "code", "multi", "mixed"):
        for line in lines(corpus, 40, seed=3):
            want = ref.encode(line, add_special_tokens=False)
            got = path.encode(line)
            assert (got.ids, got.offsets) == (want.ids, want.offsets), (corpus, line[:80])


CUTTING_STEPS = [  # pre-tokenizers that only cut, before a ByteLevel with or without its regex
    [{"type": "Digits", "individual_digits": True}],
    [{"type": "Digits", "individual_digits": False}, {"type": "Punctuation", "behavior": "Contiguous"}],
    [{"type": "Punctuation", "behavior": "MergedWithPrevious"}],
    [{"type": "Split", "pattern": {"Regex": "\\s+"}, "behavior": "MergedWithNext", "invert": False}],
    [{"type": "Split", "pattern": {"String": "a"}, "behavior": "Contiguous", "invert": True}],
    [{"type": "FixedLength", "length": 3}],
]


@functools.lru_cache(maxsize=None)
def cutting_tokenizer(k: int, use_regex: bool):
    import json

    from tokenforge.tokenizer import Tokenizer

    d = json.loads((MODELS / "hf" / "gpt2_tokenizer.json").read_text(encoding="utf-8"))
    d["pre_tokenizer"] = {"type": "Sequence", "pretokenizers": CUTTING_STEPS[k] + [
        {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": use_regex}]}
    return Tokenizer.from_str(json.dumps(d))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=TEXT, k=st.integers(0, len(CUTTING_STEPS) - 1), use_regex=st.booleans())
def test_cutting_steps_path_equals_oracle(text, k, use_regex):
    """Steps that only cut (Digits, Punctuation, Split but Removed, FixedLength) on the
    native BPE with their own readable split making the pieces: == the Python pipeline."""
    need_shared()
    from tokenforge.tokenizer.native_splits import NativeSplits
    from tokenforge.tokenizer.pipeline import encode_sequence

    tok = cutting_tokenizer(k, use_regex)
    path = NativeSplits.build(tok)  # the Tokenizer routes some of these to native_cut.py instead
    assert path is not None
    slow = encode_sequence(text, tok.normalizer, tok.pre_tokenizer, tok.model, tok.added)
    assert diff(slow, path.encode(text)) is None
