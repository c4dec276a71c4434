"""SentencePieceBPETokenizer: BPE over Metaspace pieces, as `tokenizers.implementations` builds
it (NFKC, `▁` for spaces, prepended unless add_prefix_space is off)."""

from __future__ import annotations

from tokenforge import decoders, normalizers, pre_tokenizers, trainers
from tokenforge.implementations.base import BaseTokenizer, files_list
from tokenforge.models import BPE
from tokenforge.tokenizer import Tokenizer


class SentencePieceBPETokenizer(BaseTokenizer):
    """SentencePiece-style BPE (module docstring)."""

    def __init__(self, vocab=None, merges=None, unk_token="<unk>", replacement: str = "▁",
                 add_prefix_space: bool = True, dropout: float | None = None, fuse_unk: bool = False) -> None:
        if vocab is not None and merges is not None:
            model = BPE(vocab, merges, dropout=dropout, unk_token=str(unk_token), fuse_unk=bool(fuse_unk))
        else:
            model = BPE(dropout=dropout, unk_token=str(unk_token), fuse_unk=bool(fuse_unk))
        tokenizer = Tokenizer(model)
        if tokenizer.token_to_id(str(unk_token)) is not None:
            tokenizer.add_special_tokens([str(unk_token)])
        tokenizer.normalizer = normalizers.NFKC()
        scheme = "always" if add_prefix_space else "never"
        tokenizer.pre_tokenizer = pre_tokenizers.Metaspace(replacement=replacement, prepend_scheme=scheme)
        tokenizer.decoder = decoders.Metaspace(replacement=replacement, prepend_scheme=scheme)
        super().__init__(tokenizer, {"model": "SentencePieceBPE", "unk_token": unk_token, "replacement": replacement,
                                     "add_prefix_space": add_prefix_space, "dropout": dropout})

    @staticmethod
    def from_file(vocab_filename: str, merges_filename: str, **kwargs) -> "SentencePieceBPETokenizer":
        return SentencePieceBPETokenizer(*BPE.read_file(vocab_filename, merges_filename), **kwargs)

    @staticmethod
    def _trainer(vocab_size, min_frequency, special_tokens, limit_alphabet, initial_alphabet,
                 show_progress) -> trainers.BpeTrainer:
        return trainers.BpeTrainer(vocab_size=vocab_size, min_frequency=min_frequency,
                                   special_tokens=list(special_tokens), limit_alphabet=limit_alphabet,
                                   initial_alphabet=list(initial_alphabet), show_progress=show_progress)

    def train(self, files, vocab_size: int = 30000, min_frequency: int = 2, special_tokens: list = ("<unk>",),
              limit_alphabet: int = 1000, initial_alphabet: list = (), show_progress: bool = True) -> None:
        self._tokenizer.train(files_list(files), self._trainer(vocab_size, min_frequency, special_tokens,
                                                                limit_alphabet, initial_alphabet, show_progress))

    def train_from_iterator(self, iterator, vocab_size: int = 30000, min_frequency: int = 2,
                            special_tokens: list = ("<unk>",), limit_alphabet: int = 1000, initial_alphabet: list = (),
                            show_progress: bool = True, length: int | None = None) -> None:
        self._tokenizer.train_from_iterator(iterator, self._trainer(vocab_size, min_frequency, special_tokens,
                                                                    limit_alphabet, initial_alphabet, show_progress),
                                            length)
