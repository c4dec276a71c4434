"""SentencePieceUnigramTokenizer: a Unigram model over Metaspace pieces, as
`tokenizers.implementations` builds it (Nmt, NFKC and runs of spaces made one; or, from a
sentencepiece `.model` with `from_spm`, its charsmap).  Training needs tokenizers'
UnigramTrainer, which tokenforge does not have (`tokenforge.SentencePieceTrainer` trains
Unigram models as sentencepiece does): `train` says so."""

from __future__ import annotations

import os

from tokenforge import decoders, normalizers, pre_tokenizers
from tokenforge.formats.sentencepiece_model import ModelProto, ModelType
from tokenforge.implementations.base import BaseTokenizer
from tokenforge.models import Unigram
from tokenforge.normalizers.pattern import Regex
from tokenforge.tokenizer import Tokenizer

_NO_TRAINER = ("SentencePieceUnigramTokenizer.train needs tokenizers' UnigramTrainer, which tokenforge does not "
               "provide; train with tokenforge.SentencePieceTrainer (model_type='unigram') and load the .model "
               "with SentencePieceUnigramTokenizer.from_spm")


def _metaspace(tokenizer, replacement: str, add_prefix_space: bool) -> None:
    scheme = "always" if add_prefix_space else "never"
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace(replacement=replacement, prepend_scheme=scheme)
    tokenizer.decoder = decoders.Metaspace(replacement=replacement, prepend_scheme=scheme)


class SentencePieceUnigramTokenizer(BaseTokenizer):
    """SentencePiece-style Unigram (module docstring)."""

    def __init__(self, vocab: list | None = None, replacement: str = "▁", add_prefix_space: bool = True) -> None:
        tokenizer = Tokenizer(Unigram(vocab) if vocab is not None else Unigram())
        tokenizer.normalizer = normalizers.Sequence([normalizers.Nmt(), normalizers.NFKC(),
                                                     normalizers.Replace(Regex(" {2,}"), " ")])
        _metaspace(tokenizer, replacement, add_prefix_space)
        super().__init__(tokenizer, {"model": "SentencePieceUnigram", "replacement": replacement,
                                     "add_prefix_space": add_prefix_space})

    def train(self, *args, **kwargs) -> None:
        raise NotImplementedError(_NO_TRAINER)

    def train_from_iterator(self, *args, **kwargs) -> None:
        raise NotImplementedError(_NO_TRAINER)

    @staticmethod
    def from_spm(filename: str | os.PathLike[str]) -> "SentencePieceUnigramTokenizer":
        """The tokenizer of a sentencepiece Unigram `.model`, built as tokenizers' from_spm builds
        it (read here without protobuf).

        Raises:
            OSError: the file cannot be read.
            ValueError: not a ModelProto, or a model of another type.
        """
        m = ModelProto.load(os.fspath(filename))
        if m.trainer_spec.model_type != ModelType.UNIGRAM:
            raise ValueError("You're trying to run a `Unigram` model but your file was trained with a different "
                             "algorithm")
        tokenizer = Tokenizer(Unigram([(p.piece, p.score) for p in m.pieces], m.trainer_spec.unk_id,
                                      m.trainer_spec.byte_fallback))
        charsmap = m.normalizer_spec.precompiled_charsmap
        tokenizer.normalizer = normalizers.Sequence(
            ([normalizers.Precompiled(charsmap)] if charsmap else []) + [normalizers.Replace(Regex(" {2,}"), " ")])
        _metaspace(tokenizer, "▁", True)
        out = SentencePieceUnigramTokenizer.__new__(SentencePieceUnigramTokenizer)
        BaseTokenizer.__init__(out, tokenizer, {"model": "SentencePieceUnigram"})
        return out
