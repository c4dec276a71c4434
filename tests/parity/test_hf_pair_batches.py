"""Batches of (text, pair) on every shared tokenizer.json (tokenizer.py's pair path: each
side's native documents without a frame, joined by processors.merge): against `tokenizers`
with truncation off, longest_first with a stride, only_first, only_second and left direction,
with and without padding and special tokens, every field and every overflowing window."""

from __future__ import annotations

import pytest
from _hf_json import diff, lines, load_fresh
from _shared import MODELS, need_shared

FILES = sorted(p.name for p in (MODELS / "hf").glob("*_tokenizer.json")) if (MODELS / "hf").is_dir() else []
SETTINGS = [None, dict(max_length=24, stride=4), dict(max_length=40, strategy="only_first"),
            dict(max_length=40, strategy="only_second", direction="left")]


@pytest.mark.parametrize("name", FILES)
def test_pair_batches(name):
    need_shared()
    ref, ours = load_fresh(name)
    texts = [ln[:400] for c in ("en", "multi", "code") for ln in lines(c, 8, seed=33)] + ["", " ", "a"]
    pairs = list(zip(texts, texts[1:] + texts[:1]))
    for setting in SETTINGS:
        for padded in (False, True):
            for t in (ref, ours):
                t.no_truncation()
                t.no_padding()
                if setting is not None:
                    t.enable_truncation(**setting)
                if padded:
                    t.enable_padding(pad_id=0, pad_token=t.id_to_token(0))
            for special in (True, False):
                try:
                    want = ref.encode_batch(pairs, add_special_tokens=special)
                except Exception:  # noqa: BLE001 - tokenizers refuses some settings (a pair too short)
                    with pytest.raises((ValueError, Exception)):
                        ours.encode_batch(pairs, add_special_tokens=special)
                    continue
                got = ours.encode_batch(pairs, add_special_tokens=special)
                for k, (x, y) in enumerate(zip(want, got)):
                    assert diff(x, y) is None, (name, setting, padded, special, k, diff(x, y))
