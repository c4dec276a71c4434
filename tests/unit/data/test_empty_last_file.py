"""A run whose last input is an empty text file (a document of no tokens) and whose token total
fills its last shard exactly: interrupted after that shard is recorded and before the run is
marked complete, the resume adds nothing (the empty file's document was counted already)."""

from __future__ import annotations

import json
import os

import pytest

import tokenforge
from tokenforge import patterns
from tokenforge.data import TokenDataset, tokenize_files
from tokenforge.data import tokenize as tokenize_module
from tokenforge.data.sources import DocumentReader, Position


def byte_encoding() -> tokenforge.Encoding:
    return tokenforge.Encoding("bytes", pat_str=patterns.GPT2, special_tokens={"<|endoftext|>": 256},
                               mergeable_ranks={bytes([b]): b for b in range(256)})


def contents(folder) -> dict[str, bytes]:
    return {n: (folder / n).read_bytes() for n in sorted(os.listdir(folder)) if n != "index.json"}


@pytest.mark.parametrize("shard_size", [7, 1, 14])
def test_resume_after_the_last_shard_adds_no_empty_document(tmp_path, monkeypatch, shard_size):
    a, b, empty = tmp_path / "a.txt", tmp_path / "b.txt", tmp_path / "empty.txt"
    a.write_text("hello")
    b.write_text("world")
    empty.write_bytes(b"")
    inputs = [a, empty, b, empty] if shard_size == 14 else [a, empty]  # 5+1+1 (+5+1+1) tokens
    kw = dict(encoding=byte_encoding(), shard_size=shard_size, progress=False)
    full = tokenize_files(inputs, tmp_path / "full", **kw)
    assert full.tokens % shard_size == 0
    out = tmp_path / "out"
    with monkeypatch.context() as m:
        def killed(self, stats):
            raise KeyboardInterrupt  # between the last shard's record and the final index

        m.setattr(tokenize_module._Writer, "close", killed)
        with pytest.raises(KeyboardInterrupt):
            tokenize_files(inputs, out, **kw)
    s = tokenize_files(inputs, out, resume=True, **kw)
    assert (s.documents, s.tokens, s.shards) == (full.documents, full.tokens, full.shards)
    assert contents(out) == contents(tmp_path / "full")
    a_index, b_index = (json.loads((d / "index.json").read_text()) for d in (out, tmp_path / "full"))
    assert a_index == b_index
    assert len(TokenDataset(out)) == len(inputs)


def test_whole_file_position_past_its_document(tmp_path):
    """A whole file's position is before its document (record 0) or past it (record 1), an
    empty file's too."""
    empty, text = tmp_path / "empty.txt", tmp_path / "t.txt"
    empty.write_bytes(b"")
    text.write_text("x")
    reader = DocumentReader([str(empty), str(text)])
    assert [b.texts for b in reader.blocks(Position(0, 0, 0))] == [["", "x"]]
    assert [b.texts for b in DocumentReader([str(empty), str(text)]).blocks(Position(0, 0, 1))] == [["x"]]
    assert [b.texts for b in DocumentReader([str(text)]).blocks(Position(0, 1, 1))] == []
