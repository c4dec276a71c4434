"""Hypothesis: on arbitrary Unicode, tokenforge == tiktoken == the pure-Python reference,
and decode(encode(x)) == x."""

from __future__ import annotations

import functools

import pytest
from _tiktoken_refs import ENCODINGS, pair
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tokenforge.reference import bpe as reference

# Characters the corpora and real text stress: combining marks, CR/LF, whitespace of all
# kinds, apostrophe contractions, digits of other scripts, letters of every case class.
SPECIAL_CHARS = list("\r\n\t \u00a0\u2028\u3000\u0085\u000b'sStTlLvVeErRdDmM\u017f0123456789\u0661\u0301\u0308\u20dd")
SPECIAL_CHARS += ["\u01c5", "\u02b0", "\u4e2d", "\u00e9", "😀", "\u200d", "/", "!", "<", "|", "\ufffd", "\U0001f1fa"]

texts = st.text(
    alphabet=st.one_of(st.characters(exclude_categories=("Cs",)), st.sampled_from(SPECIAL_CHARS)),
    max_size=60,
)
texts_with_surrogates = st.text(alphabet=st.one_of(st.characters(), st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF)), max_size=30)

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize("name", ENCODINGS)
@SETTINGS
@given(text=texts)
def test_equal_to_tiktoken_and_lossless(name, text):
    ours, ref = pair(name)
    ids = ours.encode_ordinary(text)
    assert ids == ref.encode_ordinary(text)
    assert ours.decode(ids) == text
    assert ours.count_tokens(text) == len(ids)


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
@SETTINGS
@given(text=texts_with_surrogates)
def test_surrogates_handled_like_tiktoken(name, text):
    ours, ref = pair(name)
    assert ours.encode(text, disallowed_special=()) == ref.encode(text, disallowed_special=())
    assert ours.encode_ordinary(text) == ref.encode_ordinary(text)
    # Batches repair surrogates natively, while converting to UTF-8 on the worker threads.
    assert ours.encode_ordinary_batch([text, "x" + text]) == [ref.encode_ordinary(text), ref.encode_ordinary("x" + text)]
    assert ours.encode_batch([text], disallowed_special=()) == [ref.encode(text, disallowed_special=())]


# Runs of ASCII (copied a word at a time) around characters of every width and surrogates,
# in strs of each storage kind (1, 2 or 4 bytes a character).
_pieces = st.one_of(
    st.text(alphabet=st.characters(max_codepoint=0x7F), min_size=1, max_size=20),
    st.characters(min_codepoint=0x80, max_codepoint=0xFF),
    st.characters(min_codepoint=0x100, max_codepoint=0xFFFF, exclude_categories=("Cs",)),
    st.characters(min_codepoint=0x10000),
    st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF),
)
long_mixed_texts = st.lists(_pieces, max_size=40).map("".join)


@pytest.mark.parametrize("name", ["cl100k_base"])
@SETTINGS
@given(texts=st.lists(long_mixed_texts, min_size=1, max_size=4))
def test_batch_utf8_conversion_like_tiktoken(name, texts):
    ours, ref = pair(name)
    assert ours.encode_ordinary_batch(texts, num_threads=2) == [ref.encode_ordinary(t) for t in texts]


@functools.lru_cache(maxsize=None)
def _regex_agrees_with_tiktoken(ch: str) -> bool:
    """The reference splits with the `regex` module, whose Unicode version is newer than
    tiktoken's; characters the two classify differently are left out of that comparison."""
    import regex

    from tokenforge._unicode_probe import tiktoken_classes

    classes = tiktoken_classes()
    return all((regex.match(p, ch) is not None) == (ord(ch) in members) for p, members in classes.items())


@pytest.mark.parametrize("name", ENCODINGS)
@SETTINGS
@given(text=texts)
def test_equal_to_reference(name, text):
    ours, _ = pair(name)
    text = "".join(ch for ch in text if _regex_agrees_with_tiktoken(ch))
    assert ours.encode_ordinary(text) == reference.encode_ordinary(text, ours._pat_str, ours._mergeable_ranks)


@pytest.mark.parametrize("name", ["cl100k_base", "r50k_base"])
@SETTINGS
@given(text=st.lists(st.one_of(texts, st.sampled_from(["<|endoftext|>", "<|fim_prefix|>", "<|endof"])), max_size=6).map("".join))
def test_allowed_specials_equal_to_reference_and_tiktoken(name, text):
    ours, ref = pair(name)
    text = "".join(ch for ch in text if _regex_agrees_with_tiktoken(ch))
    got = ours.encode(text, allowed_special="all")
    assert got == ref.encode(text, allowed_special="all")
    assert got == reference.encode(text, ours._pat_str, ours._mergeable_ranks, ours._special_tokens)


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
@settings(max_examples=60, deadline=None)
@given(
    alphabet=st.sampled_from(["ab", "abc", "a", "xyzw", "éa", "中文字", " ", "0123456789", "^&", "\u0301a"]),
    length=st.integers(min_value=200, max_value=3000),
    seed=st.integers(min_value=0, max_value=2**32 - 1),
)
def test_long_pieces_equal_to_tiktoken(name, alphabet, length, seed):
    """Pieces past the short-piece limit take the bucket-queue merge: same ids."""
    import random

    rng = random.Random(seed)
    text = "".join(rng.choice(alphabet) for _ in range(length))
    ours, ref = pair(name)
    assert ours.encode_ordinary(text) == ref.encode_ordinary(text)
