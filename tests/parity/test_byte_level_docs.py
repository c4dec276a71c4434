"""The native byte-level documents (`_native.ByteLevelDocs`, tokenizer/native.py's
`encode_final`): every field of `encode`, `encode_batch` (one and two threads) and
`encode_batch_fast` equal to `tokenizers` 0.23.3, also with the ByteLevel post-processor's
offset trimming on (no shipped file has it: GPT-2's and Llama 3.1's files are edited to
`trim_offsets: true`, with and without `add_prefix_space`), on corpus lines, whole ~4 KB
documents, edge texts (spaces, accents, emoji) and text with the added tokens spliced in.
"""

from __future__ import annotations

import json

import pytest
from _hf_json import FIELDS, diff, lines
from _shared import MODELS, corpus_sample, need_shared

EDGES = ["", " ", "  hello", " \u00e9t\u00e9  ", "\U0001F600 x  ", "\n\n  a \t", "a <|endoftext|> b<|endoftext|>  c",
         "<|begin_of_text|> x  <|eot_id|>", "  <|eot_id|>  "]


def _texts() -> list[str]:
    docs = []
    for corpus in ("en", "multi", "code"):
        text = corpus_sample(corpus)[:40_000]
        docs += [text[i:i + 4000] for i in range(0, len(text), 4000)]
        docs += lines(corpus, 40)
    return docs + EDGES


def _pair(name: str, trim: bool | None, prefix_space: bool = True):
    """(tokenizers, ours) of a file, its ByteLevel post-processor set to trim when `trim` is
    not None; truncation and padding off."""
    tokenizers = pytest.importorskip("tokenizers")
    from tokenforge.tokenizer import Tokenizer

    need_shared()
    d = json.loads((MODELS / "hf" / f"{name}_tokenizer.json").read_text(encoding="utf-8"))
    d["truncation"] = d["padding"] = None
    if trim is not None:
        bl = {"type": "ByteLevel", "add_prefix_space": prefix_space, "trim_offsets": trim, "use_regex": True}
        if d["post_processor"]["type"] == "Sequence":
            d["post_processor"]["processors"][0] = bl
        else:
            d["post_processor"] = bl
    s = json.dumps(d)
    return tokenizers.Tokenizer.from_str(s), Tokenizer.from_str(s)


def _check(ref, ours, texts: list[str]) -> None:
    for special in (True, False):
        want = ref.encode_batch(texts, add_special_tokens=special)
        for threads in (1, 2):
            got = ours.encode_batch(texts, add_special_tokens=special, num_threads=threads)
            assert type(got[0]).__name__ == "ByteLevelDocEncoding"  # the path under test
            for t, a, b in zip(texts, want, got):
                assert diff(a, b) is None, (t[:80], diff(a, b))
                assert a.sequence_ids == b.sequence_ids
        fast_want = ref.encode_batch_fast(texts, add_special_tokens=special)
        for a, b in zip(fast_want, ours.encode_batch_fast(texts, add_special_tokens=special, num_threads=2)):
            assert [getattr(a, f) for f in FIELDS] == [getattr(b, f) for f in FIELDS]
        for t, a in zip(texts[::7] + EDGES, want[::7] + want[-len(EDGES):]):
            assert diff(a, ours.encode(t, add_special_tokens=special)) is None, t[:80]


@pytest.mark.parametrize("name", ["gpt2", "llama3_1", "deepseek_v3", "qwen3"])
def test_as_shipped(name):
    _check(*_pair(name, None), _texts())


@pytest.mark.parametrize("name", ["gpt2", "llama3_1"])
@pytest.mark.parametrize("prefix_space", [True, False])
def test_trimmed_offsets(name, prefix_space):
    _check(*_pair(name, True, prefix_space), _texts())


def test_lone_surrogates_raise():
    _, ours = _pair("llama3", None)
    for bad, at in (("ab\ud800c", 2), ("x\ud83d\ude00", 1)):
        for run in (lambda: ours.encode(bad), lambda: ours.encode_batch(["fine", bad], num_threads=2),
                    lambda: ours.encode_batch_fast([bad])):
            with pytest.raises(ValueError, match=f"lone surrogate at character {at}"):
                run()
