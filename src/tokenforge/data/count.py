"""Token counts of files (``tokenforge count``): per file and in total, on all cores.

JSONL and Parquet files count their documents' `field` (as `tokenforge.data.sources`
reads them); any other file counts as one text, streamed in blocks cut at exact cut points
(`tokenforge._cuts`), so memory stays bounded however large the file.  Counts are of
ordinary text (special-token text counts as text), as ``Encoding.count_tokens``.

Example:
    >>> import io, tokenforge
    >>> from tokenforge import patterns
    >>> enc = tokenforge.Encoding("bytes", pat_str=patterns.GPT2, special_tokens={},
    ...                           mergeable_ranks={bytes([b]): b for b in range(256)})
    >>> count_stream(io.BytesIO(b"hello world"), enc)
    11
"""

from __future__ import annotations

import codecs
import os
from collections.abc import Sequence
from typing import Any, BinaryIO

from tokenforge import _cuts
from tokenforge._threads import resolve_threads
from tokenforge.data.encoders import as_encoder
from tokenforge.data.sources import UTF8_BOM, DocumentReader, kind_of

_BLOCK = 1 << 23


def count_stream(stream: BinaryIO, encoding: Any = "cl100k_base", *, errors: str = "strict",
                 num_threads: int | None = None, name: str = "<stdin>") -> int:
    """The tokens of one UTF-8 stream, read in blocks.

    A stream is one document: with errors="skip", one that is not UTF-8 counts 0 (as
    `tokenforge tokenize` skips it); with "replace", bad bytes count as U+FFFD.  A byte order
    mark at its start is not counted.

    Raises:
        ValueError: the stream is not UTF-8 (with errors="strict").
    """
    encoder = as_encoder(encoding)
    threads = resolve_threads(num_threads)
    decoder = codecs.getincrementaldecoder("utf-8")("replace" if errors == "replace" else "strict")
    newline = encoder.is_bpe and encoder.tokenizer._scanner not in (None, 0)
    total, pending, offset = 0, "", 0
    while True:
        data = stream.read(_BLOCK)
        end = not data
        if offset == 0 and data.startswith(UTF8_BOM):  # dropped at the start only, as tokenize does
            data, offset = data[len(UTF8_BOM):], len(UTF8_BOM)
        try:
            pending += decoder.decode(data, final=end)
        except UnicodeDecodeError as e:
            if errors == "skip":
                return 0
            raise ValueError(f"{name}: not UTF-8 near byte {offset + e.start}") from None
        offset += len(data)
        cut = len(pending) if end else (_cuts.last_cut(pending, newline) if encoder.is_bpe else -1)
        if cut > 0 and (end or len(pending) >= _BLOCK):
            total += _count_texts(encoder, [pending[:cut]], threads)
            pending = pending[cut:]
        if end:
            return total + (_count_texts(encoder, [pending], threads) if pending else 0)


def _count_texts(encoder, texts: list[str], threads: int) -> int:
    if encoder.is_bpe:
        return sum(encoder.tokenizer.count_tokens(t, num_threads=threads) for t in texts)
    return int(encoder.encode_flat(texts, None, threads)[1].sum())


def count_files(paths: Sequence[str | os.PathLike[str]], encoding: Any = "cl100k_base", *, field: str = "text",
                errors: str = "strict", num_threads: int | None = None) -> dict[str, int]:
    """Tokens per file (insertion order is the input order).

    Args:
        paths: text, JSONL or Parquet files.
        encoding: a name, a file (``.tiktoken``, ``.model``, ``tokenizer.json``), an `Encoding`,
            a `SentencePieceProcessor` or a `Tokenizer`.
        field: the JSONL key / Parquet column.
        errors: "strict", "skip" or "replace" (JSONL/Parquet: see `DocumentReader`).
        num_threads: threads (default: ``TOKENFORGE_NUM_THREADS``, else all usable cores).

    Raises:
        ValueError: bad input (file and line named).
        OSError: a file cannot be read.
    """
    encoder = as_encoder(encoding)
    threads = resolve_threads(num_threads)
    counts = {}
    for path in map(os.fspath, paths):
        if kind_of(path, False) in ("jsonl", "parquet"):
            reader = DocumentReader([path], field=field, errors=errors)
            counts[path] = sum(int(encoder.encode_flat(b.texts, None, threads)[1].sum()) for b in reader.blocks())
        else:
            with open(path, "rb") as f:
                counts[path] = count_stream(f, encoder, errors=errors, num_threads=threads, name=path)
    return counts
