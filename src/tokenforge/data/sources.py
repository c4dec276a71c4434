"""Documents out of files: whole text files, text lines, JSONL records and Parquet rows.

A reader yields `Block`s of documents of about `block_bytes` input bytes, each document
with where it came from (source number, line or row, byte offsets), so a writer can index
it and an interrupted run can start again at any document (`Position`).  Bad input
(invalid UTF-8, a line that is not JSON, a missing or non-string field) raises a
`ValueError` naming the file and line, or, with ``errors="skip"``/``"replace"``, is counted
in `ReadStats`: ``replace`` decodes invalid UTF-8 as U+FFFD; records that cannot be read
at all (bad JSON, no field) are skipped under both.  A UTF-8 byte order mark at the start of
a text or JSONL file is dropped, as Python's ``"utf-8-sig"`` does; anywhere else it is text
(U+FEFF).

Leaves out: compressed inputs and remote files (decompress or download first); a whole
text file is one document, read at once, so it must fit in memory.

Example:
    >>> import os, tempfile
    >>> d = tempfile.mkdtemp()
    >>> p = os.path.join(d, "a.jsonl")
    >>> _ = open(p, "w").write('{"text": "hi"}\\n{"text": "there"}\\n')
    >>> block = next(DocumentReader([p]).blocks())
    >>> block.texts, block.records.tolist()
    (['hi', 'there'], [1, 2])
"""

from __future__ import annotations

import codecs
import dataclasses
import json
import os
from collections.abc import Iterator, Sequence

import numpy as np

JSONL_SUFFIXES = (".jsonl", ".ndjson", ".json")
UTF8_BOM = codecs.BOM_UTF8  # dropped at the start of a text or JSONL file only, as "utf-8-sig" does
PARQUET_SUFFIXES = (".parquet", ".pq")


@dataclasses.dataclass(frozen=True)
class Position:
    """Where reading starts: source number, byte offset (row for Parquet) and record number
    (1-based line for line formats, 0-based row for Parquet).  A whole file is one document:
    record 0 (offset 0) is before it, record 1 (offset its size) past it, which an empty
    file's offset alone cannot tell apart."""

    source: int = 0
    offset: int = 0
    record: int = 0


@dataclasses.dataclass
class ReadStats:
    """What was read, and what bad input was skipped or repaired.

    `bytes` counts input bytes as the files hold them: a text or JSONL record its bytes on
    disk, a Parquet row its share of the file's size (the file's size spread over its rows),
    so that, read to the end, it is the inputs' total size (`DocumentReader.total_bytes`)."""

    bytes: int = 0
    documents: int = 0
    skipped: int = 0
    replaced: int = 0


@dataclasses.dataclass
class Block:
    """Documents read together; arrays are per document."""

    texts: list[str]
    sources: np.ndarray  # uint32: index into the reader's paths
    records: np.ndarray  # uint64: line (1-based) or row
    starts: np.ndarray  # uint64: byte offset (row for Parquet) of the document
    ends: np.ndarray  # uint64: where the next document of the same source starts
    before: np.ndarray  # uint64 (n, 4): ReadStats (bytes, documents, skipped, replaced) before the document
    after: np.ndarray  # uint64 (n, 4): the same just after it
    nbytes: int  # input bytes consumed, skipped records included


def kind_of(path: str, by_line: bool) -> str:
    """``"jsonl"``, ``"parquet"``, ``"lines"`` or ``"text"`` from the file name.

    >>> kind_of("a.jsonl", False), kind_of("b.parquet", False), kind_of("c.txt", True), kind_of("c.txt", False)
    ('jsonl', 'parquet', 'lines', 'text')
    """
    lower = path.lower()
    if lower.endswith(JSONL_SUFFIXES):
        return "jsonl"
    if lower.endswith(PARQUET_SUFFIXES):
        return "parquet"
    return "lines" if by_line else "text"


class DocumentReader:
    """Reads documents from files in order.

    Args:
        paths: input files; the kind of each comes from its name (see `kind_of`).
        by_line: text files hold one document per line (empty lines are not documents).
        field: the JSONL key / Parquet column holding the text.
        errors: ``"strict"`` (raise), ``"skip"`` or ``"replace"``.
    """

    def __init__(self, paths: Sequence[str], *, by_line: bool = False, field: str = "text", errors: str = "strict") -> None:
        if errors not in ("strict", "skip", "replace"):
            raise ValueError(f"errors must be strict, skip or replace, not {errors!r}")
        self.paths = [os.fspath(p) for p in paths]
        self.kinds = [kind_of(p, by_line) for p in self.paths]
        self.field = field
        self.errors = errors
        self.stats = ReadStats()
        self._pending_replaced = 0  # set by _decode for the record being read

    def _snapshot(self) -> tuple[int, int, int, int]:
        s = self.stats
        return (s.bytes, s.documents, s.skipped, s.replaced)

    def total_bytes(self) -> int:
        """The inputs' total size: what `stats.bytes` ends at (for progress)."""
        return sum(os.path.getsize(p) for p in self.paths)

    def blocks(self, start: Position = Position(), block_bytes: int = 1 << 22) -> Iterator[Block]:
        """Blocks of about `block_bytes` input bytes (or characters of text, whichever is
        more: a compressed Parquet row holds more text than its share of the file), from
        `start` on.

        Raises:
            ValueError: bad input under errors="strict" (file and line named).
            OSError: a file cannot be read.
        """
        acc = _Accumulator()
        for index in range(start.source, len(self.paths)):
            offset, record = (start.offset, start.record) if index == start.source else (0, 0)
            kind = self.kinds[index]
            reader = {"jsonl": self._lines, "lines": self._lines, "text": self._whole, "parquet": self._parquet}[kind]
            for text, rec, begin, end, nbytes in reader(index, offset, record):
                before = self._snapshot()
                self.stats.bytes += nbytes
                self.stats.replaced += self._pending_replaced
                self._pending_replaced = 0
                acc.nbytes += nbytes
                if text is not None:
                    self.stats.documents += 1
                    acc.add(text, index, rec, begin, end, before, self._snapshot())
                if acc.nbytes >= block_bytes or acc.chars >= block_bytes:
                    yield acc.take()
        if acc.nbytes or acc.texts:
            yield acc.take()

    # Each reader yields (text or None when skipped, record, start, end, input bytes).

    def _whole(self, index: int, offset: int, record: int):
        path = self.paths[index]
        if record > 0 or offset > 0:  # past the file's document
            return
        with open(path, "rb") as f:
            data = f.read()
        lead = len(UTF8_BOM) if data.startswith(UTF8_BOM) else 0
        yield self._decode(data[lead:], path, None, lead), 0, 0, len(data), len(data)

    def _lines(self, index: int, offset: int, record: int):
        path, jsonl = self.paths[index], self.kinds[index] == "jsonl"
        line_no = record or 1
        with open(path, "rb") as f:
            f.seek(offset)
            pos = offset
            for raw in f:
                begin, pos = pos, pos + len(raw)
                body = raw.rstrip(b"\r\n") if jsonl else raw[:-1] if raw.endswith(b"\n") else raw
                if not jsonl and body.endswith(b"\r"):
                    body = body[:-1]
                lead = len(UTF8_BOM) if begin == 0 and body.startswith(UTF8_BOM) else 0
                body = body[lead:]
                text = None
                if body.strip() if jsonl else body:
                    text = self._decode(body, path, line_no, lead)
                    if text is not None and jsonl:
                        text = self._field(text, path, line_no)
                yield text, line_no, begin, pos, len(raw)
                line_no += 1

    def _parquet(self, index: int, offset: int, record: int):
        try:
            import pyarrow.parquet as pq
        except ImportError:
            raise ImportError("reading Parquet needs pyarrow: pip install 'tokenforge[parquet]'") from None
        path = self.paths[index]
        try:
            pf = pq.ParquetFile(path)
        except ValueError as e:  # pyarrow's ArrowInvalid: not a Parquet file
            raise ValueError(f"{path}: not a readable Parquet file ({e})") from None
        except OSError as e:
            raise OSError(e.errno, f"cannot read the Parquet file ({e})", path) from None
        if self.field not in pf.schema_arrow.names:
            raise ValueError(f"{path}: no column {self.field!r} (columns: {', '.join(pf.schema_arrow.names)})")
        size, rows = os.path.getsize(path), pf.metadata.num_rows
        if rows == 0:
            if offset == 0:
                yield None, 0, 0, 0, size  # no document, but the file is read
            return
        row = 0
        for batch in pf.iter_batches(batch_size=4096, columns=[self.field]):
            values = batch.column(0).to_pylist()
            for k in range(max(0, offset - row), len(values)):
                r, text = row + k, values[k]
                if not isinstance(text, str):
                    text = self._bad(f"{path}: row {r}: column {self.field!r} is {type(values[k]).__name__}, not a string")
                yield text, r, r, r + 1, size * (r + 1) // rows - size * r // rows
            row += len(values)

    def _decode(self, data: bytes, path: str, line: int | None, lead: int = 0) -> str | None:
        """`data` as text; `lead` bytes (a byte order mark) came before it in the line or file."""
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as e:
            where = f"{path}:{line}" if line is not None else path
            if self.errors == "replace":
                self._pending_replaced += 1
                return data.decode("utf-8", "replace")
            return self._bad(f"{where}: not UTF-8 (byte {lead + e.start} of the {'line' if line else 'file'}: "
                             f"{data[e.start:e.start + 4]!r}); use errors='replace' or 'skip'")

    def _field(self, line: str, path: str, line_no: int) -> str | None:
        try:
            record = json.loads(line)
        except json.JSONDecodeError as e:
            return self._bad(f"{path}:{line_no}: not a JSON line ({e.msg} at column {e.colno})")
        if not isinstance(record, dict) or self.field not in record:
            return self._bad(f"{path}:{line_no}: no field {self.field!r}")
        value = record[self.field]
        if not isinstance(value, str):
            return self._bad(f"{path}:{line_no}: field {self.field!r} is {type(value).__name__}, not a string")
        return value

    def _bad(self, message: str) -> None:
        if self.errors == "strict":
            raise ValueError(message)
        self.stats.skipped += 1
        return None


class _Accumulator:
    def __init__(self) -> None:
        self.texts: list[str] = []
        self.meta: list[tuple[int, ...]] = []
        self.nbytes = 0
        self.chars = 0

    def add(self, text: str, source: int, record: int, begin: int, end: int, before: tuple, after: tuple) -> None:
        self.texts.append(text)
        self.chars += len(text)
        self.meta.append((source, record, begin, end, *before, *after))

    def take(self) -> Block:
        m = np.array(self.meta, dtype=np.uint64).reshape(-1, 12)
        block = Block(self.texts, m[:, 0].astype(np.uint32), m[:, 1], m[:, 2], m[:, 3], m[:, 4:8], m[:, 8:12],
                      self.nbytes)
        self.__init__()
        return block
