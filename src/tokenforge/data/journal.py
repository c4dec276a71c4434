"""The record of a tokenize run on disk: ``index.json`` and a journal of finished shards.

``index.json`` is the run's state (settings, sources, shards, where to resume, totals).  It is
written atomically twice: when the first shard is finished (the state before it) and when the
run completes (the whole state).  In between, each finished shard appends one JSON line to
``index.journal`` (`Journal.record`): the shard's entry and the resume point after it.  So the
bookkeeping of a shard costs the same whatever the number of shards before it, where
rewriting ``index.json`` after each shard grows with their number.

`read_state` gives ``index.json`` with the journal's entries applied: what a resumed run starts
from and what a reader of an unfinished run lists.  A line cut short by a kill (no newline
yet), or anything after it, is ignored, and a resumed run cuts it off before appending; that
shard is simply written again.  Entries are numbered, and one the index already holds (a
journal left beside a completed index by a kill before its removal) is skipped, so applying
a journal twice changes nothing.  An ``index.json`` of an earlier version, rewritten after
every shard and with no journal beside it, reads as before.

Example:
    >>> import tempfile
    >>> d = tempfile.mkdtemp()
    >>> state = {"shards": [], "tokens": 0, "position": {}, "skip": 0, "stats": {}, "complete": False}
    >>> j = Journal(d, 0)
    >>> j.record(state, shard_entry(0, {"file": "shard_000000.npy"}, 8, {"source": 0}, 0, {"bytes": 5}))
    >>> j.close()
    >>> read_state(d)[0]["shards"], state["tokens"]
    ([{'file': 'shard_000000.npy'}], 8)
"""

from __future__ import annotations

import json
import os

from tokenforge._files import write_atomic

INDEX_FILE = "index.json"
JOURNAL_FILE = "index.journal"
_RESUME_KEYS = ("tokens", "position", "skip", "stats")


def shard_entry(k: int, shard: dict, tokens: int, position: dict, skip: int, stats: dict) -> dict:
    """A journal entry: shard `k`'s index entry, and the tokens so far and resume point after it."""
    return {"n": k, "shard": shard, "tokens": tokens, "position": position, "skip": skip, "stats": stats}


def apply(state: dict, entry: dict) -> bool:
    """Adds a journal entry to `state`; False (and `state` unchanged) when the entry is not
    the next shard's."""
    k = entry.get("n") if isinstance(entry, dict) else None
    if k != len(state["shards"]) or not all(key in entry for key in ("shard", *_RESUME_KEYS)):
        return False
    state["shards"].append(entry["shard"])
    state.update({key: entry[key] for key in _RESUME_KEYS})
    return True


def read_state(folder: str) -> tuple[dict, int]:
    """(state, journal bytes to keep): ``index.json`` with the journal's finished shards
    applied, and the length of the journal's lines that were applied or already held.

    Raises:
        OSError: no ``index.json`` in `folder` (the path named).
        ValueError: ``index.json`` is not a tokenforge index (the path named).
    """
    path = os.path.join(folder, INDEX_FILE)
    with open(path, encoding="utf-8") as f:
        try:
            state = json.load(f)
        except json.JSONDecodeError as e:
            raise ValueError(f"{path}: not a tokenforge index ({e})") from None
    if not isinstance(state, dict) or not isinstance(state.get("shards"), list):
        raise ValueError(f"{path}: not a tokenforge index (no shard list)")
    if state.get("complete"):
        return state, 0
    return state, _replay(os.path.join(folder, JOURNAL_FILE), state)


def _replay(path: str, state: dict) -> int:
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        return 0
    kept = 0
    for line in data.split(b"\n")[:-1]:  # what follows the last newline was cut short
        try:
            entry = json.loads(line)
        except ValueError:
            break
        held = isinstance(entry, dict) and isinstance(entry.get("n"), int) and entry["n"] < len(state["shards"])
        if not held and not apply(state, entry):
            break
        kept += len(line) + 1
    return kept


def remove(folder: str) -> None:
    """Deletes `folder`'s journal, if there is one (a completed run's is folded into its index)."""
    try:
        os.unlink(os.path.join(folder, JOURNAL_FILE))
    except FileNotFoundError:
        pass


class Journal:
    """Appends finished shards to `folder`'s journal, after the first `keep` bytes of it
    (`read_state`'s count; 0 for a new run, which drops a stale journal).

    Raises:
        OSError: the journal or index cannot be written (the path named).
    """

    def __init__(self, folder: str, keep: int) -> None:
        self.folder = folder
        self.path = os.path.join(folder, JOURNAL_FILE)
        self.keep = keep
        self.file = None

    def record(self, state: dict, entry: dict) -> None:
        """Saves `entry` (flushed and synced), then applies it to `state`.  The run's first
        record writes ``index.json`` first, holding `state` as it was before the entry."""
        try:
            if self.file is None:
                if not os.path.exists(os.path.join(self.folder, INDEX_FILE)):
                    self._write_index(state)
                self.file = open(self.path, "ab")
                self.file.truncate(self.keep)
            self.file.write(json.dumps(entry, separators=(",", ":")).encode("utf-8") + b"\n")
            self.file.flush()
            os.fsync(self.file.fileno())
        except OSError as e:
            raise OSError(e.errno, e.strerror, e.filename or self.path) from None
        if not apply(state, entry):
            raise ValueError(f"{self.path}: entry {entry.get('n')} does not follow shard {len(state['shards'])}")

    def finish(self, state: dict) -> None:
        """Writes the whole `state` to ``index.json`` and removes the journal."""
        self._write_index(state)
        self.close()
        remove(self.folder)

    def close(self) -> None:
        if self.file is not None:
            self.file.close()
            self.file = None

    def _write_index(self, state: dict) -> None:
        path = os.path.join(self.folder, INDEX_FILE)
        try:
            write_atomic(path, json.dumps(state, indent=1).encode("utf-8"))
        except OSError as e:
            raise OSError(e.errno, e.strerror, path) from None
