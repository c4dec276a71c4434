"""Which tokenizer a dataset job runs, named so that it travels to other processes cheaply.

`EncodingRef` names an encoding by a registered name (``"cl100k_base"``) or by a file
(a ``.tiktoken`` rank file, a SentencePiece ``.model``, a minbpe ``.model`` from
``tokenforge train``); pickling it sends that name, and each process loads the tokenizer
once (`EncodingRef.load` is cached per process).  `TokenEncoder` gives every kind the one
call the dataset code needs: many documents to one flat id array plus per-document counts.

Leaves out: HF ``tokenizer.json`` files (tokenforge writes them but has no reader yet),
special tokens inside documents (documents are encoded as ordinary text, as nanoGPT's and
nanochat's data scripts do with ``encode_ordinary``).

Example:
    >>> import pickle
    >>> ref = EncodingRef("cl100k_base")
    >>> pickle.loads(pickle.dumps(ref)) == ref
    True
"""

from __future__ import annotations

import dataclasses
import functools
import os
from typing import Any

import numpy as np

from tokenforge import _native, patterns
from tokenforge.core import Encoding
from tokenforge.sentencepiece import SentencePieceProcessor


@dataclasses.dataclass(frozen=True)
class EncodingRef:
    """A tokenizer by name or file: what is pickled to workers instead of its tables.

    Attributes:
        spec: a registered encoding name, or a path to a ``.tiktoken`` or ``.model`` file.
        pattern: the split pattern for a ``.tiktoken`` file whose name is not a registered
            encoding's (a name in `tokenforge.patterns.BY_NAME` or a regex; default cl100k).
    """

    spec: str
    pattern: str | None = None

    def load(self) -> "TokenEncoder":
        """The tokenizer, loaded once per process.

        Raises:
            ValueError: an unknown name or a file of unknown kind.
            OSError: the file cannot be read.
        """
        return _load(self.spec, self.pattern)


@functools.lru_cache(maxsize=16)
def _load(spec: str, pattern: str | None) -> "TokenEncoder":
    from tokenforge import registry

    if spec in registry.list_encoding_names():
        return TokenEncoder(registry.get_encoding(spec))
    path = os.path.abspath(os.path.expanduser(spec))
    if not os.path.exists(path):
        raise ValueError(f"{spec!r} is neither an encoding name ({', '.join(registry.list_encoding_names())}) nor a file")
    stem, suffix = os.path.splitext(os.path.basename(path))
    if suffix == ".tiktoken":
        from tokenforge.formats.tiktoken_bpe import load_tiktoken_bpe

        ranks = load_tiktoken_bpe(path)
        known = registry._ENCODINGS.get(stem)
        if known is not None and pattern is None:
            return TokenEncoder(Encoding(stem, pat_str=known[1], mergeable_ranks=ranks, special_tokens=known[2]))
        pat_str = patterns.BY_NAME.get(pattern or "cl100k", pattern)
        return TokenEncoder(Encoding(stem, pat_str=pat_str, mergeable_ranks=ranks, special_tokens={}))
    if suffix == ".model":
        with open(path, "rb") as f:
            head = f.read(16)
        if head.startswith(b"minbpe"):
            from tokenforge.formats import minbpe

            return TokenEncoder(minbpe.load(path))
        return TokenEncoder(SentencePieceProcessor(model_file=path))
    raise ValueError(f"{spec}: cannot tell the tokenizer kind; use an encoding name, a .tiktoken or a .model file")


def as_encoder(encoding: Any, pattern: str | None = None) -> "TokenEncoder":
    """A `TokenEncoder` for a name, a path, an `EncodingRef`, an `Encoding` or a
    `SentencePieceProcessor`.

    >>> from tokenforge import patterns
    >>> enc = Encoding("bytes", pat_str=patterns.GPT2, mergeable_ranks={bytes([b]): b for b in range(256)},
    ...                special_tokens={"<|endoftext|>": 256})
    >>> as_encoder(enc).n_vocab, as_encoder(enc).default_eot
    (257, 256)
    """
    if isinstance(encoding, TokenEncoder):
        return encoding
    if isinstance(encoding, EncodingRef):
        return encoding.load()
    if isinstance(encoding, (str, os.PathLike)):
        return EncodingRef(os.fspath(encoding), pattern).load()
    if isinstance(encoding, (Encoding, SentencePieceProcessor)):
        return TokenEncoder(encoding)
    raise TypeError(f"expected an encoding name, a file, an Encoding or a SentencePieceProcessor, not {type(encoding).__name__}")


class TokenEncoder:
    """One interface over `Encoding` and `SentencePieceProcessor` for dataset jobs."""

    def __init__(self, tokenizer: Encoding | SentencePieceProcessor) -> None:
        self.tokenizer = tokenizer
        self.is_bpe = isinstance(tokenizer, Encoding)
        self.name = tokenizer.name if self.is_bpe else "sentencepiece"

    @property
    def n_vocab(self) -> int:
        """One more than the largest id."""
        return self.tokenizer.n_vocab if self.is_bpe else self.tokenizer.get_piece_size()

    @property
    def default_eot(self) -> int | None:
        """``<|endoftext|>`` (or Llama 3's ``<|end_of_text|>``) for BPE, EOS for SentencePiece, else None."""
        if self.is_bpe:
            specials = self.tokenizer._special_tokens
            for name in ("<|endoftext|>", "<|end_of_text|>"):
                if name in specials:
                    return specials[name]
            return None
        eos = self.tokenizer.eos_id()
        return eos if eos >= 0 else None

    def token_id(self, text: str) -> int:
        """The id of a special token or piece given as text (for ``--eot``).

        Raises:
            ValueError: no such token.
        """
        if self.is_bpe:
            try:
                return self.tokenizer.encode_single_token(text)
            except KeyError:
                raise ValueError(f"{text!r} is not a token of {self.name}") from None
        i = self.tokenizer.piece_to_id(text)
        if i == self.tokenizer.unk_id() and text != self.tokenizer.id_to_piece(i):
            raise ValueError(f"{text!r} is not a piece of the model")
        return i

    def encode_flat(self, texts: list[str], eot: int | None, num_threads: int) -> tuple[np.ndarray, np.ndarray]:
        """(ids, counts): the documents' ids in one uint32 array, `eot` after each document
        (unless None), and each document's count (without the eot), int64.

        >>> from tokenforge import patterns
        >>> enc = Encoding("bytes", pat_str=patterns.GPT2, mergeable_ranks={bytes([b]): b for b in range(256)},
        ...                special_tokens={"<|endoftext|>": 256})
        >>> ids, counts = TokenEncoder(enc).encode_flat(["hi", "x"], 256, 2)
        >>> ids.tolist(), counts.tolist()
        ([104, 105, 256, 120, 256], [2, 1])
        """
        if self.is_bpe and self.tokenizer._regex is None:
            return _native.encode_flat(self.tokenizer._core, list(texts), -1 if eot is None else eot, num_threads)
        if self.is_bpe:
            lists = self.tokenizer.encode_ordinary_batch(list(texts), num_threads=num_threads)
        else:
            lists = self.tokenizer.encode(list(texts), num_threads=num_threads)
        counts = np.fromiter((len(x) for x in lists), dtype=np.int64, count=len(lists))
        if eot is not None:
            lists = [x + [eot] for x in lists]
        flat = np.fromiter((i for x in lists for i in x), dtype=np.uint32)
        return flat, counts

    def decode_bytes(self, ids: Any) -> bytes:
        """The bytes of ids (for checking shards)."""
        ids = [int(i) for i in ids]
        if self.is_bpe:
            return self.tokenizer.decode_bytes(ids)
        return self.tokenizer.decode(ids).encode("utf-8")
