"""WordPiece: greedy longest-match-first, continuation pieces prefixed with `##`.

A word longer than `max_input_chars_per_word` characters, or one with a part no vocab piece
matches, becomes the single unknown token.

Example:
    >>> wp = WordPiece({"[UNK]": 0, "un": 1, "##aff": 2, "##able": 3})
    >>> [t for _, t, _ in wp.word_tokens("unaffable")]
    ['un', '##aff', '##able']
"""

from __future__ import annotations

import os

from tokenforge.models import files
from tokenforge.models.vocab_model import VocabModel


class WordPiece(VocabModel):
    """The WordPiece model (module docstring)."""

    def __init__(self, vocab: dict[str, int] | str | os.PathLike[str] | None = None, unk_token: str = "[UNK]",
                 continuing_subword_prefix: str = "##", max_input_chars_per_word: int = 100) -> None:
        if isinstance(vocab, (str, os.PathLike)):
            vocab = files.read_wordpiece(vocab)
        super().__init__({} if vocab is None else vocab)
        self.unk_token, self.continuing_subword_prefix = unk_token, continuing_subword_prefix
        self.max_input_chars_per_word = max_input_chars_per_word
        # No piece longer than the longest token can match: the inner loop starts there, so a
        # long word costs O(len(word) * longest) instead of O(len(word) ** 2).
        self._longest = max((len(t) for t in self.vocab), default=0)

    def _unk(self, word: str) -> list:
        if self.unk_token not in self.vocab:
            raise ValueError(f"WordPiece: unk_token {self.unk_token!r} is not in the vocab")
        return [(self.vocab[self.unk_token], self.unk_token, (0, len(word)))]

    def word_tokens(self, word: str) -> list[tuple[int, str, tuple[int, int]]]:
        """(id, token, (start, end)) per piece; offsets are characters of `word`."""
        cached = self._cache.get(word)
        if cached is not None:
            return cached
        if len(word) > self.max_input_chars_per_word:
            return self._unk(word)
        out, start, n = [], 0, len(word)
        while start < n:
            end, found = min(n, start + self._longest), None
            while start < end:
                sub = word[start:end]
                if start > 0:
                    sub = self.continuing_subword_prefix + sub
                tid = self.vocab.get(sub)
                if tid is not None:
                    found = (tid, sub, (start, end))
                    break
                end -= 1
            if found is None:
                out = self._unk(word)
                break
            out.append(found)
            start = end
        return self.remember(word, out)

    @staticmethod
    def read_file(vocab: str | os.PathLike[str]) -> dict[str, int]:
        """token -> id read from a vocab.txt (models/files.py)."""
        return files.read_wordpiece(vocab)

    @classmethod
    def from_file(cls, vocab: str | os.PathLike[str], **kwargs) -> WordPiece:
        """The model of a vocab.txt, with WordPiece's keyword options."""
        return cls(files.read_wordpiece(vocab), **kwargs)


    def to_dict(self) -> dict:
        return {"type": "WordPiece", "unk_token": self.unk_token,
                "continuing_subword_prefix": self.continuing_subword_prefix,
                "max_input_chars_per_word": self.max_input_chars_per_word, "vocab": self.vocab}


class WordLevel(VocabModel):
    """One token per word, or the unknown token.

    Example:
        >>> WordLevel({"hi": 0, "[UNK]": 1}, "[UNK]").word_tokens("yo")
        [(1, '[UNK]', (0, 2))]
    """

    def __init__(self, vocab: dict[str, int] | str | os.PathLike[str] | None = None,
                 unk_token: str | None = None) -> None:
        if isinstance(vocab, (str, os.PathLike)):
            vocab = files.read_wordlevel(vocab)
        super().__init__({} if vocab is None else vocab)
        self.unk_token = "<unk>" if unk_token is None else unk_token  # tokenizers' default

    @staticmethod
    def read_file(vocab: str | os.PathLike[str]) -> dict[str, int]:
        """token -> id read from a vocab.json (models/files.py)."""
        return files.read_wordlevel(vocab)

    @classmethod
    def from_file(cls, vocab: str | os.PathLike[str], unk_token: str | None = None) -> WordLevel:
        """The model of a vocab.json."""
        return cls(files.read_wordlevel(vocab), unk_token)


    def word_tokens(self, word: str) -> list[tuple[int, str, tuple[int, int]]]:
        tid = self.vocab.get(word)
        if tid is not None:
            return [(tid, word, (0, len(word)))]
        if self.unk_token is None or self.unk_token not in self.vocab:
            raise ValueError(f"WordLevel: {word!r} is not in the vocab and there is no unk_token in it")
        return [(self.vocab[self.unk_token], self.unk_token, (0, len(word)))]

    def to_dict(self) -> dict:
        return {"type": "WordLevel", "vocab": self.vocab, "unk_token": self.unk_token}
