"""Padding of the native paths' Encodings is recorded and applied to each list as it is made
(DocEncoding.pad): whatever fields a caller reads, in whatever order, before or after one
or more paddings (right and left, fixed length, batch longest, pad_to_multiple_of), every
field equals HF tokenizers 0.23.3's on the same batch."""

from __future__ import annotations

import random

import pytest
from _hf_json import FIELDS, HF_FILES, lines, load
from _shared import need_shared

pytestmark = pytest.mark.skipif(not HF_FILES, reason="needs ../shared/models/hf")

FILES = [f for f in ("gpt2_tokenizer.json", "minilm_bert_uncased_tokenizer.json", "mistral_v1_tokenizer.json",
                     "rut5_tokenizer.json", "llama3_tokenizer.json") if f in HF_FILES]
PADDINGS = [dict(), dict(direction="left"), dict(length=96), dict(pad_to_multiple_of=8, direction="left"),
            dict(length=3)]


@pytest.mark.parametrize("name", FILES)
def test_fields_read_in_any_order(name):
    need_shared()
    ref, ours = load(name)
    texts = lines("en", 8, seed=7) + lines("multi", 4, seed=7) + [""]
    rng = random.Random(name)
    try:
        for kw in PADDINGS:
            for t in (ref, ours):
                t.enable_padding(pad_id=3, pad_type_id=1, pad_token="<p>", **kw)
            want = ref.encode_batch(texts)
            for _ in range(3):
                got = ours.encode_batch(texts)
                for e, w in zip(got, want):
                    early = rng.sample(FIELDS, rng.randrange(len(FIELDS) + 1))
                    seen = {f: list(getattr(e, f)) for f in early}  # some lists made before padding again
                    e.pad(len(w.ids), 3, 1, "<p>", kw.get("direction", "right"))  # a no-op: already that long
                    for f in rng.sample(FIELDS, len(FIELDS)):
                        assert getattr(e, f) == getattr(w, f), f"{name} {kw} {f} (read first: {early})"
                    for f, v in seen.items():
                        assert v == getattr(w, f)
                    assert len(e) == len(w.ids)
            # a second padding of the same Encodings, longer, after some fields were read
            got = ours.encode_batch(texts)
            for e in got:
                for f in rng.sample(FIELDS, 2):
                    getattr(e, f)
            for t in (ref,):
                t.enable_padding(pad_id=3, pad_type_id=1, pad_token="<p>", length=200,
                                 direction=kw.get("direction", "right"))
            want = ref.encode_batch(texts)
            for e, w in zip(got, want):
                e.pad(200, 3, 1, "<p>", kw.get("direction", "right"))
                for f in rng.sample(FIELDS, len(FIELDS)):
                    assert getattr(e, f) == getattr(w, f), f"{name} {kw} then 200: {f}"
    finally:
        for t in (ref, ours):
            t.no_padding()


@pytest.mark.parametrize("name", FILES)
def test_overflowing_windows_made_late(name):
    """Truncation's windows are made when `overflowing` is first read (Encoding.each_overflowing
    defers the post-processor's and padding's work on them): read before or after a later
    pad(), with stride, either direction, they equal tokenizers'."""
    need_shared()
    ref, ours = load(name)
    texts = lines("en", 6, seed=3) + lines("multi", 3, seed=3) + ["x " * 300, ""]
    rng = random.Random(name)
    try:
        for trunc in (dict(max_length=7), dict(max_length=12, stride=3, direction="left")):
            for t in (ref, ours):
                t.enable_truncation(**trunc)
                t.enable_padding(pad_id=3, pad_type_id=1, pad_token="<p>", length=16)
            want = ref.encode_batch(texts)
            for got in (ours.encode_batch(texts), [ours.encode(t) for t in texts]):
                for e, w in zip(got, want):
                    early = rng.random() < 0.5
                    if early:
                        windows = e.overflowing
                    e.pad(20, 3, 1, "<p>")
                    w.pad(20, direction="right", pad_id=3, pad_type_id=1, pad_token="<p>")
                    if not early:
                        windows = e.overflowing
                    assert windows is e.overflowing
                    assert len(windows) == len(w.overflowing), f"{name} {trunc}"
                    for x, y in zip([e, *windows], [w, *w.overflowing]):
                        for f in FIELDS:
                            assert getattr(x, f) == getattr(y, f), f"{name} {trunc} {f} (windows read early: {early})"
    finally:
        for t in (ref, ours):
            t.no_truncation()
            t.no_padding()


@pytest.mark.parametrize("name", [f for f in ("gpt2_tokenizer.json", "llama3_tokenizer.json", "qwen3_tokenizer.json",
                                            "llama3_1_tokenizer.json", "minilm_bert_uncased_tokenizer.json",
                                            "mistral_v1_tokenizer.json", "rut5_tokenizer.json", "gemma_tokenizer.json",
                                            "deepseek_v3_tokenizer.json")
                                  if f in HF_FILES])
def test_truncated_documents_cut_lazily(name):
    """A truncated native document is cut into windows in its template's frame, each a
    document of its own (DocEncoding.cut), its lists made when read: read in any order,
    windows before or after the kept one, word ids of a late window first, with and without
    special tokens, singles and batches, every field equals tokenizers'."""
    need_shared()
    ref, ours = load(name)
    texts = lines("en", 6, seed=11) + lines("multi", 4, seed=11) + lines("code", 3, seed=11) + ["x " * 120]
    rng = random.Random(name)
    try:
        for trunc in (dict(max_length=9), dict(max_length=16, stride=5), dict(max_length=10, direction="left")):
            for t in (ref, ours):
                t.enable_truncation(**trunc)
            for add in (True, False):
                want = ref.encode_batch(texts, add_special_tokens=add)
                for got in (ours.encode_batch(texts, add_special_tokens=add),
                            [ours.encode(t, add_special_tokens=add) for t in texts]):
                    for e, w in zip(got, want):
                        pairs = list(zip([e, *e.overflowing], [w, *w.overflowing]))
                        assert len(pairs) == 1 + len(w.overflowing), f"{name} {trunc}"
                        reads = [(x, y, f) for x, y in pairs for f in FIELDS]
                        rng.shuffle(reads)
                        for x, y, f in reads:
                            assert getattr(x, f) == getattr(y, f), f"{name} {trunc} add={add} {f}"
    finally:
        for t in (ref, ours):
            t.no_truncation()
