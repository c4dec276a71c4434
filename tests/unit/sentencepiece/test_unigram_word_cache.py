"""Unigram's per-word cache against sentencepiece on near ties and large running totals.

tokenforge reuses a word's cached segmentation only when float rounding at the current
running total cannot change any of its decisions (cpp/models/unigram_words.cc).  These
models are built to stress exactly that: pieces whose sums tie exactly or differ by an
ulp, scores large enough that the running total reaches sentencepiece's +-1e5 rebase
every few hundred pieces, and characters in no piece between the words.  The expected
ids come from sentencepiece on the same serialized model.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from tokenforge.sentencepiece import SentencePieceProcessor
from tokenforge.formats.sentencepiece_model import ModelProto, ModelType, PieceType, SentencePiece

spm = pytest.importorskip("sentencepiece")


def build(pieces: list[tuple[str, float]]) -> bytes:
    m = ModelProto()
    m.pieces.append(SentencePiece(piece="<unk>", score=0.0, type=PieceType.UNKNOWN))
    for text, score in pieces:
        m.pieces.append(SentencePiece(piece=text, score=float(np.float32(score)), type=PieceType.NORMAL))
    m.trainer_spec.model_type = ModelType.UNIGRAM
    m.normalizer_spec.name = "identity"
    return m.to_bytes()


def next_down(x: float, steps: int = 1) -> float:
    v = np.float32(x)
    for _ in range(steps):
        v = np.nextafter(v, np.float32(-np.inf))
    return float(v)


def check(pieces: list[tuple[str, float]], texts: list[str]) -> None:
    data = build(pieces)
    ours, theirs = SentencePieceProcessor(model_proto=data), spm.SentencePieceProcessor(model_proto=data)
    for text in texts:
        assert ours.encode(text) == theirs.encode(text)
    # The same texts again, now answered from the cache, and as one batch.
    assert ours.encode(texts, num_threads=2) == [theirs.encode(t) for t in texts]


@pytest.mark.parametrize("scale", [1.0, 250.0, 3000.0])
@pytest.mark.parametrize("gap", [0, 1, 3])
def test_exact_and_one_ulp_ties(scale, gap):
    # "▁ab" against "▁a" + "b": equal sums (gap 0) or "▁ab" a few ulps lower.
    pieces = [("▁", -1.0 * scale), ("a", -2.0 * scale), ("b", -2.0 * scale), ("▁a", -1.5 * scale),
              ("▁ab", next_down(-3.5 * scale, gap)), ("ab", -4.0 * scale), ("ba", -3.75 * scale)]
    words = ["ab", "aab", "abab", "ba", "bab", "abba", "a", "b"]
    rng = random.Random(gap * 100 + int(scale))
    long_text = " ".join(rng.choice(words) for _ in range(30000))
    check(pieces, [long_text, "ab " * 5000, long_text[::-1]])


def test_random_near_tie_models():
    rng = random.Random(5)
    for trial in range(12):
        scale = rng.choice([1.0, 37.0, 900.0, 4000.0])
        grid = [-(k / 4) * scale for k in range(1, 24)]
        pieces, seen = [("▁", -1.0 * scale)], {"▁"}
        for _ in range(40):
            length = rng.randint(1, 4)
            text = ("▁" if rng.random() < 0.3 else "") + "".join(rng.choice("abc") for _ in range(length))
            if text in seen:
                continue
            seen.add(text)
            # Scores on a coarse grid, some nudged by an ulp or two, so sums tie or nearly tie.
            pieces.append((text, next_down(rng.choice(grid), rng.choice([0, 0, 1, 2]))))
        for ch in "abc":
            if ch not in seen:
                pieces.append((ch, -6.0 * scale))
        words = ["".join(rng.choice("abcx") for _ in range(rng.randint(1, 9))) for _ in range(60)]
        text = " ".join(rng.choice(words) for _ in range(8000))
        check(pieces, [text, text.replace(" ", "  "), "x" * 3000 + " " + text[:5000]])


def test_totals_crossing_the_rebase_inside_a_word():
    # Each piece costs about 1e3, so the total passes 1e5 every ~100 pieces and some long
    # words straddle the point where sentencepiece rebases.
    pieces = [("▁", -997.0), ("a", -1001.5), ("b", -1003.25), ("ab", -2004.75), ("ba", -2004.75), ("▁a", -1998.5)]
    rng = random.Random(7)
    text = " ".join("".join(rng.choice("ab") for _ in range(rng.randint(1, 60))) for _ in range(4000))
    check(pieces, [text])


@pytest.mark.parametrize("unit", [0.37, 3.0, 61.0, 997.0])
def test_long_unknown_runs_crossing_the_rebase(unit):
    # Runs of characters in no piece add <unk> scores (min score - 10) one by one; runs of
    # thousands of them carry the total past 1e5, at every phase of the checks.
    pieces = [("▁", -1.0 * unit), ("a", -2.0 * unit), ("b", -2.5 * unit), ("ab", -4.25 * unit), ("▁a", -2.75 * unit)]
    rng = random.Random(int(unit * 100))
    parts = []
    for _ in range(300):
        parts.append("".join(rng.choice("ab") for _ in range(rng.randint(1, 12))))
        parts.append("x" * rng.choice([1, 15, 16, 17, 31, 33, 500, rng.randint(1, 9000)]))
    text = " ".join(parts)
    check(pieces, [text, "x" * 20000, "ab x" + "x" * 12345 + " ab"])
