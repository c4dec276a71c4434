"""minbpe's GPT4Tokenizer: cl100k's vocabulary in minbpe's tables, encoding as tiktoken does.

cl100k stores ranks, not merges; the merges are recovered from the ranks (each token of
rank r is the byte-pair merge of its bytes with ranks below r, which ends in two parts).
cl100k's first 256 ranks are not the byte values, so minbpe keeps a byte shuffle: byte b
is id ``byte_shuffle[b]``.  Encoding and decoding run tokenforge's cl100k Encoding, whose
ids are tiktoken's; the merges and vocab are built on first use (they take a second).

It leaves out training (as minbpe: the vocabulary is fixed) and loading a saved file
back (minbpe's .model has no place for the shuffle).

Example:
    >>> tok = GPT4Tokenizer()  # doctest: +SKIP
    >>> tok.encode("hello world!!!? (안녕하세요!) lol123 😉")  # doctest: +SKIP
    [15339, 1917, 12340, 30, 320, 31495, 230, 75265, 243, 92245, 16715, 28509, 4513, 57037]
"""

from __future__ import annotations

import functools
import os

from tokenforge.formats import minbpe as minbpe_files
from tokenforge.formats.merges import merges_from_ranks
from tokenforge.minbpe.regex import GPT4_SPLIT_PATTERN, RegexTokenizer

GPT4_SPECIAL_TOKENS = {
    "<|endoftext|>": 100257,
    "<|fim_prefix|>": 100258,
    "<|fim_middle|>": 100259,
    "<|fim_suffix|>": 100260,
    "<|endofprompt|>": 100276,
}


class GPT4Tokenizer(RegexTokenizer):
    """cl100k_base with minbpe's API; ids equal tiktoken's."""

    def __init__(self) -> None:
        """Loads cl100k_base through :func:`tokenforge.get_encoding`.

        Raises:
            OSError / ValueError: cl100k_base cannot be loaded (see tokenforge.get_encoding).
        """
        import tokenforge

        super().__init__(pattern=GPT4_SPLIT_PATTERN)
        self._cl100k = tokenforge.get_encoding("cl100k_base")
        ranks = self._cl100k._mergeable_ranks
        self.byte_shuffle = {i: ranks[bytes([i])] for i in range(256)}
        self.inverse_byte_shuffle = {v: k for k, v in self.byte_shuffle.items()}
        self.register_special_tokens(GPT4_SPECIAL_TOKENS)

    # minbpe's tables, in cl100k's ids (so `vocab` of ids 0-255 holds shuffled bytes, as in minbpe).
    @functools.cached_property
    def _tables(self) -> tuple[dict[tuple[int, int], int], dict[int, bytes]]:
        ranks = self._cl100k._mergeable_ranks
        merges = {(ranks[a], ranks[b]): ranks[a + b] for a, b in merges_from_ranks(ranks)}
        vocab = {idx: bytes([idx]) for idx in range(256)}
        for (a, b), idx in merges.items():
            vocab[idx] = vocab[a] + vocab[b]
        return merges, vocab

    def _build_vocab(self) -> dict[int, bytes]:
        return {}  # `vocab` is a property here, built on first use

    @property
    def merges(self) -> dict[tuple[int, int], int]:  # type: ignore[override]
        return self._tables[0] if "_cl100k" in self.__dict__ else {}

    @merges.setter
    def merges(self, value: dict[tuple[int, int], int]) -> None:
        pass  # fixed: the base class's __init__ sets it empty

    @property
    def vocab(self) -> dict[int, bytes]:  # type: ignore[override]
        return self._tables[1] if "_cl100k" in self.__dict__ else {}

    @vocab.setter
    def vocab(self, value: dict[int, bytes]) -> None:
        pass

    def train(self, text: str, vocab_size: int, verbose: bool = False) -> None:
        raise NotImplementedError("GPT4Tokenizer is pretrained (cl100k_base) and cannot be trained")

    def load(self, model_file: str | os.PathLike[str]) -> None:
        raise NotImplementedError("GPT4Tokenizer cannot be loaded from a file (its byte shuffle is not saved)")

    def encode_ordinary(self, text: str) -> list[int]:
        """text -> cl100k ids, special tokens treated as ordinary text."""
        return self._cl100k.encode_ordinary(text)

    def decode(self, ids: list[int]) -> str:
        """cl100k ids -> text (invalid UTF-8 becomes U+FFFD).

        Raises:
            ValueError: an id is not in cl100k.
        """
        try:
            return self._cl100k.decode(ids)
        except KeyError as e:
            raise ValueError(f"invalid token id: {e.args[0] if e.args else ids}") from None

    def save_vocab(self, vocab_file: str | os.PathLike[str]) -> None:
        """Writes minbpe's readable listing of cl100k (bytes un-shuffled), as minbpe's save_vocab.

        Raises:
            OSError: the file cannot be written.
        """
        merges = self.merges
        vocab = {idx: bytes([self.inverse_byte_shuffle[idx]]) for idx in range(256)}
        for (a, b), idx in merges.items():
            vocab[idx] = vocab[a] + vocab[b]
        prefix = os.fspath(vocab_file)
        tmp = prefix + ".listing"
        minbpe_files.write(tmp, self.pattern, {}, merges, vocab)
        os.replace(tmp + ".vocab", prefix)
        os.remove(tmp + ".model")
