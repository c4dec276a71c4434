"""Hypothesis: the native cut path (tokenizer/native_cut.py: Digits or Punctuation cut out in
C++, then the native scanner) == the readable Python pipeline on text drawn from every code
point and from digits, numerals of other scripts, punctuation and spaces, with added tokens
spliced in; and _native._split with the cut gives the pieces the Python steps give."""

from __future__ import annotations

import functools
import json

import pytest
from _hf_json import diff
from _shared import MODELS, need_shared
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytestmark = pytest.mark.skipif(not (MODELS / "hf" / "llama3_tokenizer.json").is_file(),
                                reason="needs ../shared/models/hf")
CUTS = [{"type": "Digits", "individual_digits": True}, {"type": "Digits", "individual_digits": False},
        {"type": "Punctuation", "behavior": "Isolated"}, {"type": "Punctuation", "behavior": "Contiguous"}]
SPECIAL = "<|begin_of_text|>"
EVERY = st.characters(blacklist_categories=("Cs",))
TEXT = (st.text(EVERY, max_size=40)
        | st.text(" \n\r\t\u3000ab\u00e9\u4e2d12\u00b2\u00b3\u00bd\u0663\uff11\u2160\U0001d7ce.,!?-'\"\u00bf\u3002\u2026\u058a",
                  max_size=40)
        | st.lists(st.sampled_from([SPECIAL, "hello", " world", "12345", "  ", "\n\n", "!?", "..", " 7", "\u0663"]),
                   max_size=8).map("".join))
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@functools.lru_cache(maxsize=None)
def cut_tokenizer(k: int, base: str):
    from tokenforge.tokenizer import Tokenizer

    d = json.loads((MODELS / "hf" / f"{base}_tokenizer.json").read_text(encoding="utf-8"))
    rest = d["pre_tokenizer"]["pretokenizers"] if base == "llama3" else [
        {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True}]
    d["pre_tokenizer"] = {"type": "Sequence", "pretokenizers": [CUTS[k]] + rest}
    return Tokenizer.from_str(json.dumps(d))


@SETTINGS
@given(text=TEXT, k=st.integers(0, len(CUTS) - 1), base=st.sampled_from(["gpt2", "llama3"]))
def test_cut_path_equals_oracle(text, k, base):
    need_shared()
    from tokenforge.tokenizer.native_cut import NativeCutSplit
    from tokenforge.tokenizer.pipeline import encode_sequence

    tok = cut_tokenizer(k, base)
    path = tok._native_engine()
    assert isinstance(path, NativeCutSplit)
    slow = encode_sequence(text, tok.normalizer, tok.pre_tokenizer, tok.model, tok.added)
    assert diff(slow, path.encode(text)) is None
    fast = tok.encode_batch([text, text + "1"], add_special_tokens=False)
    assert diff(slow, fast[0]) is None


@SETTINGS
@given(text=TEXT, k=st.integers(0, len(CUTS) - 1))
def test_split_with_cut_equals_steps(text, k):
    """The piece ends of `_native._split` with a CutClass == the Python steps' pieces."""
    need_shared()
    from tokenforge import _native
    from tokenforge.normalizers.normalized_string import NormalizedString
    from tokenforge.tokenizer.native_splits import cut_of

    tok = cut_tokenizer(k, "gpt2")
    text = text.replace(SPECIAL, "")
    pieces = [NormalizedString.from_text(text)]
    for step in tok.pre_tokenizer.pretokenizers:
        pieces = [q for p in pieces for q in step.split(p) if q.text]
    ends, at = [], 0
    for p in pieces:
        at += len(p.text)  # after ByteLevel, a character a byte
        ends.append(at)
    data = text.encode("utf-8")
    cut = _native.CutClass(*cut_of(tok.pre_tokenizer.pretokenizers[0]))
    assert _native._split(0, data, cut)[0] == ends
