"""Hypothesis: the regex-split byte-level path (tokenforge.tokenizer.native_splits, DeepSeek V3's
Sequence of Split regexes) == the readable Python pipeline (its oracle) and == tokenizers."""

from __future__ import annotations

import pytest
from _hf_json import diff, load
from _shared import MODELS, need_shared
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

NAME = "deepseek_v3_tokenizer.json"
pytestmark = pytest.mark.skipif(not (MODELS / "hf" / NAME).is_file(), reason="needs ../shared/models/hf")
SPECIALS = ["<\uff5cbegin\u2581of\u2581sentence\uff5c>", "<\uff5cend\u2581of\u2581sentence\uff5c>"]
# Cn excluded: characters unassigned in this Python's Unicode class differently in `regex` (newer).
TEXT = (st.text(st.characters(blacklist_categories=("Cs", "Cn")), max_size=40)
        | st.text(" \n\r\tab1234'é中文かなカナ😀!?.,-_[]", max_size=40)
        | st.lists(st.sampled_from(SPECIALS + ["hello", " world", "12345", "中文", "\n\n", "!?"]), max_size=8).map("".join))
SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(text=TEXT)
def test_native_equals_oracle(text):
    need_shared()
    from tokenforge.tokenizer.pipeline import encode_sequence

    _, ours = load(NAME)
    native = ours._native_engine()
    assert type(native).__name__ == "NativeSplits"
    slow = encode_sequence(text, ours.normalizer, ours.pre_tokenizer, ours.model, ours.added)
    assert diff(slow, native.encode(text)) is None


@SETTINGS
@given(text=TEXT, pair=TEXT)
def test_same_as_tokenizers(text, pair):
    need_shared()
    ref, ours = load(NAME)
    for special in (True, False):
        assert diff(ref.encode(text, add_special_tokens=special), ours.encode(text, add_special_tokens=special)) is None
        assert diff(ref.encode(text, pair, add_special_tokens=special),
                    ours.encode(text, pair, add_special_tokens=special)) is None
    batch = [text, pair]
    for x, y in zip(ref.encode_batch(batch), ours.encode_batch(batch)):
        assert diff(x, y) is None
    assert [e.ids for e in ref.encode_batch_fast(batch)] == [e.ids for e in ours.encode_batch_fast(batch)]
