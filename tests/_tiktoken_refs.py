"""The five byte-level vocabularies under test, built both ways from ../shared/models:
as `tiktoken.Encoding` (the reference) and as `tokenforge.Encoding`.  Patterns and special
tokens are tiktoken's (and llama-models' for Llama 3), see shared/models/MANIFEST.md."""

from __future__ import annotations

import functools

from _shared import MODELS, need_shared

import tokenforge
from tokenforge import patterns

ENCODINGS = ["r50k_base", "p50k_base", "cl100k_base", "o200k_base", "llama3"]


def llama3_specials() -> dict[str, int]:
    names = [
        "<|begin_of_text|>", "<|end_of_text|>", "<|reserved_special_token_0|>", "<|reserved_special_token_1|>",
        "<|finetune_right_pad_id|>", "<|step_id|>", "<|start_header_id|>", "<|end_header_id|>", "<|eom_id|>",
        "<|eot_id|>", "<|python_tag|>", "<|image|>",
    ]
    names += [f"<|reserved_special_token_{i}|>" for i in range(2, 246)]
    return {name: 128000 + i for i, name in enumerate(names)}


@functools.lru_cache(maxsize=None)
def pair(name: str):
    """(tokenforge encoding, tiktoken encoding) for one of ENCODINGS."""
    need_shared()
    import tiktoken

    if name == "llama3":
        ranks = tokenforge.load_tiktoken_bpe(MODELS / "tiktoken" / "llama3.tiktoken")
        ours = tokenforge.Encoding("llama3", pat_str=patterns.LLAMA3, mergeable_ranks=ranks, special_tokens=llama3_specials())
    else:
        ours = tokenforge.get_encoding(name)
    ref = tiktoken.Encoding(
        name, pat_str=ours._pat_str, mergeable_ranks=ours._mergeable_ranks, special_tokens=ours._special_tokens
    )
    return ours, ref


def check_lines(name: str, lines: list[str]) -> None:
    """Each line, and all of them joined, encode as tiktoken encodes them."""
    ours, ref = pair(name)
    want = ref.encode_ordinary_batch(lines, num_threads=2)
    got = [ours.encode_ordinary(line) for line in lines]
    for line, a, b in zip(lines, got, want):
        assert a == b, repr(line)
    text = "".join(lines)
    assert ours.encode_ordinary(text) == ref.encode_ordinary(text)
