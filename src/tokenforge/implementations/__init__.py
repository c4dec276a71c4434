"""Ready-made tokenizers, as `tokenizers.implementations` offers them: each builds a
`tokenforge.Tokenizer` with a fixed pipeline and trains it with `tokenforge.trainers`.

Example:
    >>> from tokenforge.implementations import CharBPETokenizer
    >>> CharBPETokenizer().normalize("Héllo  wörld")
    'Héllo  wörld'
"""

from tokenforge.implementations.base import BaseTokenizer
from tokenforge.implementations.bert_wordpiece import BertWordPieceTokenizer
from tokenforge.implementations.byte_level_bpe import ByteLevelBPETokenizer
from tokenforge.implementations.char_level_bpe import CharBPETokenizer
from tokenforge.implementations.sentencepiece_bpe import SentencePieceBPETokenizer
from tokenforge.implementations.sentencepiece_unigram import SentencePieceUnigramTokenizer

__all__ = ["BaseTokenizer", "BertWordPieceTokenizer", "ByteLevelBPETokenizer", "CharBPETokenizer",
           "SentencePieceBPETokenizer", "SentencePieceUnigramTokenizer"]
