"""BertWordPieceTokenizer: BERT's WordPiece, as `tokenizers.implementations` builds it
(BertNormalizer, BertPreTokenizer, the [CLS]/[SEP] processor when a vocab is given, the
WordPiece decoder; trained with the WordPiece trainer)."""

from __future__ import annotations

from tokenforge import decoders, normalizers, pre_tokenizers, processors, trainers
from tokenforge.implementations.base import BaseTokenizer, files_list
from tokenforge.models import WordPiece
from tokenforge.tokenizer import Tokenizer

_SPECIALS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")


class BertWordPieceTokenizer(BaseTokenizer):
    """BERT's WordPiece (module docstring).

    Raises:
        TypeError: a vocab without the sep or cls token (as tokenizers raises).
    """

    def __init__(self, vocab=None, unk_token="[UNK]", sep_token="[SEP]", cls_token="[CLS]", pad_token="[PAD]",
                 mask_token="[MASK]", clean_text: bool = True, handle_chinese_chars: bool = True,
                 strip_accents: bool | None = None, lowercase: bool = True, wordpieces_prefix: str = "##") -> None:
        model = WordPiece(vocab, unk_token=str(unk_token)) if vocab is not None else WordPiece(unk_token=str(unk_token))
        tokenizer = Tokenizer(model)
        for token in (unk_token, sep_token, cls_token, pad_token, mask_token):
            if tokenizer.token_to_id(str(token)) is not None:
                tokenizer.add_special_tokens([str(token)])
        tokenizer.normalizer = normalizers.BertNormalizer(clean_text=clean_text, handle_chinese_chars=handle_chinese_chars,
                                                          strip_accents=strip_accents, lowercase=lowercase)
        tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
        if vocab is not None:
            sep_id, cls_id = tokenizer.token_to_id(str(sep_token)), tokenizer.token_to_id(str(cls_token))
            if sep_id is None:
                raise TypeError("sep_token not found in the vocabulary")
            if cls_id is None:
                raise TypeError("cls_token not found in the vocabulary")
            tokenizer.post_processor = processors.BertProcessing((str(sep_token), sep_id), (str(cls_token), cls_id))
        tokenizer.decoder = decoders.WordPiece(prefix=wordpieces_prefix)
        super().__init__(tokenizer, {
            "model": "BertWordPiece", "unk_token": unk_token, "sep_token": sep_token, "cls_token": cls_token,
            "pad_token": pad_token, "mask_token": mask_token, "clean_text": clean_text,
            "handle_chinese_chars": handle_chinese_chars, "strip_accents": strip_accents, "lowercase": lowercase,
            "wordpieces_prefix": wordpieces_prefix})

    @staticmethod
    def from_file(vocab: str, **kwargs) -> "BertWordPieceTokenizer":
        return BertWordPieceTokenizer(WordPiece.read_file(vocab), **kwargs)

    @staticmethod
    def _trainer(vocab_size, min_frequency, limit_alphabet, initial_alphabet, special_tokens, show_progress,
                 wordpieces_prefix) -> trainers.WordPieceTrainer:
        return trainers.WordPieceTrainer(vocab_size=vocab_size, min_frequency=min_frequency,
                                         limit_alphabet=limit_alphabet, initial_alphabet=list(initial_alphabet),
                                         special_tokens=list(special_tokens), show_progress=show_progress,
                                         continuing_subword_prefix=wordpieces_prefix)

    def train(self, files, vocab_size: int = 30000, min_frequency: int = 2, limit_alphabet: int = 1000,
              initial_alphabet: list = (), special_tokens: list = _SPECIALS, show_progress: bool = True,
              wordpieces_prefix: str = "##") -> None:
        self._tokenizer.train(files_list(files), self._trainer(vocab_size, min_frequency, limit_alphabet,
                                                                initial_alphabet, special_tokens, show_progress,
                                                                wordpieces_prefix))

    def train_from_iterator(self, iterator, vocab_size: int = 30000, min_frequency: int = 2,
                            limit_alphabet: int = 1000, initial_alphabet: list = (), special_tokens: list = _SPECIALS,
                            show_progress: bool = True, wordpieces_prefix: str = "##",
                            length: int | None = None) -> None:
        self._tokenizer.train_from_iterator(iterator, self._trainer(vocab_size, min_frequency, limit_alphabet,
                                                                    initial_alphabet, special_tokens, show_progress,
                                                                    wordpieces_prefix), length)
