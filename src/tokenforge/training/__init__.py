"""Training tokenizers: `BpeTrainer` (byte-level BPE, HF-identical merges) and its
pure-Python reference (:mod:`tokenforge.training.reference`)."""

from tokenforge.training.bpe_trainer import BpeTrainer, TrainStats

__all__ = ["BpeTrainer", "TrainStats"]
