"""The native sentencepiece BPE merger against the pure-Python reference (reference.py)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tokenforge import _native
from tokenforge.spm_train.reference import PieceRulesRef, learn_bpe, valid_piece

LETTERS = st.sampled_from(list("aab c1２.ア漢") + ["▁"])


def native_bpe(texts: list[str], rules: PieceRulesRef, n: int) -> tuple[list[str], dict[str, int], set[str]]:
    counter = _native.SpmSentenceCounter(b"", (True, True, True, rules.treat_whitespace_as_suffix), 4192,
                                         rules.split_by_whitespace, rules.allow_whitespace_only_pieces, [])
    counter.add_sentences(texts)
    words = {w.decode(): c for w, c in counter.words().items()}
    chars, _ = counter.char_counts()
    alphabet = sorted(chars)
    fields = (rules.max_length, rules.split_by_unicode_script, rules.split_by_whitespace, rules.split_by_number,
              rules.split_digits, rules.treat_whitespace_as_suffix, rules.allow_whitespace_only_pieces)
    merger = _native.SpmBpeMerger(counter, alphabet, fields)
    merger.train(n)
    return merger.pieces(), words, {chr(c) for c in alphabet}


RULES = st.builds(PieceRulesRef, max_length=st.integers(2, 6), split_by_unicode_script=st.booleans(),
                  split_by_whitespace=st.booleans(), split_by_number=st.booleans(), split_digits=st.booleans(),
                  treat_whitespace_as_suffix=st.booleans(), allow_whitespace_only_pieces=st.booleans())


@settings(max_examples=150, deadline=None)
@given(st.lists(st.text(LETTERS, min_size=1, max_size=25), min_size=1, max_size=12), RULES, st.integers(1, 30))
def test_native_merger_equals_reference(texts, rules, n):
    native, words, alphabet = native_bpe(texts, rules, n)
    assert native == learn_bpe(words, alphabet, rules, n)
    assert all(valid_piece(p, rules) for p in native)


def test_reference_rules_by_hand():
    r = PieceRulesRef()
    assert valid_piece("▁abc", r) and not valid_piece("ab▁", r) and not valid_piece("a▁b", r)
    assert not valid_piece("a1", r) and valid_piece("12", r) and not valid_piece("12", PieceRulesRef(split_digits=True))
    assert valid_piece("a1", PieceRulesRef(split_by_number=False))
    assert valid_piece("アか漢", r)  # Katakana and Hiragana count as Han
    assert valid_piece("á", r)  # a combining mark takes the script before it
    assert valid_piece("a▁b", PieceRulesRef(split_by_whitespace=False)) and not valid_piece(
        "ab▁", PieceRulesRef(split_by_whitespace=False))
    assert valid_piece("ab▁", PieceRulesRef(treat_whitespace_as_suffix=True))
    assert valid_piece("▁▁", PieceRulesRef(allow_whitespace_only_pieces=True)) and not valid_piece("▁▁", r)
