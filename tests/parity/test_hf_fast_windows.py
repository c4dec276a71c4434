"""encode_batch_fast with truncation, against HF tokenizers 0.23.3: the overflowing windows.

tokenizers' offset-free encoding leaves every window without offsets, word ids or tokens
(but the text of a post-processor's special tokens), and gives a pair's second sequence
type id 0 before post-processing: a post-processor sets 1 on its first window only, so the
windows made from the pair's own overflow keep 0 where no template sets them.  Every file
of ../shared/models/hf, as configured and with a small limit (with a stride, and with
padding), single texts and pairs, with and without special tokens: every field of every
window as tokenizers.
"""

from __future__ import annotations

import random

import pytest
from _hf_json import HF_FILES, diff, lines
from _shared import MODELS, need_shared

pytestmark = pytest.mark.skipif(not HF_FILES, reason="needs ../shared/models/hf")


def _docs() -> list[str]:
    rng = random.Random(9)
    pool = lines("en", 40, seed=9) + lines("multi", 40, seed=9) + lines("code", 40, seed=9)
    return ["\n".join(rng.sample(pool, 8)) for _ in range(5)]


def _fresh(name: str, setup: str):
    import tokenizers

    from tokenforge.tokenizer import Tokenizer

    path = str(MODELS / "hf" / name)
    ref, ours = tokenizers.Tokenizer.from_file(path), Tokenizer.from_file(path)
    if setup != "configured":
        for t in (ref, ours):
            t.enable_truncation(24, stride=4 if setup == "stride+pad" else 0)
            if setup == "stride+pad":
                t.enable_padding(pad_id=0, pad_token="<pad>", pad_to_multiple_of=8)
    return ref, ours


@pytest.mark.parametrize("setup", ["configured", "limit", "stride+pad"])
@pytest.mark.parametrize("name", HF_FILES)
def test_fast_windows_as_tokenizers(name, setup):
    need_shared()
    ref, ours = _fresh(name, setup)
    docs = _docs()
    pairs = [(a, b[::-1][:200]) for a, b in zip(docs, docs[1:] + docs[:1])]
    for inputs in (docs, pairs):
        for special in (True, False):
            want = ref.encode_batch_fast(inputs, add_special_tokens=special)
            got = ours.encode_batch_fast(inputs, add_special_tokens=special)
            assert len(got) == len(want)
            for k, (x, y) in enumerate(zip(want, got)):
                d = diff(x, y)
                assert d is None, f"{name} {setup} pair={inputs is pairs} special={special} item {k}: {d}"
