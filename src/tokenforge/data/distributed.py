"""Encoding on many machines or processes without a scheduler of our own: Ray Data and
HF ``datasets``.

`RayEncoder` is a callable class for ``ray.data.Dataset.map_batches``: Ray builds one per
actor, each holding one tokenizer, loaded in the actor from a name or file (`EncodingRef`)
so only that string crosses the wire.  `ray_encode` wires it up.  `hf_encode` does the same
for ``datasets.Dataset.map(batched=True, num_proc=N)``: the mapper pickles as its
`EncodingRef` (and so hashes stably for ``datasets``' cache) and loads the tokenizer once
per process.  Rows get their ids (uint32) and their count; ids are those of a plain loop of
``encode_ordinary`` (plus the end-of-text id when `eot` is given).

Leaves out: writing shards from a cluster (use Ray's writers on the result, or
`tokenforge.data.tokenize_files` per machine).

Example (the Ray part runs in tests/unit/data/test_distributed.py; it needs ``ray[data]``):
    >>> m = RayEncoder("cl100k_base", column="text")
    >>> m.ref
    EncodingRef(spec='cl100k_base', pattern=None)
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from tokenforge.data.encoders import EncodingRef, TokenEncoder, as_encoder


def _ref(encoding: Any, pattern: str | None = None) -> "EncodingRef | Any":
    """What to ship to workers: an `EncodingRef` for a name or a path, or for an encoding
    the registry holds; any other tokenizer object is shipped as itself (its tables)."""
    if isinstance(encoding, EncodingRef):
        return encoding
    if isinstance(encoding, (str, os.PathLike)):
        spec = os.fspath(encoding)
        return EncodingRef(os.path.abspath(spec) if os.path.exists(spec) else spec, pattern)
    from tokenforge import registry
    from tokenforge.core import Encoding

    if isinstance(encoding, Encoding) and registry._registered(encoding.name) is encoding:
        return EncodingRef(encoding.name)
    return encoding


class _Mapper:
    """Shared by the Ray and datasets mappers: a batch of texts to per-row ids."""

    def __init__(self, encoding: Any = "cl100k_base", *, column: str = "text", output: str = "tokens",
                 eot: int | None = None, num_threads: int = 1, pattern: str | None = None) -> None:
        self.ref = _ref(encoding, pattern)
        self.column = column
        self.output = output
        self.eot = eot
        self.num_threads = num_threads
        self._encoder: TokenEncoder | None = None

    @property
    def encoder(self) -> TokenEncoder:
        if self._encoder is None:
            self._encoder = as_encoder(self.ref)
        return self._encoder

    def encode_rows(self, texts: Any) -> tuple[list[np.ndarray], np.ndarray]:
        """(ids per row, count per row) of a column of texts.

        Raises:
            ValueError: a value is not a string.
        """
        texts = [t for t in texts]
        for i, t in enumerate(texts):
            if not isinstance(t, str):
                raise ValueError(f"column {self.column!r}, row {i} of the batch: {type(t).__name__}, not a string")
        ids, counts = self.encoder.encode_flat(texts, self.eot, self.num_threads)
        lengths = counts + (1 if self.eot is not None else 0)
        return np.split(ids, np.cumsum(lengths)[:-1]) if len(texts) else [], counts

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state["_encoder"] = None  # loaded again where it lands
        return state


class RayEncoder(_Mapper):
    """A ``map_batches`` callable class: adds the column `output` (the ids of `column`, a
    uint32 array per row) and ``num_tokens``.

    Use it as ``ds.map_batches(RayEncoder, fn_constructor_kwargs={"encoding": "o200k_base"},
    compute=ray.data.ActorPoolStrategy(size=4), batch_format="numpy")``, or through `ray_encode`.

    Args:
        encoding: an encoding name or ``.tiktoken``/``.model`` path (each actor loads it),
            or an `Encoding` (sent by name if the registry made it, else pickled whole).
        column: the text column.
        output: the ids column.
        eot: an id appended to every row's ids, or None.
        num_threads: native threads per actor (Ray gives each actor a CPU: 1).
        pattern: the split pattern for a ``.tiktoken`` file of no known name.
    """

    def __call__(self, batch: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        rows, counts = self.encode_rows(batch[self.column])
        out = dict(batch)
        column = np.empty(len(rows), dtype=object)
        column[:] = rows
        out[self.output] = column
        out["num_tokens"] = counts
        return out


def ray_encode(dataset: Any, encoding: Any = "cl100k_base", *, column: str = "text", output: str = "tokens",
               eot: int | None = None, concurrency: int | None = None, batch_size: int | None = 256,
               num_threads: int = 1, pattern: str | None = None, **map_batches_args: Any) -> Any:
    """``dataset.map_batches`` with one `RayEncoder` per actor.

    Args:
        dataset: a ``ray.data.Dataset``.
        encoding, column, output, eot, num_threads, pattern: as for `RayEncoder`.
        concurrency: actors (default: the cluster's CPUs divided by num_threads).
        batch_size: rows per call.
        map_batches_args: passed on (``num_cpus``, ``memory``, ...).

    Returns:
        The lazily mapped dataset.

    Raises:
        ImportError: Ray is not installed (``pip install 'tokenforge[ray]'``).
    """
    try:
        import ray
    except ImportError:
        raise ImportError("ray_encode needs Ray Data: pip install 'tokenforge[ray]'") from None
    if concurrency is None:
        cpus = int(ray.cluster_resources().get("CPU", 1)) if ray.is_initialized() else (os.cpu_count() or 1)
        concurrency = max(1, cpus // max(1, num_threads))
    kwargs = {"encoding": _ref(encoding, pattern), "column": column, "output": output, "eot": eot,
              "num_threads": num_threads, "pattern": pattern}
    map_batches_args.setdefault("num_cpus", num_threads)
    return dataset.map_batches(RayEncoder, fn_constructor_kwargs=kwargs, compute=ray.data.ActorPoolStrategy(size=concurrency),
                               batch_size=batch_size, batch_format="numpy", **map_batches_args)


class _HfMapper(_Mapper):
    """``datasets.Dataset.map(batched=True)`` function: {column: [str]} -> {output: [[id]], num_tokens}."""

    def __call__(self, batch: dict[str, list]) -> dict[str, list]:
        rows, counts = self.encode_rows(batch[self.column])
        return {self.output: [r.tolist() for r in rows], "num_tokens": counts.tolist()}


def hf_encode(dataset: Any, encoding: Any = "cl100k_base", *, column: str = "text", output: str = "input_ids",
              eot: int | None = None, num_proc: int | None = None, batch_size: int = 1000,
              num_threads: int | None = None, pattern: str | None = None, **map_args: Any) -> Any:
    """``dataset.map(batched=True, num_proc=num_proc)`` adding `output` (ids) and ``num_tokens``.

    Args:
        dataset: a ``datasets.Dataset``.
        encoding, column, eot, pattern: as for `RayEncoder`.
        output: the ids column (``input_ids``, as HF tokenizers name it).
        num_proc: processes (``datasets`` forks them; each loads the tokenizer once).
        batch_size: rows per call.
        num_threads: native threads per process (default: 1 with num_proc, else all cores).
        map_args: passed on to ``Dataset.map``.

    Returns:
        The mapped dataset.
    """
    from tokenforge._threads import resolve_threads

    threads = num_threads if num_threads is not None else (1 if num_proc and num_proc > 1 else resolve_threads(None))
    mapper = _HfMapper(_ref(encoding, pattern), column=column, output=output, eot=eot, num_threads=threads)
    return dataset.map(mapper, batched=True, batch_size=batch_size, num_proc=num_proc, **map_args)
