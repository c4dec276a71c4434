"""Token-for-token equality with tiktoken on the shared corpora, for r50k, p50k, cl100k,
o200k and Llama 3, plus lossless round trips."""

from __future__ import annotations

import pytest
from _tiktoken_refs import ENCODINGS, pair


@pytest.mark.parametrize("name", ENCODINGS)
def test_encode_ordinary_matches_tiktoken(name, corpus):
    ours, ref = pair(name)
    _, text = corpus
    got, want = ours.encode_ordinary(text), ref.encode_ordinary(text)
    if got != want:
        i = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want)))
        pytest.fail(f"first difference at token {i}: ours {ours.decode(got[i:i + 8])!r} vs tiktoken {ref.decode(want[i:i + 8])!r}")
    assert ours.decode(got) == text


@pytest.mark.parametrize("name", ENCODINGS)
def test_line_by_line_and_batch_match_tiktoken(name, corpus):
    """Lines end the text, so `$` and the end-of-text whitespace rules are exercised often."""
    ours, ref = pair(name)
    _, text = corpus
    lines = text.splitlines(keepends=True)[:3000]
    want = ref.encode_ordinary_batch(lines, num_threads=2)
    assert ours.encode_ordinary_batch(lines, num_threads=2) == want
    assert [ours.encode_ordinary(line) for line in lines[:500]] == want[:500]
    assert ours.count_tokens(text) == len(ref.encode_ordinary(text))


@pytest.mark.parametrize("name", ENCODINGS)
def test_special_tokens_inside_corpus_text(name, corpus):
    ours, ref = pair(name)
    _, text = corpus
    specials = sorted(ours.special_tokens_set)[:3]
    lines = text.splitlines(keepends=True)[:2000]
    mixed = "".join(line + (specials[i % len(specials)] if i % 7 == 0 else "") for i, line in enumerate(lines))
    assert ours.encode(mixed, allowed_special="all") == ref.encode(mixed, allowed_special="all")
    assert ours.encode(mixed, disallowed_special=()) == ref.encode(mixed, disallowed_special=())
    allowed = {specials[0]}
    assert ours.encode(mixed, allowed_special=allowed, disallowed_special=()) == ref.encode(
        mixed, allowed_special=allowed, disallowed_special=()
    )
    assert ours.decode(ours.encode(mixed, allowed_special="all")) == mixed
