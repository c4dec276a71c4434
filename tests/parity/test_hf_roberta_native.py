"""RoBERTa's post-processor on the native byte-level path (tokenizer/native.py's post_plan: its
template, and ByteLevel's offset trimming when it trims): against `tokenizers` with each of
trim_offsets and add_prefix_space, with and without special tokens, truncated with overflow,
padded, and on pairs, over sampled corpus lines and texts of spaces around an added token."""

from __future__ import annotations

import copy
import json

import pytest
from _hf_json import diff, lines
from _shared import MODELS, need_shared

EDGES = ["", " ", "  hello", "hello  ", " <|endoftext|> x", "a<|endoftext|>", "\n\n  \u00e9t\u00e9 1",
         "   ", "\t\u3000x"]


def _config(trim: bool, prefix: bool) -> str:
    d = copy.deepcopy(json.loads((MODELS / "hf" / "gpt2_tokenizer.json").read_text(encoding="utf-8")))
    d["post_processor"] = {"type": "RobertaProcessing", "sep": ["</s>", 50256], "cls": ["<s>", 50256],
                           "trim_offsets": trim, "add_prefix_space": prefix}
    return json.dumps(d)


@pytest.mark.parametrize("prefix", [False, True])
@pytest.mark.parametrize("trim", [True, False])
def test_roberta_processor_native(trim, prefix):
    need_shared()
    import tokenizers

    from tokenforge.tokenizer import Tokenizer
    from tokenforge.tokenizer.native import NativeByteLevel

    text = _config(trim, prefix)
    ref, ours = tokenizers.Tokenizer.from_str(text), Tokenizer.from_str(text)
    assert type(ours._native_engine()) is NativeByteLevel and ours._native_engine().plan is not None
    sample = [ln for c in ("en", "multi", "code") for ln in lines(c, 15, seed=9)] + EDGES
    for setting in ("plain", "truncated", "padded"):
        for t in (ref, ours):
            t.no_truncation()
            t.no_padding()
            if setting == "truncated":
                t.enable_truncation(24, stride=4)
            if setting == "padded":
                t.enable_padding(pad_id=50256, pad_token="<|endoftext|>", pad_to_multiple_of=16)
        for special in (True, False):
            for ln in sample:
                x, y = ref.encode(ln, add_special_tokens=special), ours.encode(ln, add_special_tokens=special)
                assert diff(x, y) is None, (setting, special, ln[:50], diff(x, y))
            xs = ref.encode_batch(sample, add_special_tokens=special)
            ys = ours.encode_batch(sample, add_special_tokens=special)
            for x, y in zip(xs, ys):
                assert diff(x, y) is None, (setting, special)
            for x, y in zip(ref.encode_batch_fast(sample, add_special_tokens=special),
                            ours.encode_batch_fast(sample, add_special_tokens=special)):
                assert x.ids == y.ids and x.attention_mask == y.attention_mask, (setting, special)
        for a, b in zip(sample[:12:2], sample[1:12:2]):
            assert diff(ref.encode(a, b), ours.encode(a, b)) is None, setting
