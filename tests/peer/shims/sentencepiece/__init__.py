"""A `sentencepiece` that is tokenforge: put this folder's parent first on PYTHONPATH to run
code (and sentencepiece's own test suite) written for sentencepiece against tokenforge.

Only for tests; names tokenforge lacks are simply absent, so the tests that need them fail
with AttributeError and say which name.
"""

from tokenforge.sentencepiece import (  # noqa: F401
    ImmutableNBestSentencePieceText,
    ImmutableSentencePiece,
    ImmutableSentencePieceText,
    SentencePieceNormalizer,
    SentencePieceProcessor,
    set_random_generator_seed,
)
from tokenforge.spm_train import SentencePieceTrainer  # noqa: F401

__version__ = "0.2.3"


def set_min_log_level(level: int) -> None:
    """sentencepiece's log threshold; tokenforge's trainer reads minloglevel per call instead."""


SetRandomGeneratorSeed = set_random_generator_seed
SetMinLogLevel = set_min_log_level
