"""Byte-level encodings written as tokenizer.json (`Tokenizer.from_encoding(enc).to_file`):
`tokenizers.Tokenizer.from_str`, `transformers.PreTrainedTokenizerFast(tokenizer_file=...)`,
tokenforge's own Tokenizer and `tokenforge.Encoding` all give tiktoken's ids
(`encode(text, allowed_special="all")`) on sampled corpus lines and on text with the special
tokens spliced in; decoding gives tiktoken's text.

Encodings: p50k_base (a hole in the ranks where its special token sits), cl100k_base
(specials past the ranks), Llama 3 (tokens no pair of lower-ranked tokens makes), and one
trained here by tokenforge.BpeTrainer, whose reference is tiktoken run on the same ranks.
o200k_base is left to a manual run (its 446k merges take long to load in Python).
"""

from __future__ import annotations

import functools

import pytest
from _hf_json import lines
from _shared import need_extra, need_shared
from _tiktoken_refs import ours, reference

CORPORA = ["en", "code", "multi", "mixed"]
N_LINES = 40


@functools.lru_cache(maxsize=None)
def _trained():
    import tiktoken

    import tokenforge

    texts = lines("en", 400, seed=1) + lines("multi", 400, seed=1) + lines("code", 200, seed=1)
    enc = tokenforge.BpeTrainer(1200, pat_str=tokenforge.patterns.O200K, special_tokens=["<|end|>", "<|pad|>"],
                                show_progress=False).train_from_iterator(texts)
    ref = tiktoken.Encoding("trained", pat_str=enc._pat_str, mergeable_ranks=enc._mergeable_ranks,
                            special_tokens=enc._special_tokens)
    return enc, ref


def _pair(name: str):
    need_shared()
    return _trained() if name == "trained" else (ours(name), reference(name))


@pytest.mark.parametrize("name", ["p50k_base", "cl100k_base", "llama3", "trained"])
def test_written_json_gives_tiktoken_ids(name, tmp_path):
    tokenizers = pytest.importorskip("tokenizers")
    transformers = need_extra("transformers", "test")
    from tokenforge import Tokenizer

    enc, ref = _pair(name)
    path = tmp_path / "tokenizer.json"
    Tokenizer.from_encoding(enc).to_file(path)
    ours_tok = Tokenizer.from_file(path)
    hf = tokenizers.Tokenizer.from_file(str(path))
    fast = transformers.PreTrainedTokenizerFast(tokenizer_file=str(path))
    specials = sorted(enc.special_tokens_set)[:4]
    texts = [ln for c in CORPORA for ln in lines(c, N_LINES)]
    texts += [f"{s}a{s} b {s}\n {s}" for s in specials] + ["".join(specials)]
    for text in texts:
        want = ref.encode(text, allowed_special="all")
        assert enc.encode(text, allowed_special="all") == want, text
        assert ours_tok.encode(text).ids == want, text
        assert hf.encode(text).ids == want, text
        assert fast(text)["input_ids"] == want, text
        assert hf.decode(want, skip_special_tokens=False) == ours_tok.decode(want, skip_special_tokens=False) \
            == ref.decode(want), text
    for s in specials:
        assert hf.token_to_id(s) == ours_tok.token_to_id(s) == ref.encode_single_token(s)
