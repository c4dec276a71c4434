"""What minbpe's three tokenizers share: the tables, special tokens, decoding and files.

A tokenizer holds minbpe's tables: ``merges`` ((left id, right id) -> new id, in merge
order), ``vocab`` (id -> bytes; ids 0-255 are the byte values) and ``special_tokens``
(text -> id).  Training runs the native trainer with minbpe's rule (ties go to the pair
first seen in the text, every merge makes a new id); encoding runs tokenforge's native
byte-pair merge on a vocabulary built from the tables, which gives minbpe's ids whenever
no two merges make the same bytes.  When two do (minbpe allows it; an id-per-bytes
engine cannot), encoding falls back to the pure-Python reference in
:mod:`tokenforge.minbpe.reference`, which is slow but exact.

It leaves out splitting and the special-token policy of `encode` (:mod:`.regex`), and
the file layout (:mod:`tokenforge.formats.minbpe`).
"""

from __future__ import annotations

import os

from tokenforge import _native
from tokenforge.core import Encoding
from tokenforge.formats import minbpe as minbpe_files
from tokenforge.minbpe import reference


def learn_merges(words: dict[bytes, int], vocab_size: int, verbose: bool = False) -> dict[tuple[int, int], int]:
    """Learns minbpe's merges natively from distinct chunks and their counts.

    Args:
        words: chunk bytes -> count, in the order the text first shows each chunk (the tie rule
            depends on it).
        vocab_size: 256 plus the merges wanted.
        verbose: print each merge, as minbpe does (without its count).

    Returns:
        (left id, right id) -> new id, ids 0-255 being byte values.

    >>> learn_merges({b"aaabdaaabac": 1}, 259)
    {(97, 97): 256, (256, 97): 257, (257, 98): 258}
    """
    if not isinstance(vocab_size, int) or vocab_size < 256:
        raise ValueError(f"vocab_size must be an int >= 256, got {vocab_size!r}")
    core = _native.BpeTrainer()
    core.set_first_seen(True)
    for word, count in words.items():
        core.add_word(word, count)
    core.train(vocab_size, 0)
    tokens = core.tokens()
    ours = {i: tokens[i][0] for i in range(256)}  # the trainer's byte ranks -> byte values
    merges: dict[tuple[int, int], int] = {}
    for a, b, r in core.merges():  # r == 256 + k: in minbpe's rule every merge is a new id
        merges[(ours.get(a, a), ours.get(b, b))] = r
        if verbose:
            print(f"merge {len(merges)}/{vocab_size - 256}: {(ours.get(a, a), ours.get(b, b))} -> {r} ({tokens[r]!r})")
    return merges


class Tokenizer:
    """minbpe's base Tokenizer: tables, decode, special tokens, save and load."""

    def __init__(self) -> None:
        self.merges: dict[tuple[int, int], int] = {}  # (int, int) -> int
        self.pattern = ""  # the split pattern ("" for BasicTokenizer)
        self.special_tokens: dict[str, int] = {}  # str -> int, e.g. {'<|endoftext|>': 100257}
        self.inverse_special_tokens: dict[int, str] = {}
        self.vocab = self._build_vocab()  # int -> bytes
        self._engine_cache: tuple[int, Encoding | None] | None = None

    def _build_vocab(self) -> dict[int, bytes]:
        vocab = reference.vocab_of(self.merges)
        for special, idx in self.special_tokens.items():
            vocab[idx] = special.encode("utf-8")
        return vocab

    def _set_merges(self, merges: dict[tuple[int, int], int]) -> None:
        self.merges = merges
        self.vocab = self._build_vocab()
        self._engine_cache = None

    def _engine(self) -> Encoding | None:
        """tokenforge's native encoder over the merges, or None when two merges make the same bytes."""
        key = id(self.merges), len(self.merges)
        if self._engine_cache is None or self._engine_cache[0] != key:
            vocab = reference.vocab_of(self.merges)
            ranks = {t: i for i, t in vocab.items()}
            engine = None
            if len(ranks) == len(vocab):
                engine = Encoding("minbpe", pat_str=self.pattern or minbpe_files.WHOLE_TEXT, mergeable_ranks=ranks, special_tokens={})
            self._engine_cache = (key, engine)
        return self._engine_cache[1]

    def _encode_chunk(self, data: bytes) -> list[int]:
        engine = self._engine()
        if engine is not None:
            return engine._encode_single_piece(data)
        return reference.encode_chunk(list(data), self.merges)

    def register_special_tokens(self, special_tokens: dict[str, int]) -> None:
        """Adds special tokens (text -> id), e.g. ``{"<|endoftext|>": 100257}``.

        >>> from tokenforge.minbpe import RegexTokenizer
        >>> tok = RegexTokenizer()
        >>> tok.register_special_tokens({"<|eot|>": 256})
        >>> tok.encode("a<|eot|>", allowed_special="all")
        [97, 256]
        """
        if any(not isinstance(s, str) or not s or not isinstance(i, int) for s, i in special_tokens.items()):
            raise ValueError(f"special tokens must map non-empty strings to ints, got {special_tokens!r}")
        self.special_tokens = dict(special_tokens)
        self.inverse_special_tokens = {v: k for k, v in special_tokens.items()}
        self.vocab = self._build_vocab()

    def decode(self, ids: list[int]) -> str:
        """ids -> text; bytes that are not UTF-8 become U+FFFD, as in minbpe.

        Raises:
            ValueError: an id is neither a token nor a special token.
        """
        parts = []
        for idx in ids:
            if idx in self.vocab:
                parts.append(self.vocab[idx])
            elif idx in self.inverse_special_tokens:
                parts.append(self.inverse_special_tokens[idx].encode("utf-8"))
            else:
                raise ValueError(f"invalid token id: {idx}")
        return b"".join(parts).decode("utf-8", errors="replace")

    def save(self, file_prefix: str | os.PathLike[str]) -> list[str]:
        """Writes ``file_prefix.model`` (what `load` reads) and ``file_prefix.vocab`` (for people).

        Returns:
            The two paths.

        Raises:
            OSError: a file cannot be written.
        """
        return minbpe_files.write(os.fspath(file_prefix), self.pattern, self.special_tokens, self.merges, self.vocab)

    def load(self, model_file: str | os.PathLike[str]) -> None:
        """Reads a ``.model`` file written by `save` (or by minbpe).

        Raises:
            ValueError: the name does not end in .model, or it is not a minbpe v1 model.
            OSError: it cannot be read.
        """
        if not os.fspath(model_file).endswith(".model"):
            raise ValueError(f"{os.fspath(model_file)!r}: minbpe model files end in .model")
        pattern, specials, merges = minbpe_files.read(model_file)
        self._set_pattern(pattern)
        self.special_tokens = specials
        self.inverse_special_tokens = {v: k for k, v in specials.items()}
        self._set_merges(merges)

    def _set_pattern(self, pattern: str) -> None:
        self.pattern = pattern
