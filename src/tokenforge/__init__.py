"""tokenforge: byte-level BPE and SentencePiece tokenizers with a native C++ core.

The byte-level BPE half is a drop-in for tiktoken:

>>> import tokenforge
>>> ranks = {bytes([b]): b for b in range(256)}
>>> enc = tokenforge.Encoding("bytes", pat_str=tokenforge.patterns.GPT2, mergeable_ranks=ranks, special_tokens={})
>>> enc.decode(enc.encode("héllo"))
'héllo'
"""

from tokenforge import patterns
from tokenforge.core import Encoding
from tokenforge.formats.data_gym import data_gym_to_mergeable_bpe_ranks
from tokenforge.formats.tiktoken_bpe import dump_tiktoken_bpe, load_tiktoken_bpe
from tokenforge.training import BpeTrainer
from tokenforge.registry import encoding_for_model, encoding_name_for_model, get_encoding, list_encoding_names
from tokenforge.sentencepiece import SentencePieceNormalizer, SentencePieceProcessor
from tokenforge.spm_train import SentencePieceTrainer, train_sentencepiece
from tokenforge.models.token import Token
from tokenforge.tokenizer import AddedToken, Regex, Tokenizer

__all__ = [
    "AddedToken",
    "BpeTrainer",
    "Encoding",
    "data_gym_to_mergeable_bpe_ranks",
    "dump_tiktoken_bpe",
    "encoding_for_model",
    "encoding_name_for_model",
    "get_encoding",
    "list_encoding_names",
    "load_tiktoken_bpe",
    "patterns",
    "Regex",
    "Token",
    "SentencePieceNormalizer",
    "SentencePieceProcessor",
    "SentencePieceTrainer",
    "train_sentencepiece",
    "Tokenizer",
]
__version__ = "0.1.0"
