"""Shared helpers of the tokenizer.json tests: the files, both tokenizers loaded once, sampled
lines, and the field-by-field comparison of two encodings."""

from __future__ import annotations

import functools
import os
import random

from _shared import MODELS, corpus_sample

HF_FILES = sorted(p.name for p in (MODELS / "hf").glob("*.json")) if (MODELS / "hf").is_dir() else []
FIELDS = ("ids", "tokens", "offsets", "word_ids", "type_ids", "special_tokens_mask", "attention_mask")
LINES = int(os.environ.get("TOKENFORGE_HF_LINES", "60"))  # lines per corpus file and tokenizer file


@functools.lru_cache(maxsize=None)
def load(name: str, configured: bool = False):
    """(tokenizers.Tokenizer, tokenforge Tokenizer) for one file; truncation/padding off unless `configured`."""
    import tokenizers

    from tokenforge.tokenizer import Tokenizer

    path = str(MODELS / "hf" / name)
    ref, ours = tokenizers.Tokenizer.from_file(path), Tokenizer.from_file(path)
    if not configured:
        for t in (ref, ours):
            t.no_truncation()
            t.no_padding()
    return ref, ours


def load_fresh(name: str, configured: bool = False):
    """load() without its cache, for a test that changes the tokenizers (adds tokens, sets a
    flag): the cached pair is shared by every test of the process."""
    return load.__wrapped__(name, configured)


@functools.lru_cache(maxsize=None)
def lines(corpus: str, n: int = LINES, seed: int = 0) -> list[str]:
    all_lines = [ln for ln in corpus_sample(corpus).split("\n") if ln]
    return random.Random(seed).sample(all_lines, min(n, len(all_lines)))


def diff(a, b) -> str | None:
    """The first field where two encodings differ (and where), or None."""
    for f in FIELDS:
        x, y = getattr(a, f), getattr(b, f)
        if x != y:
            i = next((k for k, (p, q) in enumerate(zip(x, y)) if p != q), min(len(x), len(y)))
            return f"{f} differ at {i}: tokenizers {x[max(0, i - 2):i + 3]} ours {y[max(0, i - 2):i + 3]} (lengths {len(x)}, {len(y)})"
    if len(a.overflowing) != len(b.overflowing):
        return f"overflowing: tokenizers {len(a.overflowing)} ours {len(b.overflowing)}"
    for k, (p, q) in enumerate(zip(a.overflowing, b.overflowing)):
        d = diff(p, q)
        if d:
            return f"overflowing[{k}]: {d}"
    return None


def assert_same_encodings(ref, ours, text: str, pair: str) -> None:
    """ours == tokenizers on `text` alone and with `pair`, with and without special tokens."""
    for special in (True, False):
        assert diff(ref.encode(text, add_special_tokens=special), ours.encode(text, add_special_tokens=special)) is None
        assert diff(ref.encode(text, pair, add_special_tokens=special),
                    ours.encode(text, pair, add_special_tokens=special)) is None


def assert_same_on(ref, ours, samples: list[str], decodes: int = 100) -> None:
    """ours == tokenizers on each sample with and without special tokens, on each with the next
    as its pair, on the samples as one batch (with offsets, and ids only), and the decodes of
    the first `decodes` samples' ids (special tokens skipped or kept)."""
    for a, b in zip(samples, samples[1:]):
        for special in (True, False):
            got = ours.encode(a, add_special_tokens=special)
            assert diff(ref.encode(a, add_special_tokens=special), got) is None, (a, diff(ref.encode(a), got))
        assert diff(ref.encode(a, b), ours.encode(a, b)) is None, (a, b)
    for x, y in zip(ref.encode_batch(samples), ours.encode_batch(samples)):
        assert diff(x, y) is None
    assert [e.ids for e in ref.encode_batch_fast(samples)] == [e.ids for e in ours.encode_batch_fast(samples)]
    for a in samples[:decodes]:
        ids = ref.encode(a).ids
        for skip in (True, False):
            assert ours.decode(ids, skip_special_tokens=skip) == ref.decode(ids, skip_special_tokens=skip), a


def albert_normalizer(charsmap: dict) -> dict:
    """ALBERT's and XLNet's normalizer (as transformers converts their .model files) around a
    file's Precompiled step: quote pairs replaced, NFKD, accents stripped, lowercased, then the
    charsmap and space runs collapsed."""
    return {"type": "Sequence", "normalizers": [
        {"type": "Replace", "pattern": {"String": "``"}, "content": "\""},
        {"type": "Replace", "pattern": {"String": "''"}, "content": "\""}, {"type": "NFKD"},
        {"type": "StripAccents"}, {"type": "Lowercase"}, charsmap,
        {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "}]}
