"""T5's and DeBERTa's pre-tokenizer, WhitespaceSplit then Metaspace, on the native
SentencePiece-style path (tokenforge.tokenizer.native_spm, each run without White_Space a
stretch of its own): against `tokenizers` for a Unigram with a charsmap (ruT5's) and a BPE with
byte fallback (Mistral's), every Metaspace prepend scheme, split or not, on text of every kind
of whitespace (tabs, U+3000, U+0085, U+2028; U+200B and U+180E are not White_Space), ▁ in the
text and added tokens: single texts with and without special tokens, pairs, batches, decodes;
and against the readable pipeline on text drawn from every code point."""

from __future__ import annotations

import functools
import json
import random

import pytest
from _hf_json import assert_same_on, diff
from _shared import MODELS, need_shared
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ATOMS = ["a", "Hello", " ", "  ", "\t", "\n", "\r\n", "\u3000", "\u00a0", "\u2028", "\u0085", "\u200b", "\u180e",
         "\u2009", "▁", "▁▁", "x▁y", "é", "e\u0301", "ﬁ", "中文", "😀", "1", "2023", ".", ",", "</s>", "<pad>", "<unk>",
         "▁a", "ＡＢ", "\x00", "\x1f", "\ufeff"]


def _file(base: str, scheme: str, split: bool) -> str:
    d = json.loads((MODELS / "hf" / f"{base}_tokenizer.json").read_text(encoding="utf-8"))
    if base == "mistral_v1":
        d["normalizer"] = None  # its Prepend/Replace steps would run before the split
    d["pre_tokenizer"] = {"type": "Sequence", "pretokenizers": [
        {"type": "WhitespaceSplit"},
        {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": scheme, "split": split}]}
    return json.dumps(d)


@functools.lru_cache(maxsize=1)
def _t5_like():
    from tokenforge.tokenizer import Tokenizer

    return Tokenizer.from_str(_file("rut5", "always", True))


CASES = [(base, scheme, split) for base in ("rut5", "mistral_v1") for scheme in ("always", "first", "never")
         for split in (True, False)]


@pytest.mark.parametrize(("base", "scheme", "split"), CASES)
def test_whitespace_split_metaspace_native_as_tokenizers(base, scheme, split):
    need_shared()
    import tokenizers

    from tokenforge.tokenizer import Tokenizer
    from tokenforge.tokenizer.native_spm import NativeSpm

    text = _file(base, scheme, split)
    ref, ours = tokenizers.Tokenizer.from_str(text), Tokenizer.from_str(text)
    for t in (ref, ours):
        t.no_truncation()
        t.no_padding()
    assert type(ours._native_engine()) is NativeSpm
    r = random.Random(f"{base}{scheme}{split}")
    texts = ["".join(r.choice(ATOMS) for _ in range(r.randint(0, 12))) for _ in range(400)]
    assert_same_on(ref, ours, texts)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.text(st.characters(blacklist_categories=("Cs",)), max_size=30)
       | st.text("".join(ATOMS), max_size=30))
def test_whitespace_split_metaspace_equals_oracle(text):
    need_shared()
    from tokenforge.tokenizer.pipeline import encode_sequence

    ours = _t5_like()
    slow = encode_sequence(text, ours.normalizer, ours.pre_tokenizer, ours.model, ours.added)
    fast = ours._native_engine().encode(text)
    if fast is not None:  # None: a text the charsmap step leaves to the readable pipeline
        assert diff(slow, fast) is None
