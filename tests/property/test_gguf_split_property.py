"""Property tests of the GGUF pre-tokenizers (hypothesis): the regex-sequence splitter keeps
every character, and where tokenforge runs a native scanner instead of llama.cpp's regex
(GPT-2's regex without its final ``|\\s+``) the two give the same pieces."""

from __future__ import annotations

import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from tokenforge import patterns
from tokenforge.gguf.pretokenizers import PRE_TYPES, _GPT2
from tokenforge.gguf.split import SequenceSplitter

ALPHABET = list("aZé ß\t\n\r 1٣'s!,.?日本カ한\u0301\u00a0\u2581") + ["'S", "'ll", "  ", "\r\n", "123", "ſ"]
texts = st.lists(st.sampled_from(ALPHABET), max_size=40).map("".join)
SPLITTERS = {name: SequenceSplitter(p.regexes) for name, p in PRE_TYPES.items() if p.supported}


@settings(max_examples=150, deadline=None)
@given(texts)
def test_splitting_keeps_every_character(text):
    for name, splitter in SPLITTERS.items():
        pieces = splitter.split(text)
        assert "".join(pieces) == text, name
        assert all(pieces), name


@settings(max_examples=300, deadline=None)
@given(texts)
def test_gpt2_regex_without_final_whitespace_alternative_splits_like_tiktoken_gpt2(text):
    assert SequenceSplitter([_GPT2]).split(text) == regex.findall(patterns.GPT2, text)


@settings(max_examples=300, deadline=None)
@given(texts)
def test_single_regexes_that_match_everywhere_split_like_findall(text):
    for name in ("llama3", "qwen2", "gpt4o", "tekken"):
        pattern = PRE_TYPES[name].regexes[0]
        assert SequenceSplitter([pattern]).split(text) == regex.findall(pattern, text), name
