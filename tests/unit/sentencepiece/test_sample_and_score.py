"""sample_encode_and_score: sentencepiece's C++ SampleEncodeAndScore for Unigram models.

sentencepiece 0.2.3's Python API does not expose SampleEncodeAndScore, so there is no
reference output to compare with.  Instead the expected values are worked by hand or
derived from sentencepiece's own n-best scores:
- with replacement, each draw's score is its log probability log p(x) = alpha * score(x)
  - log Z, where Z sums exp(alpha * score) over every segmentation (enumerated exactly by
  sentencepiece's n-best for a short word), and the draws follow p (statistically);
- without replacement, the draws are distinct, the first follows p, and the scores are log
  inclusion probabilities of the Gumbel-top-k scheme, checked through the Horvitz-Thompson
  identity E[sum over the sample of p(x) / q(x)] = 1 (Kool et al. 2019);
- include_best puts the best segmentation first with score 0.
"""

from __future__ import annotations

import math
from collections import Counter

import pytest
from _shared import MODELS as SHARED_MODELS

from tokenforge.sentencepiece import SentencePieceProcessor, set_random_generator_seed
from tokenforge.formats.sentencepiece_model import ModelProto, ModelType, PieceType, SentencePiece

spm = pytest.importorskip("sentencepiece")
BOTCHAN = SHARED_MODELS / "sentencepiece" / "botchan_en_unigram_1000.model"


def hand_model(model_type: ModelType = ModelType.UNIGRAM) -> SentencePieceProcessor:
    # "abc" has three segmentations: a|b|c = -6, ab|c = -5.5, a|bc = -5 (before alpha).
    m = ModelProto()
    m.pieces.append(SentencePiece(piece="<unk>", score=0.0, type=PieceType.UNKNOWN))
    for text, score in [("a", -1.0), ("b", -2.0), ("c", -3.0), ("ab", -2.5), ("bc", -4.0)]:
        m.pieces.append(SentencePiece(piece=text, score=score, type=PieceType.NORMAL))
    m.trainer_spec.model_type = model_type
    m.normalizer_spec.name = "identity"
    m.normalizer_spec.add_dummy_prefix = False
    return SentencePieceProcessor(model_proto=m.to_bytes())


HAND_SCORES = {("a", "b", "c"): -6.0, ("ab", "c"): -5.5, ("a", "bc"): -5.0}


def hand_probs(alpha: float) -> dict:
    z = sum(math.exp(alpha * s) for s in HAND_SCORES.values())
    return {k: math.exp(alpha * s) / z for k, s in HAND_SCORES.items()}


def within(count: int, n: int, p: float, sigmas: float = 4.5) -> bool:
    return abs(count - n * p) <= sigmas * math.sqrt(n * p * (1 - p)) + 1


@pytest.mark.parametrize("alpha", [0.3, 1.0])
def test_with_replacement_hand_worked(alpha):
    set_random_generator_seed(11)
    sp = hand_model()
    probs = hand_probs(alpha)
    draws = sp.sample_encode_and_score("abc", out_type=str, num_samples=6000, alpha=alpha)
    assert len(draws) == 6000
    counts = Counter(tuple(p) for p, _ in draws)
    for path, score in draws[:50]:
        assert score == pytest.approx(math.log(probs[tuple(path)]), abs=1e-5)
    for path, p in probs.items():
        assert within(counts[path], 6000, p), (path, counts[path], p)


def test_without_replacement_hand_worked():
    set_random_generator_seed(12)
    sp = hand_model()
    alpha = 0.7
    probs = hand_probs(alpha)
    firsts = Counter()
    ht_sum, trials = 0.0, 3000
    for _ in range(trials):
        drawn = sp.sample_encode_and_score("abc", out_type=str, num_samples=2, alpha=alpha, wor=True)
        paths = [tuple(p) for p, _ in drawn]
        assert len(paths) == 2 and len(set(paths)) == 2
        firsts[paths[0]] += 1
        for path, log_q in drawn:
            assert log_q <= 0.0
            ht_sum += probs[tuple(path)] / math.exp(log_q)
    for path, p in probs.items():
        assert within(firsts[path], trials, p), (path, firsts[path], p)
    # Horvitz-Thompson: the inclusion probabilities are unbiased for sum_x p(x) = 1.
    assert ht_sum / trials == pytest.approx(1.0, abs=0.05)


def test_include_best():
    sp = hand_model()
    for _ in range(50):
        drawn = sp.sample_encode_and_score("abc", out_type=str, num_samples=3, alpha=0.5, wor=True, include_best=True)
        assert drawn[0] == (["a", "bc"], 0.0)  # the best segmentation, always included
        # Three segmentations in all: the best, then of the other two one is returned and
        # the last drawn only sets the threshold (as sentencepiece draws num_samples + 1).
        rest = [tuple(p) for p, _ in drawn[1:]]
        assert len(rest) == 1 and rest[0] != ("a", "bc")


@pytest.mark.skipif(not BOTCHAN.exists(), reason="no shared botchan model")
@pytest.mark.parametrize("word", ["hello", "national"])
def test_scores_match_sentencepiece_nbest(word):
    """log p(x) from our draws equals alpha * score - log Z computed from sentencepiece's n-best."""
    set_random_generator_seed(13)
    theirs = spm.SentencePieceProcessor(model_file=str(BOTCHAN))
    nbest = theirs.nbest_encode_as_proto(word, nbest_size=512).nbests
    assert len(nbest) < 512  # every segmentation enumerated
    alpha = 0.5
    log_z = math.log(sum(math.exp(alpha * n.score) for n in nbest))
    expected = {tuple(p.id for p in n.pieces): alpha * n.score - log_z for n in nbest}
    ours = SentencePieceProcessor(model_file=str(BOTCHAN))
    draws = ours.sample_encode_and_score(word, num_samples=4000, alpha=alpha)
    counts = Counter(tuple(ids) for ids, _ in draws)
    for ids, score in draws[:200]:
        assert score == pytest.approx(expected[tuple(ids)], abs=1e-4)
    for ids, log_p in expected.items():
        assert within(counts[ids], 4000, math.exp(log_p)), (ids, counts[ids], math.exp(log_p))


def test_batch_and_camel_case_alias():
    sp = hand_model()
    out = sp.SampleEncodeAndScore(["abc", "ab"], num_samples=2, alpha=1.0)
    assert len(out) == 2 and all(len(r) == 2 for r in out)
    assert all(isinstance(i, int) for ids, _ in out[0] for i in ids)


def test_errors_as_sentencepiece():
    with pytest.raises(ValueError):
        hand_model(ModelType.BPE).sample_encode_and_score("abc", num_samples=2)
    sp = hand_model()
    with pytest.raises(ValueError):
        sp.sample_encode_and_score("abc", num_samples=2, include_best=True)  # needs wor
    with pytest.raises(ValueError):
        sp.sample_encode_and_score("abc", num_samples=0)
    with pytest.raises(ValueError):
        sp.sample_encode_and_score("", num_samples=2)  # sentencepiece: empty result
