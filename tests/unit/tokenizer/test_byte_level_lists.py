"""_native._byte_level_lists: the ids, tokens and character offsets of byte-level ids
(expected values worked by hand), and its errors."""

from __future__ import annotations

import numpy as np
import pytest

from tokenforge import _native

# id 0 = "a", 1 = the first byte of "é", 2 = its second byte, 3 = "é" whole
LENS = np.array([1, 1, 1, 2], dtype=np.int64)
NUMBERS = tuple(range(4))
TOKENS = ("a", "Ã", "©", "Ã©")
TEXT = "aéa".encode("utf-8")


def test_a_character_split_between_tokens_is_in_both():
    ids, tokens, offsets = _native._byte_level_lists(np.array([0, 1, 2, 0], dtype=np.int64), LENS, NUMBERS, TOKENS, TEXT)
    assert ids == [0, 1, 2, 0]
    assert tokens == ["a", "Ã", "©", "a"]
    assert offsets == [(0, 1), (1, 2), (1, 2), (2, 3)]


@pytest.mark.parametrize("make", [list, lambda ids: np.array(ids, dtype=np.int64)])
def test_whole_characters(make):
    ids = make([0, 3, 0])
    got = _native._byte_level_lists(ids, LENS, NUMBERS, TOKENS, TEXT)
    assert got == ([0, 3, 0], ["a", "Ã©", "a"], [(0, 1), (1, 2), (2, 3)])
    assert got[0] is not ids


@pytest.mark.parametrize("ids", [[0, 3, 4], [0, 3, -1], [0, 3]])
@pytest.mark.parametrize("make", [list, lambda ids: np.array(ids, dtype=np.int64)])
def test_bad_ids_or_lengths_raise(ids, make):
    with pytest.raises(ValueError):
        _native._byte_level_lists(make(ids), LENS, NUMBERS, TOKENS, TEXT)


def test_offsets_past_the_shared_numbers():
    """Offsets beyond the int objects given (here 0..3) are made anew, with the same values."""
    _, _, offsets = _native._byte_level_lists([0] * 6, LENS, NUMBERS, TOKENS, b"aaaaaa")
    assert offsets == [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 6)]
