"""GPT-NeoX-like tokenizer.json files (Pythia, OLMo, StableLM and MPT ship this form) on the
native byte-level path: an NFC (or NFKC) normalizer before ByteLevel, `normalized` added
tokens whose content the normalizer leaves as it is, and added tokens that are prefixes of
others (NeoX's runs of 2 to 24 spaces): tokenizers matches the longest added token at the
leftmost place, as the engine's special matcher does.  Against `tokenizers` on text of space
runs, composed and decomposed characters, compatibility characters and added tokens: single
texts, pairs, batches and decodes."""

from __future__ import annotations

import copy
import json
import random

import pytest
from _hf_json import assert_same_on
from _shared import MODELS, need_shared


def _neox(form: str | None, eot_normalized: bool) -> str:
    d = copy.deepcopy(json.loads((MODELS / "hf" / "gpt2_tokenizer.json").read_text(encoding="utf-8")))
    d["normalizer"] = {"type": form} if form else None
    d["pre_tokenizer"] = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True}
    d["added_tokens"][0]["normalized"] = eot_normalized

    def added(i: int, content: str, normalized: bool, special: bool) -> dict:
        return {"id": i, "content": content, "single_word": False, "lstrip": False, "rstrip": False,
                "normalized": normalized, "special": special}

    ids = iter(range(50257, 50300))
    d["added_tokens"] += [added(next(ids), " " * n, True, False) for n in range(24, 1, -1)]
    d["added_tokens"] += [added(next(ids), "<|pad|>", False, True), added(next(ids), "ab", True, False),
                          added(next(ids), "abc", True, False)]
    return json.dumps(d)


ATOMS = ["a", "b", "c", "abc", "ab", " ", "  ", "   ", "     ", "\t", "\n", "  \n", "é", "e\u0301", "ﬁ", "Å", "\u212b",
         "①", "x", "1", "<|endoftext|>", "<|pad|>", "中", "😀", "hello", " world", "ＡＢ", "c\u0301", "b\u0301"]


@pytest.mark.parametrize(("form", "eot_normalized"), [("NFC", False), ("NFC", True), ("NFKC", False), (None, True)])
def test_neox_like_file_native_as_tokenizers(form, eot_normalized):
    need_shared()
    import tokenizers

    from tokenforge.tokenizer import Tokenizer
    from tokenforge.tokenizer.native import NativeByteLevel

    text = _neox(form, eot_normalized)
    ref, ours = tokenizers.Tokenizer.from_str(text), Tokenizer.from_str(text)
    assert type(ours._native_engine()) is NativeByteLevel
    r = random.Random(f"{form}{eot_normalized}")
    texts = ["".join(r.choice(ATOMS) for _ in range(r.randint(0, 14))) for _ in range(600)]
    assert_same_on(ref, ours, texts)
