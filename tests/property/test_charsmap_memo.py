"""Hypothesis: the native path's memo of the `Precompiled` charsmap (cpp/normalize/charsmap_memo.h)
gives what tokenizers gives, the first time a character is seen and every time after, and when
threads fill it at once.

The alphabet mixes characters the charsmap replaces (by ASCII, by a space, by two or three
characters, above U+FFFF), characters it leaves, joining marks and CR LF (graphemes looked up
whole), control characters it deletes (first in a text: the readable pipeline's text), and space
runs that the from_sentencepiece files collapse.
"""

from __future__ import annotations

import functools
from concurrent.futures import ThreadPoolExecutor

import pytest
from _hf_json import diff
from _shared import MODELS, need_shared
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

NATIVE = "ab é中 \u3000\u00a0\u2002ＡＢａ①ﬁ…™½\u2126\U0001d400\U0001d41a😀\t\n"  # the native path's text
ALPHABET = NATIVE + "\u0301\r\x01"  # a joining mark, CR before LF, a deleted control character
TEXT = st.text(NATIVE, max_size=50) | st.text(ALPHABET, max_size=50)
SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@functools.lru_cache(maxsize=None)
def _files():
    """(name, tokenizers' Tokenizer, JSON text) for ruT5's file and a from_sentencepiece file."""
    need_shared()
    import tokenizers

    from tokenforge import Tokenizer

    rut5 = (MODELS / "hf" / "rut5_tokenizer.json").read_text(encoding="utf-8")
    spm = Tokenizer.from_sentencepiece(MODELS / "sentencepiece" / "botchan_en_unigram_1000.model").to_str()
    return [(name, tokenizers.Tokenizer.from_str(s), s) for name, s in (("rut5", rut5), ("botchan", spm))]


def _fresh(s: str):
    from tokenforge import Tokenizer

    tok = Tokenizer.from_str(s)
    tok.no_truncation()
    tok.no_padding()
    return tok


@SETTINGS
@given(text=TEXT)
def test_first_and_later_sight_are_tokenizers(text):
    for _name, ref, s in _files():
        ref.no_truncation()
        ref.no_padding()
        want = ref.encode(text)
        tok = _fresh(s)  # an empty memo: every character is seen for the first time
        assert diff(want, tok.encode(text)) is None
        assert diff(want, tok.encode(text)) is None  # now from the memo
        doubled = text + " " + text
        assert diff(ref.encode(doubled), tok.encode(doubled)) is None


@pytest.mark.parametrize("threads", [2, 4])
def test_threads_filling_one_memo_agree(threads):
    texts = ["".join(NATIVE[(i * 7 + j * 3) % len(NATIVE)] for j in range(40 + i % 13)) for i in range(400)]
    for _name, ref, s in _files():
        ref.no_truncation()
        ref.no_padding()
        want = [e.ids for e in ref.encode_batch(texts)]
        assert all(_fresh(s)._native_engine().encode(t) is not None for t in texts[:20])  # the memo's path
        for _ in range(5):
            tok = _fresh(s)
            with ThreadPoolExecutor(threads) as pool:
                got = list(pool.map(lambda t: tok.encode(t).ids, texts))
            assert got == want
            tok = _fresh(s)
            assert [e.ids for e in tok.encode_batch(texts, num_threads=threads)] == want
