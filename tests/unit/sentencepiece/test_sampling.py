"""Sampling: the same distribution as sentencepiece (tested statistically), and seeded determinism.

Unigram sampling over the whole lattice (nbest_size=-1) and over the n best, and
BPE-dropout, are drawn a few thousand times from both libraries; the empirical
distributions over segmentations must be close in total variation.
"""

from __future__ import annotations

from collections import Counter
import pytest
from _shared import MODELS as SHARED_MODELS

from tokenforge.sentencepiece import SentencePieceProcessor, set_random_generator_seed

spm = pytest.importorskip("sentencepiece")
MODELS = SHARED_MODELS / "sentencepiece"
pytestmark = pytest.mark.skipif(not MODELS.is_dir(), reason=f"no SentencePiece models at {MODELS.resolve()}")
DRAWS = 4000


def distribution(results) -> Counter:
    return Counter(tuple(r) for r in results)


def total_variation(a: Counter, b: Counter) -> float:
    na, nb = sum(a.values()), sum(b.values())
    return 0.5 * sum(abs(a[k] / na - b[k] / nb) for k in set(a) | set(b))


@pytest.mark.parametrize("model, text, kwargs", [
    ("botchan_en_unigram_1000.model", "I have a cat", dict(nbest_size=-1, alpha=0.5)),
    ("botchan_en_unigram_1000.model", "understanding", dict(nbest_size=-1, alpha=0.1)),
    ("kyoto_ja_unigram_8000.model", "東京都に住む", dict(nbest_size=8, alpha=0.5)),
    ("botchan_en_bpe_1000.model", "hello world", dict(nbest_size=-1, alpha=0.2)),
    ("llama2c_tok512.model", "Once upon a time", dict(nbest_size=-1, alpha=0.1)),
])
def test_sampling_matches_sentencepiece_distribution(model, text, kwargs):
    ours = SentencePieceProcessor(model_file=str(MODELS / model))
    theirs = spm.SentencePieceProcessor(model_file=str(MODELS / model))
    a = distribution(ours.encode([text] * DRAWS, enable_sampling=True, **kwargs))
    b = distribution(theirs.encode([text] * DRAWS, enable_sampling=True, **kwargs))
    assert len(a) > 1  # it really samples
    # With k outcomes the expected TV between two samples of n is about sqrt(k / n) / 2.
    k = len(set(a) | set(b))
    assert total_variation(a, b) < max(0.06, 1.5 * (k / DRAWS) ** 0.5), (a.most_common(5), b.most_common(5))


def test_seeded_sampling_is_deterministic():
    sp = SentencePieceProcessor(model_file=str(MODELS / "botchan_en_unigram_1000.model"))
    texts = ["I have a cat", "understanding things"] * 50
    set_random_generator_seed(42)
    first = sp.encode(texts, enable_sampling=True, nbest_size=-1, alpha=0.1, num_threads=1)
    single = sp.encode(texts[0], enable_sampling=True, nbest_size=-1, alpha=0.1)
    set_random_generator_seed(42)
    assert sp.encode(texts, enable_sampling=True, nbest_size=-1, alpha=0.1, num_threads=2) == first
    assert sp.encode(texts[0], enable_sampling=True, nbest_size=-1, alpha=0.1) == single


def test_alpha_extremes_of_bpe_dropout():
    sp = SentencePieceProcessor(model_file=str(MODELS / "botchan_en_bpe_1000.model"))
    assert sp.encode("hello", enable_sampling=True, alpha=0.0) == sp.encode("hello")
    assert sp.encode("hello", out_type=str, enable_sampling=True, alpha=1.0) == ["▁", "h", "e", "l", "l", "o"]


def test_entropy_of_a_tiny_lattice():
    # Entropy of p(x) ∝ exp(alpha * score(x)) over all segmentations, computed by brute force
    # over sentencepiece's own n-best list (which enumerates every segmentation here).
    import math
    path = str(MODELS / "botchan_en_unigram_1000.model")
    ours, theirs = SentencePieceProcessor(model_file=path), spm.SentencePieceProcessor(model_file=path)
    text, alpha = "cat", 0.7
    segs = theirs.nbest_encode(text, nbest_size=512)
    scores = [alpha * sum(theirs.get_score(i) for i in seg) for seg in segs]
    z = math.log(sum(math.exp(s) for s in scores))
    expected = -sum(math.exp(s - z) * (s - z) for s in scores)
    assert ours.calculate_entropy(text, alpha) == pytest.approx(expected, rel=1e-4)
