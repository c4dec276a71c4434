"""Trainers for `Tokenizer.train` / `Tokenizer.train_from_iterator`, as `tokenizers.trainers`.

`BpeTrainer` (trainers/bpe.py: tokenizers' algorithm step for step), `WordPieceTrainer` (the BPE
trainer with `##` continuations, its vocab taken as a WordPiece model's) and `WordLevelTrainer`
(the most frequent words).  The tokenizer feeds a trainer the pieces its normalizer and
pre-tokenizer make of each text (added tokens as their own pieces); the trainer counts them and
then fills the model.  tokenizers' `UnigramTrainer` is not here: tokenforge trains Unigram
models as sentencepiece does (`tokenforge.SentencePieceTrainer`), which is not tokenizers' variant.

Example:
    >>> from tokenforge.models import WordLevel
    >>> t = WordLevelTrainer(special_tokens=["[UNK]"])
    >>> t.feed([["a", "b", "a"]])
    >>> t.train(WordLevel(unk_token="[UNK]")).vocab
    {'[UNK]': 0, 'a': 1, 'b': 2}
"""

from __future__ import annotations

from tokenforge.trainers.bpe import train_bpe


def _special_contents(tokens) -> list[str]:
    """The contents of special tokens given as strs or AddedTokens."""
    out = []
    for t in tokens or ():
        content = t if isinstance(t, str) else getattr(t, "content", None)
        if not isinstance(content, str):
            raise TypeError(f"a special token must be a str or an AddedToken, got {type(t).__name__}")
        out.append(content)
    return out


class _Trainer:
    """Word counting, shared by every trainer."""

    def __init__(self, vocab_size: int, min_frequency: int, show_progress: bool, special_tokens) -> None:
        self.vocab_size, self.min_frequency, self.show_progress = vocab_size, min_frequency, show_progress
        self.special_tokens = list(special_tokens or ())
        _special_contents(self.special_tokens)  # checked now
        self.words: dict[str, int] = {}

    def feed(self, pieces_of_texts) -> None:
        """Counts the pieces of each text (an iterable of lists of strs); replaces earlier counts,
        as tokenizers' feed does."""
        counts: dict[str, int] = {}
        for pieces in pieces_of_texts:
            for p in pieces:
                counts[p] = counts.get(p, 0) + 1
        self.words = counts

    def special_added_tokens(self) -> list:
        """The special tokens, for the tokenizer to add once trained."""
        return list(self.special_tokens)


class BpeTrainer(_Trainer):
    """tokenizers' BpeTrainer (trainers/bpe.py)."""

    def __init__(self, vocab_size: int = 30000, min_frequency: int = 0, show_progress: bool = True,
                 special_tokens: list | None = None, limit_alphabet: int | None = None,
                 initial_alphabet: list[str] | None = None, continuing_subword_prefix: str | None = None,
                 end_of_word_suffix: str | None = None, max_token_length: int | None = None,
                 progress_format: str = "indicatif") -> None:
        super().__init__(vocab_size, min_frequency, show_progress, special_tokens)
        self.limit_alphabet, self.initial_alphabet = limit_alphabet, list(initial_alphabet or ())
        self.continuing_subword_prefix, self.end_of_word_suffix = continuing_subword_prefix, end_of_word_suffix
        self.max_token_length = max_token_length

    def _vocab_and_merges(self):
        return train_bpe(self.words, self.vocab_size, self.min_frequency, _special_contents(self.special_tokens),
                         self.limit_alphabet, self.initial_alphabet, self.continuing_subword_prefix,
                         self.end_of_word_suffix, self.max_token_length)

    def train(self, model):
        """The trained BPE model: `model`'s options, the new vocab and merges."""
        from tokenforge.models import BPE

        if not isinstance(model, BPE):
            raise ValueError(f"BpeTrainer trains a BPE model, not {type(model).__name__}")
        vocab, merges = self._vocab_and_merges()
        return BPE(vocab, merges, dropout=model.dropout, unk_token=model.unk_token,
                   continuing_subword_prefix=self.continuing_subword_prefix,
                   end_of_word_suffix=self.end_of_word_suffix, fuse_unk=model.fuse_unk,
                   byte_fallback=model.byte_fallback, ignore_merges=model.ignore_merges)


class WordPieceTrainer(BpeTrainer):
    """tokenizers' WordPieceTrainer: the BPE trainer with `##` continuations, whose vocab becomes
    the WordPiece model's (its unknown token and its other options kept)."""

    def __init__(self, vocab_size: int = 30000, min_frequency: int = 0, show_progress: bool = True,
                 special_tokens: list | None = None, limit_alphabet: int | None = None,
                 initial_alphabet: list[str] | None = None, continuing_subword_prefix: str = "##",
                 end_of_word_suffix: str | None = None) -> None:
        super().__init__(vocab_size, min_frequency, show_progress, special_tokens, limit_alphabet, initial_alphabet,
                         continuing_subword_prefix, end_of_word_suffix)

    def train(self, model):
        from tokenforge.models import WordPiece

        if not isinstance(model, WordPiece):
            raise ValueError(f"WordPieceTrainer trains a WordPiece model, not {type(model).__name__}")
        vocab, _ = self._vocab_and_merges()
        return WordPiece(vocab, model.unk_token, self.continuing_subword_prefix or "##",
                         model.max_input_chars_per_word)


class WordLevelTrainer(_Trainer):
    """tokenizers' WordLevelTrainer: the special tokens, then the words of at least
    `min_frequency` by count (most frequent first, equal counts by code point), up to `vocab_size`."""

    def __init__(self, vocab_size: int = 30000, min_frequency: int = 0, show_progress: bool = True,
                 special_tokens: list | None = None) -> None:
        super().__init__(vocab_size, min_frequency, show_progress, special_tokens)

    def train(self, model):
        from tokenforge.models import WordLevel

        if not isinstance(model, WordLevel):
            raise ValueError(f"WordLevelTrainer trains a WordLevel model, not {type(model).__name__}")
        ordered = sorted(self.words.items(), key=lambda kv: (-kv[1], kv[0]))
        entries = _special_contents(self.special_tokens) + [w for w, n in ordered if n >= self.min_frequency]
        vocab = {}
        for i, w in enumerate(entries[:self.vocab_size]):
            vocab[w] = i  # a special token that is also a word keeps the word's id, as tokenizers
        return WordLevel(vocab, model.unk_token)


__all__ = ["BpeTrainer", "WordLevelTrainer", "WordPieceTrainer"]
