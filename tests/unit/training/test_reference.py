"""The pure-Python reference trainer on hand-worked examples."""

from __future__ import annotations

from tokenforge.formats.byte_map import BYTE_ORDER
from tokenforge.training.reference import count_pieces, merge_word, train_bpe

ID = {b: i for i, b in enumerate(BYTE_ORDER)}  # byte -> id


def learned(word_counts, vocab_size, min_frequency=0):
    tokens, merges = train_bpe(word_counts, vocab_size, min_frequency)
    return [tokens[i] for _, _, i in merges]


def test_byte_order_is_gpt2s():
    order = BYTE_ORDER
    assert sorted(order) == list(range(256))
    assert order[:3] == [ord("!"), ord('"'), ord("#")]
    assert ID[ord(" ")] == 188 + 32  # the 33rd non-printable byte
    assert ID[0xAD] == 255  # soft hyphen, the last non-printable byte


def test_merge_word_overlapping_runs_go_left_to_right():
    w = [5, 5, 5]
    changes = merge_word(w, 5, 5, 9)
    assert w == [9, 5]
    assert changes == [((5, 5), -1), ((9, 5), 1)]


def test_highest_count_first():
    # "ab" occurs 3 times, "bc" 2 times.
    assert learned({b"ab": 3, b"bc": 2}, 258) == [b"ab", b"bc"]


def test_ties_go_to_the_smallest_pair_of_ids():
    # Both pairs occur once; ("a","b") has the smaller left id.
    assert learned({b"yz": 1, b"ab": 1}, 258) == [b"ab", b"yz"]
    # Same left id: the smaller right id wins.
    assert learned({b"az": 1, b"ab": 1}, 258) == [b"ab", b"az"]
    # A space (id 220) sorts after every printable byte.
    assert ID[ord(" ")] > ID[ord("~")]
    assert learned({b" a": 1, b"~a": 1}, 258) == [b"~a", b" a"]


def test_new_tokens_sort_after_bytes_in_ties():
    # After "ab" (id 256): ("ab","c") and ("x","y") both occur twice; "x" (id 87) < 256.
    assert learned({b"abc": 2, b"xy": 2, b"ab": 1}, 258) == [b"ab", b"xy"]


def test_min_frequency_stops_early():
    assert learned({b"ab": 3, b"cd": 1}, 300, min_frequency=2) == [b"ab"]


def test_stops_when_no_pair_is_left():
    tokens, merges = train_bpe({b"abc": 1}, 1000)
    assert [tokens[i] for _, _, i in merges] == [b"ab", b"abc"]
    assert len(tokens) == 258


def test_same_bytes_from_two_merges_keep_one_id():
    # "bc" first (count 4), then "ab" (3 in "abd"... ) -- built so that b"abc" arises as
    # ("a","bc") in one word and ("ab","c") in another, as in HF the id is reused.
    counts = {b"bcbc": 2, b"abc": 1, b"abab": 1, b"bbc": 1}
    tokens, merges = train_bpe(counts, 300)
    assert len(set(tokens)) == len(tokens)
    assert all(i < len(tokens) for _, _, i in merges)


def test_count_pieces_uses_the_pattern():
    assert count_pieces(["a b", "a"], r" ?\w+") == {b"a": 2, b" b": 1}
