"""SentencePiece training: sentencepiece's ``spm_train`` (BPE piece for piece, Unigram).

Example:
    >>> from tokenforge.spm_train import SentencePieceTrainer, train_sentencepiece
"""

from tokenforge.spm_train.trainer import SentencePieceTrainer, TrainedSentencePieceProcessor, train_sentencepiece

__all__ = ["SentencePieceTrainer", "TrainedSentencePieceProcessor", "train_sentencepiece"]
