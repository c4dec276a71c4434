"""ByteLevelBPETokenizer: GPT-2's byte-level BPE, as `tokenizers.implementations` builds it
(ByteLevel pre-tokenizer, decoder and post-processor; an optional Unicode normalizer and
lowercasing; trained with the 256 byte characters as the initial alphabet)."""

from __future__ import annotations

from tokenforge import decoders, normalizers, pre_tokenizers, processors, trainers
from tokenforge.implementations.base import BaseTokenizer, files_list, normalizer_of
from tokenforge.implementations.base import unicode_normalizer as named_normalizer
from tokenforge.models import BPE
from tokenforge.tokenizer import Tokenizer


class ByteLevelBPETokenizer(BaseTokenizer):
    """GPT-2's byte-level BPE (module docstring)."""

    def __init__(self, vocab=None, merges=None, add_prefix_space: bool = False, lowercase: bool = False,
                 dropout: float | None = None, unicode_normalizer: str | None = None,
                 continuing_subword_prefix: str | None = None, end_of_word_suffix: str | None = None,
                 trim_offsets: bool = False) -> None:
        if vocab is not None and merges is not None:
            model = BPE(vocab, merges, dropout=dropout, continuing_subword_prefix=continuing_subword_prefix or "",
                        end_of_word_suffix=end_of_word_suffix or "")
        else:
            model = BPE()
        tokenizer = Tokenizer(model)
        steps = ([named_normalizer(unicode_normalizer)] if unicode_normalizer else []) + \
            ([normalizers.Lowercase()] if lowercase else [])
        tokenizer.normalizer = normalizer_of(steps)
        tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=add_prefix_space)
        tokenizer.decoder = decoders.ByteLevel()
        tokenizer.post_processor = processors.ByteLevel(trim_offsets=trim_offsets)
        super().__init__(tokenizer, {
            "model": "ByteLevelBPE", "add_prefix_space": add_prefix_space, "lowercase": lowercase,
            "dropout": dropout, "unicode_normalizer": unicode_normalizer,
            "continuing_subword_prefix": continuing_subword_prefix, "end_of_word_suffix": end_of_word_suffix,
            "trim_offsets": trim_offsets})

    @staticmethod
    def from_file(vocab_filename: str, merges_filename: str, **kwargs) -> "ByteLevelBPETokenizer":
        return ByteLevelBPETokenizer(*BPE.read_file(vocab_filename, merges_filename), **kwargs)

    def _trainer(self, vocab_size: int, min_frequency: int, show_progress: bool, special_tokens) -> trainers.BpeTrainer:
        return trainers.BpeTrainer(vocab_size=vocab_size, min_frequency=min_frequency, show_progress=show_progress,
                                   special_tokens=list(special_tokens),
                                   initial_alphabet=pre_tokenizers.ByteLevel.alphabet())

    def train(self, files, vocab_size: int = 30000, min_frequency: int = 2, show_progress: bool = True,
              special_tokens: list = ()) -> None:
        self._tokenizer.train(files_list(files), self._trainer(vocab_size, min_frequency, show_progress,
                                                                special_tokens))

    def train_from_iterator(self, iterator, vocab_size: int = 30000, min_frequency: int = 2,
                            show_progress: bool = True, special_tokens: list = (), length: int | None = None) -> None:
        self._tokenizer.train_from_iterator(iterator, self._trainer(vocab_size, min_frequency, show_progress,
                                                                    special_tokens), length)
