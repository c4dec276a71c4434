"""CharBPETokenizer: BPE as Sennrich et al. and OpenAI's GPT made it, as
`tokenizers.implementations` builds it (`</w>` ends each word; BertNormalizer without
lowercasing and BertPreTokenizer by default, or whitespace alone)."""

from __future__ import annotations

from tokenforge import decoders, normalizers, pre_tokenizers, trainers
from tokenforge.implementations.base import BaseTokenizer, files_list, normalizer_of
from tokenforge.implementations.base import unicode_normalizer as named_normalizer
from tokenforge.models import BPE
from tokenforge.tokenizer import Tokenizer


class CharBPETokenizer(BaseTokenizer):
    """Character-level BPE with an end-of-word suffix (module docstring)."""

    def __init__(self, vocab=None, merges=None, unk_token="<unk>", suffix: str = "</w>", dropout: float | None = None,
                 lowercase: bool = False, unicode_normalizer: str | None = None, bert_normalizer: bool = True,
                 split_on_whitespace_only: bool = False) -> None:
        if vocab is not None and merges is not None:
            model = BPE(vocab, merges, dropout=dropout, unk_token=str(unk_token), end_of_word_suffix=suffix)
        else:
            model = BPE(unk_token=str(unk_token), dropout=dropout, end_of_word_suffix=suffix)
        tokenizer = Tokenizer(model)
        if tokenizer.token_to_id(str(unk_token)) is not None:
            tokenizer.add_special_tokens([str(unk_token)])
        steps = ([named_normalizer(unicode_normalizer)] if unicode_normalizer else []) + \
            ([normalizers.BertNormalizer(lowercase=False)] if bert_normalizer else []) + \
            ([normalizers.Lowercase()] if lowercase else [])
        tokenizer.normalizer = normalizer_of(steps)
        tokenizer.pre_tokenizer = (pre_tokenizers.WhitespaceSplit() if split_on_whitespace_only
                                   else pre_tokenizers.BertPreTokenizer())
        tokenizer.decoder = decoders.BPEDecoder(suffix=suffix)
        super().__init__(tokenizer, {
            "model": "BPE", "unk_token": unk_token, "suffix": suffix, "dropout": dropout, "lowercase": lowercase,
            "unicode_normalizer": unicode_normalizer, "bert_normalizer": bert_normalizer,
            "split_on_whitespace_only": split_on_whitespace_only})

    @staticmethod
    def from_file(vocab_filename: str, merges_filename: str, **kwargs) -> "CharBPETokenizer":
        return CharBPETokenizer(*BPE.read_file(vocab_filename, merges_filename), **kwargs)

    @staticmethod
    def _trainer(vocab_size, min_frequency, special_tokens, limit_alphabet, initial_alphabet, suffix,
                 show_progress) -> trainers.BpeTrainer:
        return trainers.BpeTrainer(vocab_size=vocab_size, min_frequency=min_frequency,
                                   special_tokens=list(special_tokens), limit_alphabet=limit_alphabet,
                                   initial_alphabet=list(initial_alphabet), end_of_word_suffix=suffix,
                                   show_progress=show_progress)

    def train(self, files, vocab_size: int = 30000, min_frequency: int = 2, special_tokens: list = ("<unk>",),
              limit_alphabet: int = 1000, initial_alphabet: list = (), suffix: str | None = "</w>",
              show_progress: bool = True) -> None:
        self._tokenizer.train(files_list(files), self._trainer(vocab_size, min_frequency, special_tokens,
                                                                limit_alphabet, initial_alphabet, suffix, show_progress))

    def train_from_iterator(self, iterator, vocab_size: int = 30000, min_frequency: int = 2,
                            special_tokens: list = ("<unk>",), limit_alphabet: int = 1000, initial_alphabet: list = (),
                            suffix: str | None = "</w>", show_progress: bool = True, length: int | None = None) -> None:
        self._tokenizer.train_from_iterator(iterator, self._trainer(vocab_size, min_frequency, special_tokens,
                                                                    limit_alphabet, initial_alphabet, suffix,
                                                                    show_progress), length)
