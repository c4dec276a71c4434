"""Cutting steps after ByteLevel (Falcon's `Digits` and `Split("[0-9][0-9][0-9]")` after its
ByteLevel, and other such mixes), taken by tokenforge.tokenizer.native_splits: they cut each
piece's bytes seen as ByteLevel's characters, inside a character too where a continuation
byte's character is in their class (0xB2 is ``²``, a digit).  Against `tokenizers` on text made
of such characters, digits and added tokens, with pairs and batches; against the readable
Python pipeline (the path's oracle) on text drawn from every code point."""

from __future__ import annotations

import copy
import functools
import json
import random

import pytest
from _hf_json import assert_same_on, diff
from _shared import MODELS, need_shared
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st


def _byte_level(regex: bool = True) -> dict:
    return {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": regex}


def _split(pattern: str, behavior: str = "Isolated") -> dict:
    return {"type": "Split", "pattern": {"Regex": pattern}, "behavior": behavior, "invert": False}


PIPELINES = {
    "falcon": [{"type": "Punctuation", "behavior": "Contiguous"}, _byte_level(),
               {"type": "Digits", "individual_digits": False}, _split("[0-9][0-9][0-9]")],
    "digits_after": [_byte_level(), {"type": "Digits", "individual_digits": True}],
    "punctuation_after": [_byte_level(), {"type": "Punctuation", "behavior": "Isolated"}],
    "no_regex_then_digits": [_byte_level(regex=False), {"type": "Digits", "individual_digits": False}],
    "merged_after": [{"type": "Digits", "individual_digits": False}, _byte_level(),
                     _split("[0-9]{2}", "MergedWithPrevious")],
    "contiguous_after": [_byte_level(), _split("Ġ", "Contiguous")],
    "next_after": [_byte_level(), _split("[aeiou]", "MergedWithNext")],
}
# Characters whose UTF-8 holds a byte that ByteLevel shows as a numeric character (ò ó ù ü ý þ
# end in 0xB2 0xB3 0xB9 0xBC 0xBD 0xBE), and others.
ATOMS = ["a", "1", "12", "123", "1234567", " ", "  ", "\n", "ò", "ó", "ù", "ü", "ý", "þ", "²", "½", "³", "¹", "é", "中",
         "😀", "!", "...", ",", "'s", " the", "Hello", "<|endoftext|>", "٣", "\t", "Ġ", "aeiou"]


def _text(name: str) -> str:
    d = json.loads((MODELS / "hf" / "gpt2_tokenizer.json").read_text(encoding="utf-8"))
    d = copy.deepcopy(d)
    d["pre_tokenizer"] = {"type": "Sequence", "pretokenizers": PIPELINES[name]}
    return json.dumps(d)


@pytest.mark.parametrize("name", list(PIPELINES))
def test_steps_after_byte_level_as_tokenizers(name):
    need_shared()
    import tokenizers

    from tokenforge.tokenizer import Tokenizer
    from tokenforge.tokenizer.native_splits import NativeSplits

    text = _text(name)
    ref, ours = tokenizers.Tokenizer.from_str(text), Tokenizer.from_str(text)
    assert isinstance(ours._native_engine(), NativeSplits)
    r = random.Random(name)
    texts = ["".join(r.choice(ATOMS) for _ in range(r.randint(0, 12))) for _ in range(300)]
    assert_same_on(ref, ours, texts)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.text(st.characters(blacklist_categories=("Cs",)), max_size=30)
       | st.text("".join(ATOMS), max_size=30))
def test_falcon_path_equals_oracle(text):
    need_shared()
    from tokenforge.tokenizer.pipeline import encode_sequence

    ours = _falcon()
    slow = encode_sequence(text, ours.normalizer, ours.pre_tokenizer, ours.model, ours.added)
    assert diff(slow, ours._native_engine().encode(text)) is None


@functools.lru_cache(maxsize=1)
def _falcon():
    from tokenforge.tokenizer import Tokenizer

    return Tokenizer.from_str(_text("falcon"))
