"""What every model shares: the vocab lookups, a bounded cache of tokenized words, and
tokenizers' `Model.tokenize` over the model's own `word_tokens`.

Example:
    >>> m = VocabModel({"a": 0})
    >>> m.token_to_id("a"), m.id_to_token(0), m.id_to_token(5)
    (0, 'a', None)
"""

from __future__ import annotations

import os

from tokenforge.models import files
from tokenforge.models.token import Token

_CACHE_WORDS = 100_000  # words kept per model; a word past that is tokenized each time


class VocabModel:
    """A vocab (`vocab`: token -> id, `vocab_r`: id -> token) and a word cache."""

    def __init__(self, vocab: dict[str, int]) -> None:
        self.vocab = dict(vocab)
        self.vocab_r = {i: t for t, i in self.vocab.items()}
        self._cache: dict[str, list] = {}

    def remember(self, word: str, tokens: list) -> list:
        """Caches a word's tokens (while the cache has room) and returns them."""
        if len(self._cache) < _CACHE_WORDS:
            self._cache[word] = tokens
        return tokens

    def tokenize(self, sequence: str) -> list[Token]:
        """tokenizers' `Model.tokenize`: a Token per piece of `sequence`, its offsets in the
        sequence's UTF-8 bytes as tokenizers reports them (word_tokens' are characters)."""
        pieces = self.word_tokens(sequence)
        if sequence.isascii():
            return [Token(*t) for t in pieces]
        at = [0]
        for c in sequence:
            at.append(at[-1] + len(c.encode("utf-8", "surrogatepass")))
        return [Token(i, v, (at[a], at[b])) for i, v, (a, b) in pieces]

    def word_tokens(self, word: str) -> list[tuple[int, str, tuple[int, int]]]:
        """(id, token, (start, end)) per token, offsets in characters of `word` (each model's)."""
        raise NotImplementedError

    def token_to_id(self, token: str) -> int | None:
        return self.vocab.get(token)

    def id_to_token(self, i: int) -> str | None:
        return self.vocab_r.get(i)

    def get_trainer(self):
        """The trainer tokenizers gives this kind of model (tokenforge.trainers)."""
        from tokenforge.tokenizer.training import default_trainer

        return default_trainer(self)

    def save(self, folder: str | os.PathLike[str], prefix: str | None = None) -> list[str]:
        """Writes the model's files into `folder`, as tokenizers' `Model.save` names and lays
        them out (models/files.py), atomically; returns their paths."""
        return files.save(self, folder, prefix)
