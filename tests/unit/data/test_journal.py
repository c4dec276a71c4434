"""The run's bookkeeping (`tokenforge.data.journal`): index.json is written twice whatever the
number of shards, each shard appends one short journal line; a run interrupted anywhere
(after a shard's record, between a shard's rename and its record, inside a journal line)
resumes to the same bytes as an uninterrupted run; an index.json of the earlier layout
(rewritten after every shard, no journal) still resumes and reads; a journal left beside a
completed index is ignored and removed."""

from __future__ import annotations

import json
import os

import pytest

import tokenforge
from tokenforge import patterns
from tokenforge.data import TokenDataset, journal, tokenize_files
from tokenforge.data import tokenize as tokenize_module


def byte_encoding() -> tokenforge.Encoding:
    return tokenforge.Encoding("bytes", pat_str=patterns.GPT2, special_tokens={"<|endoftext|>": 256},
                               mergeable_ranks={bytes([b]): b for b in range(256)})


@pytest.fixture
def source(tmp_path):
    src = tmp_path / "a.jsonl"
    src.write_text("".join(json.dumps({"text": f"document {k} " + "x" * (k % 17)}) + "\n" for k in range(300)))
    return src


def run(src, out, **kw):
    return tokenize_files([src], out, encoding=byte_encoding(), shard_size=50, progress=False, block_bytes=512, **kw)


def files(folder) -> dict[str, bytes]:
    return {n: (folder / n).read_bytes() for n in sorted(os.listdir(folder)) if n != "index.json"}


def same_run(out, reference) -> None:
    assert files(out) == files(reference)
    a, b = (json.loads((d / "index.json").read_text()) for d in (out, reference))
    assert a == b and a["complete"]


@pytest.fixture
def reference(source, tmp_path):
    out = tmp_path / "reference"
    run(source, out)
    return out


def interrupt_after(monkeypatch, target, name, calls, before=False):
    """Raises KeyboardInterrupt at the `calls`-th call of target.name (before or after it runs)."""
    real = getattr(target, name)
    seen = [0]

    def wrapped(*args, **kw):
        seen[0] += 1
        if before and seen[0] == calls:
            raise KeyboardInterrupt
        result = real(*args, **kw)
        if not before and seen[0] == calls:
            raise KeyboardInterrupt
        return result

    monkeypatch.setattr(target, name, wrapped)


def interrupted_run(source, out, monkeypatch, target, name, calls, before=False) -> None:
    """run(source, out), interrupted by interrupt_after(...) (the patch undone afterwards)."""
    with monkeypatch.context() as m:
        interrupt_after(m, target, name, calls, before=before)
        with pytest.raises(KeyboardInterrupt):
            run(source, out)


def test_index_written_twice_and_one_line_a_shard(source, tmp_path, monkeypatch):
    writes, lines = [], []
    real_write = journal.write_atomic
    monkeypatch.setattr(journal, "write_atomic", lambda path, data: (writes.append(path), real_write(path, data)))
    real_record = journal.Journal.record

    def record(self, state, entry):
        real_record(self, state, entry)
        lines.append(os.path.getsize(self.path))

    monkeypatch.setattr(journal.Journal, "record", record)
    s = run(source, tmp_path / "out")
    assert s.shards > 100
    assert [os.path.basename(p) for p in writes] == ["index.json", "index.json"]
    sizes = [b - a for a, b in zip([0] + lines, lines)]
    assert len(sizes) == s.shards - 1 and max(sizes) < 300  # a line a shard, not growing with their number
    assert not (tmp_path / "out" / journal.JOURNAL_FILE).exists()
    index = json.loads((tmp_path / "out" / "index.json").read_text())
    assert len(index["shards"]) == s.shards and index["complete"]


def test_interrupted_run_reads_and_resumes_from_the_journal(source, reference, tmp_path, monkeypatch):
    out = tmp_path / "out"
    interrupted_run(source, out, monkeypatch, tokenize_module._Writer, "_finish_shard", 7)
    saved = json.loads((out / "index.json").read_text())
    assert saved["shards"] == [] and not saved["complete"]  # the state before the first shard
    ds = TokenDataset(out)
    assert len(ds.shards) == 7 and not ds.complete
    assert ds.tokens(0, 350).tolist() == TokenDataset(reference).tokens(0, 350).tolist()
    run(source, out, resume=True)
    same_run(out, reference)


def test_killed_between_rename_and_record(source, reference, tmp_path, monkeypatch):
    out = tmp_path / "out"
    interrupted_run(source, out, monkeypatch, journal.Journal, "record", 4, before=True)
    assert (out / "shard_000003.npy").exists()  # renamed, not recorded: written again
    assert len(journal.read_state(str(out))[0]["shards"]) == 3
    run(source, out, resume=True)
    same_run(out, reference)


def test_torn_journal_line_is_cut_off(source, reference, tmp_path, monkeypatch):
    out = tmp_path / "out"
    interrupted_run(source, out, monkeypatch, tokenize_module._Writer, "_finish_shard", 5)
    path = out / journal.JOURNAL_FILE
    whole = path.read_bytes()
    last = whole[:-1].rfind(b"\n") + 1
    path.write_bytes(whole[:last] + whole[last:last + 20])  # the fifth line cut short by a kill
    state, keep = journal.read_state(str(out))
    assert len(state["shards"]) == 4 and keep == last
    run(source, out, resume=True)
    same_run(out, reference)


def test_earlier_layout_without_journal_resumes(source, reference, tmp_path, monkeypatch):
    """The index.json an earlier version left (the whole state after each shard) resumes."""
    out = tmp_path / "out"
    interrupted_run(source, out, monkeypatch, tokenize_module._Writer, "_finish_shard", 6)
    state = journal.read_state(str(out))[0]
    (out / "index.json").write_text(json.dumps(state, indent=1))
    (out / journal.JOURNAL_FILE).unlink()
    assert len(TokenDataset(out).shards) == 6
    run(source, out, resume=True)
    same_run(out, reference)


def test_stale_journal_beside_a_complete_index(source, reference, tmp_path):
    out = tmp_path / "out"
    run(source, out)
    (out / journal.JOURNAL_FILE).write_text('{"n": 0, "shard": {"file": "x"}}\n')  # killed before its removal
    assert len(TokenDataset(out).shards) == len(TokenDataset(reference).shards)
    s = run(source, out, resume=True)
    assert s.shards == len(TokenDataset(reference).shards)
    same_run(out, reference)


def test_index_that_is_not_json_names_the_file(tmp_path):
    (tmp_path / "index.json").write_text("{not json")
    with pytest.raises(ValueError, match="index.json"):
        TokenDataset(tmp_path)
