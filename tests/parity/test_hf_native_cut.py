"""Byte-level files that cut out digits or punctuation before their regex (StarCoder's
Digits then ByteLevel; tokenizer/native_cut.py): the native cut path against `tokenizers` on
sampled corpus lines and on the texts where cutting first changes the split (spaces before a
digit, non-ASCII numerals, punctuation runs, added tokens beside digits), with GPT-2's regex
and with Llama 3's Split in front of a regex-free ByteLevel."""

from __future__ import annotations

import copy
import json

import pytest
from _hf_json import diff, lines
from _shared import MODELS, need_shared

CUTS = {
    "digits": {"type": "Digits", "individual_digits": True},
    "digit_runs": {"type": "Digits", "individual_digits": False},
    "punctuation": {"type": "Punctuation", "behavior": "Isolated"},
    "punctuation_runs": {"type": "Punctuation", "behavior": "Contiguous"},
}
EDGES = ["a  1", "x 12  3\n\n 4", "\uff11\uff12\uff13 \u0663\u0664 \u00b2\u00b3  x", "a  .", "..  ..!!", " 1 ", "1\n\n2",
         "\u2160\u2161 \u2155  7", "\u00bf\u00bfqu\u00e9?", "v1.2.3-rc4", "  \t1\u3000\u3000\u4e00"]


def _config(cut: str, base: str) -> dict:
    d = copy.deepcopy(json.loads((MODELS / "hf" / f"{base}_tokenizer.json").read_text(encoding="utf-8")))
    rest = d["pre_tokenizer"]["pretokenizers"] if base == "llama3" else [
        {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True}]
    d["pre_tokenizer"] = {"type": "Sequence", "pretokenizers": [CUTS[cut]] + rest}
    return d


@pytest.mark.parametrize("base", ["gpt2", "llama3"])
@pytest.mark.parametrize("cut", list(CUTS))
def test_cut_file_equals_tokenizers(cut, base):
    need_shared()
    import tokenizers

    from tokenforge.tokenizer import Tokenizer
    from tokenforge.tokenizer.native_cut import NativeCutSplit

    text = json.dumps(_config(cut, base))
    ref, ours = tokenizers.Tokenizer.from_str(text), Tokenizer.from_str(text)
    for t in (ref, ours):
        t.no_truncation()
        t.no_padding()
    assert isinstance(ours._native_engine(), NativeCutSplit)
    special = next(iter(ours.get_added_tokens_decoder().values())).content
    sample = [ln for c in ("en", "multi", "code", "mixed") for ln in lines(c, 20, seed=5)] + EDGES
    sample += [special.join(EDGES[:4]), f"7{special}8", f"{special}  9 {special}"]
    for ln in sample:
        assert diff(ref.encode(ln), ours.encode(ln)) is None, (cut, base, ln[:60])
    for x, y in zip(ref.encode_batch(sample), ours.encode_batch(sample)):
        assert diff(x, y) is None, (cut, base)
    for x, y in zip(ref.encode_batch_fast(sample), ours.encode_batch_fast(sample)):
        assert x.ids == y.ids, (cut, base)
    for a, b in zip(EDGES[::2], EDGES[1::2]):
        assert diff(ref.encode(a, b), ours.encode(a, b)) is None, (cut, base, a, b)
