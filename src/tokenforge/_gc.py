"""Python's cyclic garbage collector held off while a batch's results are assembled, or a
tokenizer.json is parsed and loaded.

A batch of Encodings is many new lists and tuples at once, all still alive when the
collector runs: each collection it triggers walks every one of them again and frees none,
so assembling a large batch cost several times the encoding (and a parsed tokenizer.json,
its vocab and merges, is the same kind of heap until the native tables are built).  `paused()` disables the
collector for the block and enables it again only if it was enabled before (as the native
batches' NoGc does, bindings/common.h); reference counting still frees what dies.  Left
out: a caller that disables the collector from another thread during the block has it
enabled again at the block's end.

Example:
    >>> import gc
    >>> with paused():
    ...     gc.isenabled()
    False
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def paused() -> Iterator[None]:
    """Disables the collector for the block; re-enables it after if it was enabled."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
