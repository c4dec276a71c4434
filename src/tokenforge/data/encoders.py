"""Which tokenizer a dataset job runs, named so that it travels to other processes cheaply.

`EncodingRef` names an encoding by a registered name (``"cl100k_base"``) or by a file
(a ``.tiktoken`` rank file, a SentencePiece ``.model``, a minbpe ``.model`` or an HF
``tokenizer.json`` from ``tokenforge train``, or any ``tokenizer.json`` `tokenforge.Tokenizer`
loads); pickling it sends that name, and each process loads the tokenizer once
(`EncodingRef.load` is cached per process).  `TokenEncoder` gives every kind the one call
the dataset code needs: many documents to one flat id array plus per-document counts.

A ``tokenizer.json`` encodes as `tokenizers` does with ``add_special_tokens=False`` (no
post-processor tokens such as a BOS; the end-of-text id is the dataset's separator) and
without the truncation or padding the file may set (a document is encoded whole), on
`Tokenizer.encode_batch_fast`'s native threads; a lone surrogate (a JSON escape) becomes
U+FFFD first, as tiktoken does, where `tokenizers` cannot take the text at all.  Its
end-of-text id is the special token ``<|endoftext|>``, ``<|end_of_text|>``, ``</s>`` or
``<eos>`` it holds.

Leaves out: special tokens inside documents for tiktoken-style and SentencePiece models
(documents are encoded as ordinary text, as nanoGPT's and nanochat's data scripts do with
``encode_ordinary``); a ``tokenizer.json`` matches its added tokens in the text, as
`tokenizers` does (it has no ordinary-text mode).

Example:
    >>> import pickle
    >>> ref = EncodingRef("cl100k_base")
    >>> pickle.loads(pickle.dumps(ref)) == ref
    True
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import os
from typing import Any

import numpy as np

from tokenforge import _native, patterns
from tokenforge.core import Encoding
from tokenforge.sentencepiece import SentencePieceProcessor
from tokenforge.tokenizer import Tokenizer


@dataclasses.dataclass(frozen=True)
class EncodingRef:
    """A tokenizer by name or file: what is pickled to workers instead of its tables.

    Attributes:
        spec: a registered encoding name, or a path to a ``.tiktoken``, ``.model`` or
            ``tokenizer.json`` (``.json``) file.
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
    if suffix == ".json":
        return TokenEncoder(_tokenizer_json(path), name=path)
    raise ValueError(f"{spec}: cannot tell the tokenizer kind; use an encoding name, a .tiktoken, a .model "
                     "or a tokenizer.json file")


def _tokenizer_json(path: str) -> Tokenizer:
    """An HF tokenizer.json file as a `Tokenizer`.

    Raises:
        ValueError: not a tokenizer.json tokenforge can run (the file named).
        OSError: the file cannot be read.
    """
    try:
        tok = Tokenizer.from_file(path)
    except (ValueError, TypeError, KeyError, AttributeError) as e:
        raise ValueError(f"{path}: not a tokenizer.json tokenforge can load ({e})") from None
    tok.no_truncation()
    tok.no_padding()
    return tok


def _whole_documents(tok: Tokenizer) -> Tokenizer:
    """`tok`, or a copy of it without the truncation and padding it sets (a model's
    tokenizer.json may cut inputs at its context length): a document is encoded whole."""
    if tok.truncation is None and tok.padding is None:
        return tok
    copy = Tokenizer.from_str(tok.to_str())
    copy.no_truncation()
    copy.no_padding()
    return copy


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
    if isinstance(encoding, (Encoding, SentencePieceProcessor, Tokenizer)):
        return TokenEncoder(encoding)
    raise TypeError("expected an encoding name, a file, an Encoding, a SentencePieceProcessor or a Tokenizer, "
                    f"not {type(encoding).__name__}")


# End-of-text tokens a tiktoken-style encoding / a tokenizer.json may hold, in the order they
# are looked for.
BPE_EOT = ("<|endoftext|>", "<|end_of_text|>")
TOKENIZER_JSON_EOT = (*BPE_EOT, "</s>", "<eos>")


class TokenEncoder:
    """One interface over `Encoding`, `SentencePieceProcessor` and `Tokenizer` (a
    tokenizer.json) for dataset jobs.

    Attributes:
        kind: ``"bpe"``, ``"sentencepiece"`` or ``"tokenizer.json"``.
        is_bpe: kind is ``"bpe"`` (a tiktoken-style `Encoding`).
        name: the encoding's name, or the file it came from.
    """

    def __init__(self, tokenizer: Encoding | SentencePieceProcessor | Tokenizer, name: str | None = None) -> None:
        self.tokenizer = tokenizer
        self.is_bpe = isinstance(tokenizer, Encoding)
        self.kind = "bpe" if self.is_bpe else "tokenizer.json" if isinstance(tokenizer, Tokenizer) else "sentencepiece"
        self.name = name or (tokenizer.name if self.is_bpe else self.kind)
        if self.kind == "tokenizer.json":
            self.tokenizer = _whole_documents(tokenizer)
            self._n_vocab = max(tokenizer.get_vocab().values(), default=-1) + 1

    @property
    def n_vocab(self) -> int:
        """One more than the largest id."""
        if self.kind == "tokenizer.json":
            return self._n_vocab
        return self.tokenizer.n_vocab if self.is_bpe else self.tokenizer.get_piece_size()

    @property
    def default_eot(self) -> int | None:
        """``<|endoftext|>`` (or Llama 3's ``<|end_of_text|>``) for BPE, EOS for SentencePiece,
        the first special token of `TOKENIZER_JSON_EOT` for a tokenizer.json, else None."""
        if self.is_bpe:
            specials = self.tokenizer._special_tokens
            for name in BPE_EOT:
                if name in specials:
                    return specials[name]
            return None
        if self.kind == "tokenizer.json":
            specials = {t.content: i for i, t in self.tokenizer.get_added_tokens_decoder().items() if t.special}
            return next((specials[t] for t in TOKENIZER_JSON_EOT if t in specials), None)
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
        if self.kind == "tokenizer.json":
            i = self.tokenizer.token_to_id(text)
            if i is None:
                raise ValueError(f"{text!r} is not a token of {self.name}")
            return i
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
        elif self.kind == "tokenizer.json":
            lists = self._tokenizer_json_ids(list(texts), num_threads)
        else:
            lists = self.tokenizer.encode(list(texts), num_threads=num_threads)
        counts = np.fromiter(map(len, lists), dtype=np.int64, count=len(lists))
        flat = np.fromiter(itertools.chain.from_iterable(lists), dtype=np.uint32, count=int(counts.sum()))
        if eot is not None:
            flat = np.insert(flat, np.cumsum(counts), eot)  # after each document, empty ones too
        return flat, counts

    def _tokenizer_json_ids(self, texts: list[str], num_threads: int) -> list[list[int]]:
        """The ids of each text, without post-processor tokens; a text with a lone surrogate
        (which the Tokenizer refuses) has it replaced by U+FFFD, as tiktoken does."""
        encode = self.tokenizer.encode_batch_fast
        try:
            encodings = encode(texts, add_special_tokens=False, num_threads=num_threads)
        except ValueError:
            repaired = [t if t.isascii() else _replace_surrogates(t) for t in texts]
            if repaired == texts:
                raise
            encodings = encode(repaired, add_special_tokens=False, num_threads=num_threads)
        return [e.ids for e in encodings]

    def decode_bytes(self, ids: Any) -> bytes:
        """The bytes of ids (for checking shards)."""
        ids = [int(i) for i in ids]
        if self.is_bpe:
            return self.tokenizer.decode_bytes(ids)
        if self.kind == "tokenizer.json":
            return self.tokenizer.decode(ids, skip_special_tokens=False).encode("utf-8")
        return self.tokenizer.decode(ids).encode("utf-8")


def _replace_surrogates(text: str) -> str:
    """`text` with each lone surrogate replaced by U+FFFD (tiktoken's repair)."""
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
