"""DeepSeek V3's native scanner (Scanner.DEEPSEEK_V3, cpp/pretokenize/deepseek_v3_scanner.h):
its pieces == the regex path's (native_splits, the oracle) and == tokenizers' own
pre-tokenizer, and the Tokenizer routed to it == tokenizers, on hypothesis text drawn from
every code point and on corpus documents."""

from __future__ import annotations

import functools

import pytest
from _hf_json import assert_same_encodings, diff, lines, load
from _shared import MODELS, corpus_sample, need_shared
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

NAME = "deepseek_v3_tokenizer.json"
pytestmark = pytest.mark.skipif(not (MODELS / "hf" / NAME).is_file(), reason="needs ../shared/models/hf")
SPECIALS = ["<\uff5cbegin\u2581of\u2581sentence\uff5c>", "<\uff5cend\u2581of\u2581sentence\uff5c>"]
# Each alternative's edges: ASCII punctuation before letters (A1), leads before letters and
# marks (A2), a space before punctuation (A3), runs of \s with and without CR/LF (A4-A6);
# numbers of every kind (split 1), the CJK ranges' edges and their punctuation, kana marks
# and Oniguruma's odd ones out (U+0558 unassigned for it, U+1E900 Adlam).
ALPHABET = (" \n\r\t\u3000\u00a0\u2028\u0085ab.Z'é\u0301\u0300!?$-_^`~1\u00b2\u0663\u2160\u3007"
            "\u4e00\u9fa5\u9fa6\u3040\u309f\u30a0\u30fb\u30ff\u3100\u309b\u3099\u0558\u200d\U0001e900\U0001f600")
EVERY = st.characters(blacklist_categories=("Cs",))
TEXT = (st.text(EVERY, max_size=40)
        | st.text(st.sampled_from(ALPHABET), max_size=40)
        | st.lists(st.sampled_from(SPECIALS + ["hello", " world", "12345", "中文", "\n\n", "!?", ".Net", "  x"]),
                   max_size=8).map("".join))
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def native_pieces(text: str) -> list[str]:
    from tokenforge import _native
    from tokenforge.patterns import Scanner

    data = text.encode("utf-8")
    ends = _native._split(int(Scanner.DEEPSEEK_V3), data)[0]
    return [data[a:b].decode("utf-8") for a, b in zip([0, *ends], ends)]


@functools.lru_cache(maxsize=1)
def regex_path():
    from tokenforge.tokenizer.native_splits import NativeSplits

    return NativeSplits.build(load(NAME)[1])


def oracle_pieces(text: str) -> list[str]:
    from tokenforge.tokenizer.native_splits import pieces

    return pieces(text, regex_path().regexes)


def tokenizers_spans(text: str) -> list[tuple[int, int]]:
    return [span for _, span in load(NAME)[0].pre_tokenizer.pre_tokenize_str(text)]


def spans(parts: list[str]) -> list[tuple[int, int]]:
    out, at = [], 0
    for p in parts:
        out.append((at, at + len(p)))
        at += len(p)
    return out


@SETTINGS
@given(text=TEXT)
def test_pieces_equal_oracle_and_tokenizers(text):
    need_shared()
    got = native_pieces(text)
    assert got == oracle_pieces(text)
    assert spans(got) == tokenizers_spans(text)


def test_pieces_on_corpus_documents():
    need_shared()
    for corpus in ("en", "code", "multi", "mixed"):
        text = corpus_sample(corpus)[:120_000]
        for doc in (text[i:i + 4000] for i in range(0, len(text), 4000)):
            got = native_pieces(doc)
            assert got == oracle_pieces(doc), corpus
            assert spans(got) == tokenizers_spans(doc), corpus


def test_routed_to_the_scanner_by_its_patterns():
    need_shared()
    from tokenforge.tokenizer import Tokenizer

    _, ours = load(NAME)
    assert type(ours._native_engine()).__name__ == "NativeDeepSeekV3"
    # The same Splits in a file of another name, and a changed pattern, which is not routed.
    text = (MODELS / "hf" / NAME).read_text(encoding="utf-8")
    assert type(Tokenizer.from_str(text)._native_engine()).__name__ == "NativeDeepSeekV3"
    changed = Tokenizer.from_str(text.replace(r'"\\p{N}{1,3}"', r'"\\p{N}{1,2}"', 1))
    assert type(changed._native_engine()).__name__ == "NativeSplits"


def test_encodings_on_corpus():
    need_shared()
    ref, ours = load(NAME)
    for corpus in ("en", "code", "multi", "mixed"):
        batch = lines(corpus, 40, seed=5)
        for line in batch[:15]:
            for special in (True, False):
                assert diff(ref.encode(line, add_special_tokens=special), ours.encode(line, add_special_tokens=special)) is None
        for x, y in zip(ref.encode_batch(batch), ours.encode_batch(batch)):
            assert diff(x, y) is None
        assert [e.ids for e in ref.encode_batch_fast(batch)] == [e.ids for e in ours.encode_batch_fast(batch)]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=TEXT, pair=TEXT)
def test_same_as_tokenizers(text, pair):
    need_shared()
    ref, ours = load(NAME)
    assert_same_encodings(ref, ours, text, pair)
    batch = [text, pair]
    for x, y in zip(ref.encode_batch(batch), ours.encode_batch(batch)):
        assert diff(x, y) is None
    assert [e.ids for e in ref.encode_batch_fast(batch)] == [e.ids for e in ours.encode_batch_fast(batch)]
