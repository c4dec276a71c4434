"""A lone ByteLevel pre-tokenizer with add_prefix_space (RoBERTa files saved for word-level
tasks) on the native byte-level path: the prefix space put before the text and aligned with its
first character (tokenizer/native.py's _with_prefix_space), texts with added tokens left to the
Python pipeline.  Against `tokenizers` with ByteLevel and RoBERTa post-processors, trimming or
not, truncated with overflow, single texts, batches and pairs."""

from __future__ import annotations

import copy
import json

import pytest
from _hf_json import diff, lines
from _shared import MODELS, need_shared

EDGES = ["", " ", "hello", " hello", "  hi", "\nx", "\n\n  y", "\u00e9 t", "<|endoftext|>", "a<|endoftext|>b",
         " <|endoftext|> c", "\t", "ab  ", "\u4e2d\u6587", "\u00a0x", "'s it"]
POSTS = {
    "bytelevel": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": False, "use_regex": True},
    "bytelevel_trim": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
    "roberta": {"type": "RobertaProcessing", "sep": ["</s>", 50256], "cls": ["<s>", 50256], "trim_offsets": True,
                "add_prefix_space": True},
}


@pytest.mark.parametrize("post", list(POSTS))
def test_prefix_space_native(post):
    need_shared()
    import tokenizers

    from tokenforge.tokenizer import Tokenizer
    from tokenforge.tokenizer.native import NativeByteLevel

    d = copy.deepcopy(json.loads((MODELS / "hf" / "gpt2_tokenizer.json").read_text(encoding="utf-8")))
    d["pre_tokenizer"] = {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True}
    d["post_processor"] = POSTS[post]
    text = json.dumps(d)
    ref, ours = tokenizers.Tokenizer.from_str(text), Tokenizer.from_str(text)
    assert type(ours._native_engine()) is NativeByteLevel and ours._native_engine().prefix_space
    sample = EDGES + [ln for c in ("en", "multi", "code") for ln in lines(c, 15, seed=21)]
    for truncated in (False, True):
        for t in (ref, ours):
            t.no_padding()
            if truncated:
                t.enable_truncation(20, stride=3)
            else:
                t.no_truncation()
        for special in (True, False):
            for ln in sample:
                x, y = ref.encode(ln, add_special_tokens=special), ours.encode(ln, add_special_tokens=special)
                assert diff(x, y) is None, (post, truncated, special, ln[:40], diff(x, y))
            for x, y in zip(ref.encode_batch(sample, add_special_tokens=special),
                            ours.encode_batch(sample, add_special_tokens=special)):
                assert diff(x, y) is None, (post, truncated, special)
            for x, y in zip(ref.encode_batch_fast(sample, add_special_tokens=special),
                            ours.encode_batch_fast(sample, add_special_tokens=special)):
                assert x.ids == y.ids, (post, truncated, special)
        for a, b in zip(sample[:16:2], sample[1:16:2]):
            assert diff(ref.encode(a, b), ours.encode(a, b)) is None, (post, a, b)
