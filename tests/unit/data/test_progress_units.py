"""Progress counts the same unit as its total: input bytes as the files hold them.  A Parquet
row advances by its share of the file's size (its text is decoded and usually larger than
the compressed file), so a run, resumed or not, ends at 100%, empty and skipped rows too."""

from __future__ import annotations

import json
import os

import pytest

import tokenforge
from tokenforge import patterns
from tokenforge.data import tokenize_files
from tokenforge.data import tokenize as tokenize_module
from tokenforge.data.sources import DocumentReader


def byte_encoding() -> tokenforge.Encoding:
    return tokenforge.Encoding("bytes", pat_str=patterns.GPT2, special_tokens={"<|endoftext|>": 256},
                               mergeable_ranks={bytes([b]): b for b in range(256)})


@pytest.fixture
def inputs(tmp_path):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    texts = [("repeated text " * 40 + str(k)) if k % 7 else None for k in range(500)]  # compresses well
    pq.write_table(pa.table({"text": texts}), tmp_path / "a.parquet", row_group_size=64)
    pq.write_table(pa.table({"text": pa.array([], pa.string())}), tmp_path / "empty.parquet")
    (tmp_path / "b.jsonl").write_text("".join(json.dumps({"text": f"line {k}"}) + "\n" for k in range(20)))
    return [str(tmp_path / n) for n in ("a.parquet", "empty.parquet", "b.jsonl")]


def test_reader_bytes_end_at_the_total(inputs):
    reader = DocumentReader(inputs, errors="skip")
    blocks = list(reader.blocks(block_bytes=4096))
    assert sum(b.nbytes for b in blocks) == reader.stats.bytes == reader.total_bytes()
    assert sum(len(t.encode()) for b in blocks for t in b.texts) > os.path.getsize(inputs[0])
    assert max(sum(map(len, b.texts)) for b in blocks) < 2 * 4096  # blocks bounded by their text too


def test_progress_ends_at_its_total_after_a_resume(inputs, tmp_path, monkeypatch):
    bars = []

    class Recorded(tokenize_module.Progress):
        def __init__(self, *a, **k):
            super().__init__(*a, **k)
            bars.append(self)

    monkeypatch.setattr(tokenize_module, "Progress", Recorded)
    kw = dict(encoding=byte_encoding(), errors="skip", shard_size=1000, progress=False, block_bytes=2048)
    real = tokenize_module._Writer._finish_shard
    calls = [0]

    def finish(self, resume):
        real(self, resume)
        calls[0] += 1
        if calls[0] == 5:
            raise KeyboardInterrupt

    with monkeypatch.context() as m:
        m.setattr(tokenize_module._Writer, "_finish_shard", finish)
        with pytest.raises(KeyboardInterrupt):
            tokenize_files(inputs, tmp_path / "out", **kw)
    s = tokenize_files(inputs, tmp_path / "out", resume=True, **kw)
    total = sum(os.path.getsize(p) for p in inputs)
    assert bars[-1].total == bars[-1].bytes == s.bytes == total
    assert 0 < bars[-1].base_bytes < total
    full = tokenize_files(inputs, tmp_path / "full", **kw)
    assert bars[-1].bytes == full.bytes == total and full.tokens == s.tokens
