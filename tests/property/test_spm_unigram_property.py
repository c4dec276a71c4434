"""The native sentencepiece Unigram trainer against the pure-Python reference
(unigram_reference.py, whose docstring says what is comparable and why).

Seeds and their counts are integers: compared exactly (no EM round, a vocabulary that keeps
them all: the result is every seed with its initial score).  Whole training runs (EM,
pruning, finish): identical pieces, float32 scores within a relative 1e-6, on hypothesis
corpora of a few letters (one thread: tiny inputs are not split) and on the first lines of
the shared corpora (over 1000 distinct words, so the native E-steps and Viterbi passes run
on 2 threads).
"""

from __future__ import annotations

import math

import pytest
from _shared import corpus_sample, need_shared
from hypothesis import given, settings
from hypothesis import strategies as st

from tokenforge import _native
from tokenforge.spm_train.reference import PieceRulesRef
from tokenforge.spm_train.unigram_reference import mark_unknown, seed_pieces, train_unigram

# Few letters, so that words repeat; "▁" and " " cut words; "1" and "ア" change scripts;
# "é" and "è" share their first UTF-8 byte, and "—" shares "▁"'s.
LETTERS = st.sampled_from(list("aaabbc ▁1アéè—"))
TEXTS = st.lists(st.text(LETTERS, min_size=1, max_size=30), min_size=1, max_size=25)
RULES = st.builds(PieceRulesRef, max_length=st.integers(2, 8), split_by_unicode_script=st.booleans(),
                  split_by_whitespace=st.booleans(), split_by_number=st.booleans(), split_digits=st.booleans(),
                  treat_whitespace_as_suffix=st.booleans(), allow_whitespace_only_pieces=st.booleans())
BOUNDARY = 0x1F


def native_unigram(texts: list[str], rules: PieceRulesRef, unknown: set[str], vocab_size: int, seed_size: int,
                   shrinking_factor: float, sub_iterations: int, threads: int = 1,
                   ) -> tuple[list[tuple[str, float]], dict[str, int], dict[str, int], dict[str, int]]:
    """The native trainer's (piece, score) list, and the words, alphabet and word-end bits it was given."""
    counter = _native.SpmSentenceCounter(b"", (True, True, True, rules.treat_whitespace_as_suffix), 4192,
                                         rules.split_by_whitespace, rules.allow_whitespace_only_pieces, [])
    counter.add_sentences(texts)
    words = {w.decode(): n for w, n in counter.words().items()}
    ends = {w.decode(): e for w, e in counter.word_ends().items()}
    chars, _ = counter.char_counts()
    alphabet = {cp: n for cp, n in chars.items() if cp != BOUNDARY and chr(cp) not in unknown and n > 0}
    fields = (rules.max_length, rules.split_by_unicode_script, rules.split_by_whitespace, rules.split_by_number,
              rules.split_digits, rules.treat_whitespace_as_suffix, rules.allow_whitespace_only_pieces)
    trainer = _native.SpmUnigramTrainer(counter, sorted(alphabet.items()), fields)
    trainer.train(vocab_size, seed_size, shrinking_factor, sub_iterations, threads)
    return trainer.pieces(), words, {chr(c): n for c, n in alphabet.items()}, ends


def assert_same(native: list[tuple[str, float]], reference: list[tuple[str, float]]) -> None:
    assert [p for p, _ in native] == [p for p, _ in reference]
    for (p, a), (_, b) in zip(native, reference):
        assert math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-9), (p, a, b)


@settings(max_examples=120, deadline=None)
@given(TEXTS, RULES, st.sets(st.sampled_from(list("bc1ア"))), st.integers(1, 40))
def test_seeds_equal_reference(texts, rules, unknown, seed_size):
    """No EM (sub_iterations=0) and room for every piece: the result is the seeds as scored at the start."""
    native, words, alphabet, ends = native_unigram(texts, rules, unknown, 10**6, seed_size, 0.75, 0)
    seeds = seed_pieces(mark_unknown(words, alphabet), alphabet, rules, seed_size, [ends[w] for w in words])
    expected = train_unigram(words, alphabet, rules, 10**6, seed_size=seed_size, sub_iterations=0, ends=ends)
    assert sorted(p for p, _ in native) == sorted(p for p, _ in seeds)
    assert_same(native, expected)


@settings(max_examples=80, deadline=None)
@given(TEXTS, RULES, st.sets(st.sampled_from(list("bc1ア"))), st.integers(1, 30), st.integers(1, 60),
       st.sampled_from([0.5, 0.75, 0.9]), st.integers(1, 3))
def test_training_equals_reference(texts, rules, unknown, vocab_size, seed_size, shrinking_factor, sub_iterations):
    native, words, alphabet, ends = native_unigram(texts, rules, unknown, vocab_size, seed_size, shrinking_factor,
                                                   sub_iterations)
    expected = train_unigram(words, alphabet, rules, vocab_size, seed_size=seed_size,
                             shrinking_factor=shrinking_factor, sub_iterations=sub_iterations, ends=ends)
    assert_same(native, expected)


def test_seeds_by_hand():
    """'▁ab' x2 and '▁a' x1: only '▁a' is repeated and followed by two different things."""
    native, _, _, _ = native_unigram(["ab", "ab", "a"], PieceRulesRef(), set(), 100, 10, 0.75, 0)
    total = 3 + 3 + 2 + 6  # '▁', 'a', 'b' and '▁a' (3 uses x 2 characters)
    expected = {"▁a": 6, "a": 3, "▁": 3, "b": 2}
    assert {p: round(s, 5) for p, s in native} == {p: round(math.log(n / total), 5) for p, n in expected.items()}


def test_seeds_at_word_ends_by_hand():
    """spm_train's suffix array holds whole sentences: "▁ab" ends "ab" (NUL follows) and is
    followed by "▁cd" in "ab cd" ("▁" follows): two followers, so "▁ab" and "ab" are seeds.
    "▁cd" only ever ends its sentence: one follower.  Worked by hand: counts "▁ab" 2, "ab" 2,
    characters "▁" 3, "a" 2, "b" 2, "c" 1, "d" 1; seeds scored count * length."""
    native, words, _, ends = native_unigram(["ab cd", "ab"], PieceRulesRef(), set(), 100, 10, 0.75, 0)
    assert ends == {"▁ab": 0x100 | 0x200 | 0xE2, "▁cd": 0x100}
    expected = {"▁ab": 6, "ab": 4, "▁": 3, "a": 2, "b": 2, "c": 1, "d": 1}
    total = sum(expected.values())
    assert {p: round(s, 5) for p, s in native} == {p: round(math.log(n / total), 5) for p, n in expected.items()}


def test_followers_told_apart_by_first_byte_by_hand():
    """sentencepiece 0.2.3's suffix array holds UTF-8 bytes: "▁x" followed by "é" (C3 A9) and
    "è" (C3 A8) branches only after their first byte, so it is no seed; followed by "é" and
    "a" it is one (count 2 x 2 characters).  Likewise "▁x" followed by "—" (E2 80 94) and
    then by "▁" (E2 96 81, the next word): no seed."""
    pieces = {p for p, _ in native_unigram(["xé", "xè"], PieceRulesRef(), set(), 100, 10, 0.75, 0)[0]}
    assert pieces == {"▁", "x", "é", "è"}
    pieces = {p for p, _ in native_unigram(["xé", "xa"], PieceRulesRef(), set(), 100, 10, 0.75, 0)[0]}
    assert pieces == {"▁", "x", "é", "a", "▁x"}
    pieces = {p for p, _ in native_unigram(["x—", "x y"], PieceRulesRef(), set(), 100, 10, 0.75, 0)[0]}
    assert "▁x" not in pieces


def test_word_ends_by_hand():
    """Last word of a sentence: 0x100; followed by a word: 0x200 and that word's first byte
    ("▁" is E2 96 81); by words starting with different bytes: 0x400 too; no split: the
    sentence is one last word."""
    def ends(texts, **kw):
        return native_unigram(texts, PieceRulesRef(**kw), set(), 100, 10, 0.75, 0)[3]
    assert ends(["a b", "b c", "c"]) == {"▁a": 0x2E2, "▁b": 0x3E2, "▁c": 0x100}
    assert ends(["a b", "b a"], split_by_whitespace=False) == {"▁a▁b": 0x100, "▁b▁a": 0x100}
    # With the whitespace as a suffix a word ends after its "▁": "a▁" is followed by "b" and "c".
    assert ends(["a b", "a c", "b"], treat_whitespace_as_suffix=True) == {"a▁": 0x662, "b▁": 0x100, "c▁": 0x100}
    assert ends(["a  b"], allow_whitespace_only_pieces=True) == ends(["a  b"])


@pytest.mark.parametrize("name", ["en", "code", "multi"])
def test_corpus_lines_equal_reference(name):
    """Real words: the first 800 lines, characters seen under 3 times unknown, default options."""
    need_shared()
    lines = [x for x in corpus_sample(name).split("\n") if x][:800]
    rare = {c for c in set("".join(lines)) if "".join(lines).count(c) < 3}
    native, words, alphabet, ends = native_unigram(lines, PieceRulesRef(), rare, 1000, 10**6, 0.75, 2, threads=2)
    assert len(words) > 1000
    assert_same(native, train_unigram(words, alphabet, PieceRulesRef(), 1000, ends=ends))


def test_underflowing_word_equals_reference():
    """A word of 300 unknown characters: its lattice total underflows a double, so both E-steps
    redo it in log space."""
    texts = ["ab ba aab abb"] * 5 + ["a" + "c" * 300 + "b", "ca" * 150]
    native, words, alphabet, ends = native_unigram(texts, PieceRulesRef(), {"c"}, 8, 100, 0.75, 2)
    assert_same(native, train_unigram(words, alphabet, PieceRulesRef(), 8, seed_size=100, ends=ends))
