"""Byte-level files with an NFC or NFKC normalizer (Qwen3, Claude; and GPT-2's file given an
NFC or NFKC normalizer and a trimming post-processor) on text the normalizer changes: the
native engine encodes the normalized text and reads each token's offsets back through
`tokenizers`' alignment (tokenizer/native.py's `normal_form`).  Every field equal to
`tokenizers` 0.23.3 on single texts, batches (one and two threads) and `encode_batch_fast`,
pairs; and the native path taken for such text unless an added token is in it."""

from __future__ import annotations

import json
import random

import pytest
from _hf_json import FIELDS, diff, lines
from _shared import MODELS, need_shared

# Characters the normalizers change, alone or with what comes before: decomposed accents and
# marks out of order, singletons and composition exclusions, compatibility characters (NFKC),
# Hangul jamo (conjoining and compatibility), CJK compatibility ideographs, astral ones
# (musical symbols, mathematical letters, compatibility ideographs past U+2F800).
CHANGED = ["e\u0301", "a\u0316\u0301", "\u0a36", "\u09df", "\u0f81", "\u0387", "\u212b", "\u212a", "\uf981",
           "\ufb01", "m\u00b2", "\u2460", "\uff21\uff22", "\u3000", "\u1100\u1161\u11a8", "\uac00\u11a8",
           "\u314a\u315a", "\U0001d15e", "\U0001d400", "\U0002f800", "\u0915\u093c", "\u00c5\u0323",
           "\u0301", "\u202f", "\u1e9b\u0323", "\u0344", "\u0958"]
SPICE = [" ", "  ", "x", "ok ", "\n", "中文", "\u00e9", "\U0001F600", "\u0645\u064e"]


def _texts(seed: int, n: int) -> list[str]:
    rng = random.Random(seed)
    out = []
    for ln in lines("multi", n, seed=seed) + lines("en", n // 2, seed=seed):
        cut = rng.randrange(len(ln) + 1)
        out.append(ln[:cut] + "".join(rng.choice(CHANGED + SPICE) for _ in range(rng.randrange(1, 6))) + ln[cut:])
    out += ["".join(rng.choice(CHANGED + SPICE) for _ in range(rng.randrange(1, 30))) for _ in range(n)]
    return out + CHANGED


def _pair(name: str, edit: str | None = None):
    tokenizers = pytest.importorskip("tokenizers")
    from tokenforge.tokenizer import Tokenizer

    need_shared()
    d = json.loads((MODELS / "hf" / f"{name}_tokenizer.json").read_text(encoding="utf-8"))
    d["truncation"] = d["padding"] = None
    if edit is not None:  # GPT-2 with a normalizer and offsets trimmed
        d["normalizer"] = {"type": edit}
        d["post_processor"] = {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True}
    s = json.dumps(d)
    return tokenizers.Tokenizer.from_str(s), Tokenizer.from_str(s)


@pytest.mark.parametrize("name,edit", [("qwen3", None), ("claude", None), ("gpt2", "NFC"), ("gpt2", "NFKC")])
def test_changed_text_as_tokenizers(name, edit):
    ref, ours = _pair(name, edit)
    texts = _texts(21, 60)
    for special in (True, False):
        want = ref.encode_batch(texts, add_special_tokens=special)
        for threads in (1, 2):
            got = ours.encode_batch(texts, add_special_tokens=special, num_threads=threads)
            for t, a, b in zip(texts, want, got):
                assert diff(a, b) is None, (t[:80], diff(a, b))
        for a, b in zip(ref.encode_batch_fast(texts, add_special_tokens=special),
                        ours.encode_batch_fast(texts, add_special_tokens=special, num_threads=2)):
            assert [getattr(a, f) for f in FIELDS] == [getattr(b, f) for f in FIELDS]
        for t, a in zip(texts[::5], want[::5]):
            assert diff(a, ours.encode(t, add_special_tokens=special)) is None, t[:80]
    pairs = list(zip(texts[:20], texts[20:40]))
    for (x, y), a in zip(pairs, ref.encode_batch(pairs)):
        assert diff(a, ours.encode(x, y)) is None


@pytest.mark.parametrize("name", ["qwen3", "claude"])
def test_added_tokens_beside_changed_text(name):
    """Text with an added token goes to the Python path (the engine would match tokens in the
    normalized text), and is still as tokenizers encodes it; a token that normalizing would
    make (U+212A KELVIN SIGN is K) or unmake (a mark after its last character) too."""
    ref, ours = _pair(name)
    added = [t.content for _, t in sorted(ref.get_added_tokens_decoder().items())][:8]
    texts = []
    for a in added:
        texts += [f"x\u0301 {a} \u212b", f"{a}\u0301", f"\u0301{a}", a.replace("e", "e\u0301"),
                  a.replace("K", "\u212a").replace("k", "\u212a")]
    for special in (True, False):
        for t, a in zip(texts, ref.encode_batch(texts, add_special_tokens=special)):
            assert diff(a, ours.encode(t, add_special_tokens=special)) is None, t


def test_native_path_taken():
    ref, ours = _pair("qwen3")
    native = ours._native_engine()
    texts = [t for t in _texts(22, 20) if "<|" not in t]
    assert all(native.normal_form(t) is not None for t in texts)
    got = ours.encode_batch(texts)
    assert {type(e).__name__ for e in got} == {"ByteLevelDocEncoding", "NormalizedDocEncoding"}
