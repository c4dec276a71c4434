"""Hypothesis: the native Unigram (cpp/models/hf/viterbi_unigram.*) == tokenizers on small
hand-made tokenizer.json files whose segmentations differ by less than a float's precision.

The native lattice reads scores from the trie's float payload when every score is exactly a
float, and from the double table otherwise; these files take each road, and their scores make
a float rounding of a double score pick another segmentation.
"""

from __future__ import annotations

import functools
import json

import pytest
from _hf_json import diff
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# "ab" / "ba" against their two letters: 1e-9 better / worse in double, a tie in float.
DOUBLES = {"a": -1.0, "b": -1.0, "ab": -2.0 + 1e-9, "ba": -2.0 - 1e-9, "aba": -3.0 + 3e-9, "c": -0.1}
FLOATS = {"a": -1.0, "b": -1.0, "ab": -2.0, "ba": -2.5, "aba": -3.0, "c": -0.125}


@functools.lru_cache(maxsize=None)
def _pair(which: str):
    import tokenizers

    from tokenforge import Tokenizer

    scores = DOUBLES if which == "doubles" else FLOATS
    vocab = [["<unk>", 0.0], ["\u2581", -1.5]] + [[k, v] for k, v in scores.items()] + [["\u2581a", -1.25]]
    d = {"version": "1.0", "added_tokens": [], "normalizer": None,
         "pre_tokenizer": {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always", "split": True},
         "post_processor": None, "decoder": None,
         "model": {"type": "Unigram", "unk_id": 0, "vocab": vocab, "byte_fallback": False}}
    s = json.dumps(d, ensure_ascii=False)
    return tokenizers.Tokenizer.from_str(s), Tokenizer.from_str(s)


@pytest.mark.parametrize("which", ["doubles", "floats"])
@SETTINGS
@given(text=st.text("abc xé", max_size=30))
def test_unigram_scores_as_tokenizers(which, text):
    ref, ours = _pair(which)
    assert ours._native_engine() is not None
    assert diff(ref.encode(text), ours.encode(text)) is None


def test_double_scores_decide():
    """The hand-worked case: in "cba", 'ba' scores -2.0 - 1e-9 against 'b' + 'a' at -2.0, so the
    two pieces win; scores rounded to float would tie, and the tie keeps 'ba' (found first)."""
    ref, ours = _pair("doubles")
    assert ours.encode("cba").tokens == ref.encode("cba").tokens == ["\u2581", "c", "b", "a"]
