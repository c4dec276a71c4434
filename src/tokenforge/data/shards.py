"""Token shards on disk: fixed-size ``.npy`` or raw ``.bin`` files written atomically, and
a per-shard document index.

A shard is streamed into a temporary file in the output folder and renamed to its final
name only when complete (`ShardFile`), so a reader or a resumed run never meets a torn
shard, and memory does not grow with the shard size.  ``.npy`` shards get a fixed
128-byte header, written last, once the length is known; ``.bin`` shards are the bare
little-endian ids (nanoGPT's ``train.bin`` layout).  Documents run on from one shard into
the next; ``docs_NNNNNN.npy`` beside ``shard_NNNNNN.*`` lists the documents that start in
that shard (`INDEX_DTYPE`), so a reader can seek to any document (`tokenforge.data.reader`).

Leaves out: when to cut a shard and what to resume from (`tokenforge.data.tokenize`).

Example:
    >>> import tempfile, numpy as np
    >>> d = tempfile.mkdtemp()
    >>> f = ShardFile(os.path.join(d, "shard_000000.npy"), np.uint16)
    >>> f.write(np.arange(5, dtype=np.uint32))
    >>> f.finish()
    >>> np.load(os.path.join(d, "shard_000000.npy")).tolist()
    [0, 1, 2, 3, 4]
"""

from __future__ import annotations

import os
import tempfile

import numpy as np

from tokenforge._files import file_mode_for, write_atomic

# One row per document: its first token's offset in the whole token stream, its token
# count (without the end-of-text id), its source file (a number into index.json's
# "sources") and its line (1-based) or row (Parquet, 0-based) there; 0 for a whole file.
INDEX_DTYPE = np.dtype([("start", "<u8"), ("tokens", "<u8"), ("source", "<u4"), ("record", "<u8")])
NPY_HEADER_BYTES = 128
TEMP_PREFIX = ".tmp-shard-"


def shard_name(k: int, fmt: str) -> str:
    """The file name of shard `k`.

    >>> shard_name(3, "npy"), docs_name(3)
    ('shard_000003.npy', 'docs_000003.npy')
    """
    return f"shard_{k:06d}.{fmt}"


def docs_name(k: int) -> str:
    """The file name of shard `k`'s document index."""
    return f"docs_{k:06d}.npy"


def npy_header(dtype: np.dtype, n: int) -> bytes:
    """A version 1.0 ``.npy`` header for a 1-d array of `n` items, padded to 128 bytes."""
    d = np.dtype(dtype)
    text = "{'descr': '%s', 'fortran_order': False, 'shape': (%d,), }" % (d.str, n)
    body = text.encode("latin1").ljust(NPY_HEADER_BYTES - 10 - 1) + b"\n"
    return b"\x93NUMPY\x01\x00" + len(body).to_bytes(2, "little") + body


def _named(e: OSError, path: str) -> OSError:
    """The error, naming `path` if it names nothing yet."""
    if e.filename is None:
        return type(e)(e.errno, e.strerror or str(e), path)
    return e


class ShardFile:
    """One shard being written: a temporary file renamed to `path` by `finish()`.

    Raises:
        OSError: the folder is not writable or the disk is full (naming the shard).
    """

    def __init__(self, path: str, dtype: np.dtype) -> None:
        self.path = path
        self.dtype = np.dtype(dtype).newbyteorder("<")
        self.npy = path.endswith(".npy")
        self.count = 0
        try:
            fd, self.tmp = tempfile.mkstemp(prefix=TEMP_PREFIX, dir=os.path.dirname(os.path.abspath(path)))
        except OSError as e:
            raise OSError(e.errno, f"cannot write shard: {e.strerror}", path) from None
        self.file = os.fdopen(fd, "wb")
        if self.npy:
            self._write(b"\0" * NPY_HEADER_BYTES)

    def write(self, ids: np.ndarray) -> None:
        """Appends ids (converted to the shard's dtype; they must fit it)."""
        self._write(np.ascontiguousarray(ids, dtype=self.dtype).data)
        self.count += len(ids)

    def _write(self, data) -> None:
        try:
            self.file.write(data)
        except OSError as e:
            self.abort()
            raise _named(e, self.path) from None

    def finish(self) -> None:
        """Completes the shard: header, flush, fsync, rename."""
        try:
            if self.npy:
                self.file.seek(0)
                self.file.write(npy_header(self.dtype, self.count))
            self.file.flush()
            os.fsync(self.file.fileno())
            os.fchmod(self.file.fileno(), file_mode_for(self.path))
            self.file.close()
            os.replace(self.tmp, self.path)
        except OSError as e:
            self.abort()
            raise _named(e, self.path) from None

    def abort(self) -> None:
        """Drops the temporary file."""
        try:
            self.file.close()
        except OSError:
            pass
        try:
            os.unlink(self.tmp)
        except OSError:
            pass


def write_docs(path: str, rows: list[np.ndarray]) -> None:
    """Writes a shard's document index atomically."""
    import io

    table = np.concatenate(rows) if rows else np.zeros(0, INDEX_DTYPE)
    buf = io.BytesIO()
    np.save(buf, table, allow_pickle=False)
    try:
        write_atomic(path, buf.getvalue())
    except OSError as e:
        raise _named(e, path) from None


def remove_temporaries(folder: str) -> None:
    """Deletes shards left half-written by an interrupted run."""
    for name in os.listdir(folder):
        if name.startswith(TEMP_PREFIX) or (name.startswith(".tmp-") and name.count(".") == 1):
            try:
                os.unlink(os.path.join(folder, name))
            except OSError:
                pass
