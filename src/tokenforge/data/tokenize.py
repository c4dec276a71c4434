"""Whole datasets to token shards: `tokenize_files`, behind ``tokenforge tokenize``.

The pipeline: a reader thread parses documents into blocks (`tokenforge.data.sources`);
the main thread encodes each block on native threads with the GIL released
(`TokenEncoder.encode_flat`), so parsing the next block overlaps encoding this one; the
ids, an end-of-text id after each document, stream into fixed-size shards
(`tokenforge.data.shards`).  Memory holds a few blocks, never a shard or the dataset.

Resuming: after each shard is renamed into place, a line appended to the run's journal
(`tokenforge.data.journal`) records where the next shard's first token comes from: a
document's position in its file and how many of its tokens the finished shards already hold;
``index.json`` is written whole when the run completes.  ``resume=True`` starts there, so
finished shards are not redone and every shard is byte for byte what an uninterrupted run
writes (encoding is deterministic).  Temporary files of a killed run are removed; a run is
only resumed with the same inputs and settings.

Leaves out: special tokens inside documents (ordinary text, as ``encode_ordinary``),
shuffling, train/validation splits.

Example:
    >>> import os, tempfile, tokenforge
    >>> from tokenforge import patterns
    >>> enc = tokenforge.Encoding("bytes", pat_str=patterns.GPT2, special_tokens={"<|endoftext|>": 256},
    ...                           mergeable_ranks={bytes([b]): b for b in range(256)})
    >>> d = tempfile.mkdtemp()
    >>> src = os.path.join(d, "docs.jsonl")
    >>> _ = open(src, "w").write('{"text": "hi"}\\n{"text": "yo"}\\n')
    >>> s = tokenize_files([src], os.path.join(d, "out"), encoding=enc, progress=False)
    >>> s.documents, s.tokens, s.shards
    (2, 6, 1)
    >>> import numpy as np
    >>> np.load(os.path.join(d, "out", "shard_000000.npy")).tolist()
    [104, 105, 256, 121, 111, 256]
"""

from __future__ import annotations

import dataclasses
import json
import os
import queue
import threading
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from tokenforge._threads import resolve_threads
from tokenforge.data import journal, shards
from tokenforge.data.encoders import BPE_EOT, TOKENIZER_JSON_EOT, TokenEncoder, as_encoder
from tokenforge.data.progress import Progress
from tokenforge.data.sources import Block, DocumentReader, Position

INDEX_FILE = journal.INDEX_FILE
DEFAULT_SHARD_SIZE = 100_000_000  # tokens, as nanoGPT's FineWeb script
DEFAULT_BLOCK_BYTES = 1 << 23


@dataclasses.dataclass
class Summary:
    """What a run did (totals include shards finished by an earlier, resumed run)."""

    documents: int
    tokens: int
    bytes: int
    skipped: int
    replaced: int
    shards: int
    seconds: float
    output: str


def pick_dtype(dtype: Any, largest_id: int) -> np.dtype:
    """uint16 when every id fits, else uint32; a given dtype is checked.

    >>> pick_dtype(None, 50256), pick_dtype(None, 100276)
    (dtype('uint16'), dtype('uint32'))
    """
    if dtype is None:
        return np.dtype(np.uint16 if largest_id < 1 << 16 else np.uint32)
    d = np.dtype(dtype)
    if d not in (np.dtype(np.uint16), np.dtype(np.uint32)):
        raise ValueError(f"dtype must be uint16 or uint32, not {d}")
    if largest_id > np.iinfo(d).max:
        raise ValueError(f"ids up to {largest_id} do not fit {d}; use uint32")
    return d


def resolve_eot(encoder: TokenEncoder, eot: Any) -> int | None:
    """The separator id: "default" (the encoding's end-of-text), None, an id or a token's text.

    Raises:
        ValueError: "default" for an encoding that holds no end-of-text token (a rank file
            without its special tokens, a SentencePiece model without EOS, a tokenizer.json
            without one of `TOKENIZER_JSON_EOT`: the encoding named, so that documents are
            never run together unasked), or a token text the encoding does not hold.
    """
    if eot == "default":
        if encoder.default_eot is None:
            held = (f"among its special tokens ({', '.join(TOKENIZER_JSON_EOT)})" if encoder.kind == "tokenizer.json"
                    else f"({' or '.join(BPE_EOT)})" if encoder.is_bpe else "(its EOS piece)")
            raise ValueError(f"{encoder.name}: no end-of-text token {held}; give eot / --eot ID|TOKEN, or none "
                             "to write the documents without a separator")
        return encoder.default_eot
    if eot is None or eot == "none":
        return None
    if isinstance(eot, int) or (isinstance(eot, str) and eot.isdigit()):
        # An id past the vocabulary is taken as given: a rank file without its special tokens
        # (Llama 3's .tiktoken) still has a model whose end-of-text id the user knows.
        value = int(eot)
        if not 0 <= value < 1 << 32:
            raise ValueError(f"eot id {value} is not a 32-bit token id")
        return value
    return encoder.token_id(str(eot))


def tokenize_files(
    inputs: Sequence[str | os.PathLike[str]],
    output: str | os.PathLike[str],
    *,
    encoding: Any = "cl100k_base",
    pattern: str | None = None,
    by_line: bool = False,
    field: str = "text",
    fmt: str = "npy",
    dtype: Any = None,
    eot: Any = "default",
    shard_size: int = DEFAULT_SHARD_SIZE,
    errors: str = "strict",
    resume: bool = False,
    num_threads: int | None = None,
    progress: bool = True,
    block_bytes: int = DEFAULT_BLOCK_BYTES,
) -> Summary:
    """Encodes files of documents into token shards in `output`.

    Args:
        inputs: text files (each a document, or each line with `by_line`), JSONL files
            (``.jsonl``/``.ndjson``/``.json``: the `field` of each line) and Parquet files
            (``.parquet``: the `field` column; needs pyarrow).
        output: the folder for ``shard_NNNNNN.{npy,bin}``, ``docs_NNNNNN.npy`` and
            ``index.json`` (with ``index.journal`` until the run completes); it must not hold
            a run already unless `resume`.
        encoding: an encoding name, a ``.tiktoken``/``.model``/``tokenizer.json`` file, an
            `Encoding`, a `SentencePieceProcessor` or a `Tokenizer`.
        pattern: the split pattern for a ``.tiktoken`` file of no registered name.
        fmt: ``"npy"`` or ``"bin"`` (raw little-endian ids).
        dtype: ``"uint16"``/``"uint32"``; default: the smallest that holds every id.
        eot: the id put after each document: ``"default"`` (the encoding's end-of-text,
            SentencePiece's EOS, a tokenizer.json's ``<|endoftext|>`` or ``</s>``: one without
            such a token needs an explicit `eot`), None for none, an id, or a token's text.
        shard_size: tokens per shard (the last one may hold fewer).
        errors: ``"strict"``, ``"skip"`` or ``"replace"`` (see `tokenforge.data.sources`).
        resume: continue an interrupted run in `output`.
        num_threads: encoding threads (default: ``TOKENFORGE_NUM_THREADS``, else all usable cores).
        progress: draw a progress line on stderr.
        block_bytes: input bytes read and encoded at a time (memory is a few blocks).

    Returns:
        The totals.

    Raises:
        ValueError: bad arguments, bad input under ``errors="strict"`` (file and line
            named), or a resume whose inputs or settings differ.
        OSError: an input cannot be read or the output cannot be written (path named).
        ImportError: Parquet input without pyarrow.
    """
    started = time.monotonic()
    if fmt not in ("npy", "bin"):
        raise ValueError(f"fmt must be npy or bin, not {fmt!r}")
    if not isinstance(shard_size, int) or shard_size < 1:
        raise ValueError(f"shard_size must be a positive number of tokens, not {shard_size!r}")
    paths = [os.path.abspath(os.fspath(p)) for p in inputs]
    if not paths:
        raise ValueError("no input files")
    for p in paths:
        if not os.path.isfile(p):
            raise OSError(2, "no such input file", p)
    encoder = as_encoder(encoding, pattern)
    separator = resolve_eot(encoder, eot)
    largest = max(encoder.n_vocab - 1, separator if separator is not None else 0)
    out_dtype = pick_dtype(dtype, largest)
    threads = resolve_threads(num_threads)
    out = os.path.abspath(os.fspath(output))
    settings = {
        "encoding": _encoding_label(encoding, encoder),
        "encoding_file": _file_stamp(encoding),
        "pattern": pattern,
        "n_vocab": encoder.n_vocab,
        "eot": separator,
        "dtype": out_dtype.name,
        "format": fmt,
        "shard_size": shard_size,
        "by_line": by_line,
        "field": field,
        "errors": errors,
        "sources": [[p, os.path.getsize(p), os.stat(p).st_mtime_ns] for p in paths],
    }
    state, keep = _start(out, settings, resume)
    reader = DocumentReader(paths, by_line=by_line, field=field, errors=errors)
    bar = Progress(reader.total_bytes(), progress)
    done = state["stats"]
    bar.update(done["bytes"], done["documents"], state["tokens"])
    bar.base_bytes = done["bytes"]
    if state["complete"]:
        bar.close()
        return _summary(state, out, started)
    reader.stats.__dict__.update({k: done[k] for k in ("bytes", "documents", "skipped", "replaced")})
    writer = _Writer(out, state, settings, separator is not None, keep)
    blocks = _Prefetch(reader.blocks(Position(**state["position"]), block_bytes))
    skip = state["skip"]
    try:
        for block in blocks:
            ids, counts = encoder.encode_flat(block.texts, separator, threads)
            writer.add(ids, counts, block, skip)
            skip = 0
            bar.update(block.nbytes, len(block.texts), len(ids))
        writer.close(reader.stats)
    except BaseException:
        blocks.stop()
        writer.abort()
        # An interrupt may land between a temporary file's creation and the cleanup that
        # guards it (write_atomic's mkstemp, a shard's): nothing half-written is left behind.
        shards.remove_temporaries(out)
        bar.close()
        raise
    bar.close()
    return _summary(writer.state, out, started)


def _encoding_label(encoding: Any, encoder: TokenEncoder) -> str:
    if isinstance(encoding, (str, os.PathLike)):
        spec = os.fspath(encoding)
        return os.path.abspath(spec) if os.path.exists(spec) else spec
    return encoder.name


def _file_stamp(encoding: Any) -> list | None:
    """(size, mtime) of an encoding given as a file, so that a resume with the file changed
    in place is refused; None otherwise."""
    if isinstance(encoding, (str, os.PathLike)) and os.path.isfile(encoding):
        st = os.stat(encoding)
        return [st.st_size, st.st_mtime_ns]
    return None


def _summary(state: dict, out: str, started: float) -> Summary:
    s = state["stats"]
    return Summary(s["documents"], state["tokens"], s["bytes"], s["skipped"], s["replaced"], len(state["shards"]),
                   time.monotonic() - started, out)


def _start(out: str, settings: dict, resume: bool) -> tuple[dict, int]:
    """The state to start from, a fresh one or the saved one of the run to resume, and how
    many bytes of the saved run's journal to keep (`tokenforge.data.journal`)."""
    index = os.path.join(out, INDEX_FILE)
    try:
        os.makedirs(out, exist_ok=True)
    except OSError as e:
        raise OSError(e.errno, f"cannot create the output folder: {e.strerror}", out) from None
    if os.path.exists(index):
        if not resume:
            raise ValueError(f"{out} already holds a tokenized dataset ({INDEX_FILE}); use resume / --resume, or another folder")
        state, keep = journal.read_state(out)
        saved, now = state.get("settings") or {}, json.loads(json.dumps(settings))
        if saved != now:
            differ = sorted(k for k in set(saved) | set(now) if saved.get(k) != now.get(k))
            raise ValueError(f"{index}: the run there used other inputs or settings ({', '.join(differ)} differ); "
                             "cannot resume it with these")
        shards.remove_temporaries(out)
        if state["complete"]:  # a kill between the final index and the journal's removal left it
            journal.remove(out)
        return state, keep
    shards.remove_temporaries(out)  # a run killed inside its first shard left no index, only its temporary
    return {
        "format": "tokenforge-shards",
        "version": 1,
        "settings": settings,
        "sources": [s[0] for s in settings["sources"]],
        "shards": [],
        "tokens": 0,
        "position": dataclasses.asdict(Position()),
        "skip": 0,
        "stats": {"bytes": 0, "documents": 0, "skipped": 0, "replaced": 0},
        "complete": False,
    }, 0


class _Writer:
    """Cuts the token stream into shards and records each finished one in the journal."""

    def __init__(self, out: str, state: dict, settings: dict, with_eot: bool, keep: int) -> None:
        self.out = out
        self.state = state
        self.fmt = settings["format"]
        self.dtype = np.dtype(settings["dtype"])
        self.shard_size = settings["shard_size"]
        self.with_eot = with_eot
        self.journal = journal.Journal(out, keep)
        self.total = state["tokens"]  # tokens in finished shards and the open one
        self.file: shards.ShardFile | None = None
        self.rows: list[np.ndarray] = []  # index rows of documents not yet in a finished shard, in order

    def add(self, ids: np.ndarray, counts: np.ndarray, block: Block, skip: int) -> None:
        lengths = counts.astype(np.int64) + (1 if self.with_eot else 0)
        ends = np.cumsum(lengths) + (self.total - skip)
        starts = ends - lengths
        rows = np.zeros(len(counts), shards.INDEX_DTYPE)
        rows["start"], rows["tokens"], rows["source"], rows["record"] = starts, counts, block.sources, block.records
        self.rows.append(rows[1:] if skip else rows)
        ids = ids[skip:]
        at = 0
        while at < len(ids):
            if self.file is None:
                k = len(self.state["shards"])
                self.file = shards.ShardFile(os.path.join(self.out, shards.shard_name(k, self.fmt)), self.dtype)
            take = min(self.shard_size - self.file.count, len(ids) - at)
            self.file.write(ids[at:at + take])
            at += take
            self.total += take
            if self.file.count == self.shard_size:
                self._finish_shard(self._resume_point(self.total, block, starts, ends))

    def _resume_point(self, boundary: int, block: Block, starts: np.ndarray, ends: np.ndarray) -> dict:
        """Where the token at `boundary` comes from: (position, skip, stats).

        That is the first document ending past `boundary` or starting at or past it (an
        empty one, without eot); `starts` and `ends` do not decrease, so a binary search
        finds it and a block cut into many shards costs a search per shard."""
        j = min(int(np.searchsorted(ends, boundary, side="right")), int(np.searchsorted(starts, boundary, side="left")))
        if j < len(ends):
            position = {"source": int(block.sources[j]), "offset": int(block.starts[j]), "record": int(block.records[j])}
            return {"position": position, "skip": int(max(0, boundary - starts[j])), "stats": _stats(block.before[j])}
        position = {"source": int(block.sources[-1]), "offset": int(block.ends[-1]), "record": int(block.records[-1]) + 1}
        return {"position": position, "skip": 0, "stats": _stats(block.after[-1])}

    def _take_rows(self, resume: dict | None) -> np.ndarray:
        """The pending rows of documents that start in the shard being finished (all of them
        for the last shard); each pending array is split at most once per shard."""
        if resume is None:
            taken, self.rows = self.rows, []
        else:
            taken = []
            while self.rows:
                rows = self.rows[0]
                cut = int(np.searchsorted(rows["start"], self.total, side="left"))
                taken.append(rows[:cut])
                if cut < len(rows):
                    self.rows[0] = rows[cut:]
                    break
                self.rows.pop(0)
        return np.concatenate(taken) if taken else np.zeros(0, shards.INDEX_DTYPE)

    def _finish_shard(self, resume: dict | None) -> None:
        k = len(self.state["shards"])
        rows = self._take_rows(resume)
        shards.write_docs(os.path.join(self.out, shards.docs_name(k)), [rows])
        count = self.file.count if self.file is not None else 0
        if self.file is not None:
            self.file.finish()
            self.file = None
        entry = {"file": shards.shard_name(k, self.fmt), "docs": shards.docs_name(k), "tokens": count,
                 "documents": len(rows)}
        if resume is not None:
            self.journal.record(self.state, journal.shard_entry(k, entry, self.total, **resume))
        else:  # the last shard: the final index says it all
            self.state["shards"].append(entry)
            self.state["tokens"] = self.total

    def close(self, stats: Any) -> None:
        """Finishes the last shard and marks the run complete."""
        if self.file is not None or not self.state["shards"] or any(len(r) for r in self.rows):
            if self.file is None:
                k = len(self.state["shards"])
                self.file = shards.ShardFile(os.path.join(self.out, shards.shard_name(k, self.fmt)), self.dtype)
            self._finish_shard(None)
        self.state["complete"] = True
        self.state["stats"] = dataclasses.asdict(stats)
        self.journal.finish(self.state)

    def abort(self) -> None:
        if self.file is not None:
            self.file.abort()
            self.file = None
        self.journal.close()


def _stats(row: np.ndarray) -> dict:
    return dict(zip(("bytes", "documents", "skipped", "replaced"), (int(v) for v in row)))


class _Prefetch:
    """Iterates `blocks` on a helper thread, at most two blocks ahead."""

    _END = object()

    def __init__(self, blocks) -> None:
        self._queue: queue.Queue = queue.Queue(maxsize=2)
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(blocks,), daemon=True)
        self._thread.start()

    def _run(self, blocks) -> None:
        try:
            for block in blocks:
                while not self._stopped.is_set():
                    try:
                        self._queue.put(block, timeout=0.1)
                        break
                    except queue.Full:
                        pass
                if self._stopped.is_set():
                    return
            self._queue.put(self._END)
        except BaseException as e:  # handed to the consumer
            self._queue.put(e)

    def __iter__(self):
        while True:
            item = self._queue.get()
            if item is self._END:
                return
            if isinstance(item, BaseException):
                raise item
            yield item

    def stop(self) -> None:
        self._stopped.set()
