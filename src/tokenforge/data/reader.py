"""Reading a tokenized folder back: each shard memory-mapped, and any document by number.

Example:
    >>> import os, tempfile, tokenforge
    >>> from tokenforge import patterns
    >>> from tokenforge.data import tokenize_files
    >>> enc = tokenforge.Encoding("bytes", pat_str=patterns.GPT2, special_tokens={"<|endoftext|>": 256},
    ...                           mergeable_ranks={bytes([b]): b for b in range(256)})
    >>> d = tempfile.mkdtemp()
    >>> src = os.path.join(d, "a.txt")
    >>> _ = open(src, "w").write("ab\\ncd\\n")
    >>> _ = tokenize_files([src], os.path.join(d, "out"), encoding=enc, by_line=True, shard_size=4, progress=False)
    >>> ds = TokenDataset(os.path.join(d, "out"))
    >>> len(ds), ds.document(1).tolist(), ds.source_of(1)
    (2, [99, 100], (..., 2))
"""

from __future__ import annotations

import os

import numpy as np

from tokenforge.data import journal, shards


class TokenDataset:
    """A folder written by `tokenforge.data.tokenize_files` (finished shards only, if the
    run is incomplete)."""

    def __init__(self, folder: str | os.PathLike[str]) -> None:
        """Opens the folder (an unfinished run's shards are those its journal lists too).

        Raises:
            OSError: no ``index.json`` there.
            ValueError: ``index.json`` is not a tokenforge index.
        """
        self.folder = os.fspath(folder)
        self.index = journal.read_state(self.folder)[0]
        settings = self.index["settings"]
        self.dtype = np.dtype(settings["dtype"])
        self.shard_size = settings["shard_size"]
        self.eot = settings["eot"]
        self.sources = self.index["sources"]
        self.complete = self.index["complete"]
        self._shards = [self._open(s["file"]) for s in self.index["shards"]]
        tables = [np.load(os.path.join(self.folder, s["docs"])) for s in self.index["shards"]]
        docs = np.concatenate(tables) if tables else np.zeros(0, shards.INDEX_DTYPE)
        self.total = sum(len(s) for s in self._shards)  # ids in the finished shards
        # An unfinished run's last listed document may go on into the shard not written yet.
        self.docs = docs[docs["start"] + docs["tokens"] <= self.total]

    def _open(self, name: str) -> np.ndarray:
        path = os.path.join(self.folder, name)
        if name.endswith(".npy"):
            return np.load(path, mmap_mode="r")
        return np.memmap(path, dtype=self.dtype.newbyteorder("<"), mode="r")

    @property
    def shards(self) -> list[np.ndarray]:
        """The shards' ids (memory-mapped)."""
        return self._shards

    def __len__(self) -> int:
        return len(self.docs)

    def tokens(self, start: int, count: int) -> np.ndarray:
        """`count` ids of the whole stream from offset `start` (across shards).

        Raises:
            IndexError: the range is not inside the finished shards' ids.
        """
        if start < 0 or count < 0 or start + count > self.total:
            raise IndexError(f"tokens [{start}, {start + count}) are not inside the {self.total} ids of the "
                             f"finished shards of {self.folder}")
        parts = []
        while count > 0:
            k, at = divmod(start, self.shard_size)
            piece = self._shards[k][at:at + count]
            parts.append(piece)
            start += len(piece)
            count -= len(piece)
        return np.concatenate(parts) if parts else np.zeros(0, self.dtype)

    def document(self, i: int) -> np.ndarray:
        """The ids of document `i` (without the end-of-text id)."""
        row = self.docs[i]
        return self.tokens(int(row["start"]), int(row["tokens"]))

    def source_of(self, i: int) -> tuple[str, int]:
        """(file, line or row) document `i` came from."""
        row = self.docs[i]
        return self.sources[int(row["source"])], int(row["record"])
