"""tokenize_files: shards decode back to the documents, ids are tiktoken's, the index
finds every document, resume and errors behave (fault tests with real signals are in
test_faults.py)."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
from _shared import corpus_sample, need_extra, need_shared
from _tiktoken_refs import pair

from tokenforge.data import TokenDataset, tokenize_files


def documents(text: str, lines_each: int) -> list[str]:
    """Documents of `lines_each` lines (their newlines kept)."""
    lines = text.splitlines(keepends=True)
    return ["".join(lines[i : i + lines_each]) for i in range(0, len(lines), lines_each)]


@pytest.fixture(scope="module")
def docs() -> list[str]:
    need_shared()
    text = corpus_sample("multi", 400_000) + corpus_sample("code", 200_000)
    return documents(text, 40) + ["", "x", "\ud800 lone surrogate"]


def write_jsonl(path, docs) -> None:
    with open(path, "w", encoding="utf-8") as f:
        for d in docs:
            f.write(json.dumps({"text": d, "id": 1}) + "\n")


@pytest.mark.parametrize("fmt", ["npy", "bin"])
def test_shards_hold_tiktoken_ids_and_decode_back(tmp_path, docs, fmt):
    ours, ref = pair("cl100k_base")
    src = tmp_path / "docs.jsonl"
    write_jsonl(src, docs)
    s = tokenize_files([src], tmp_path / "out", encoding="cl100k_base", fmt=fmt, shard_size=50_000,
                       progress=False, block_bytes=100_000)
    eot = ref.eot_token
    expected = []
    for d in docs:
        expected += ref.encode_ordinary(d) + [eot]
    ds = TokenDataset(tmp_path / "out")
    stream = np.concatenate(ds.shards)
    assert stream.dtype == np.uint32 and stream.tolist() == expected
    assert s.documents == len(docs) == len(ds) and s.tokens == len(expected)
    assert all(len(x) == 50_000 for x in ds.shards[:-1]) and s.shards == len(ds.shards) > 3
    for i, doc in enumerate(docs):
        if "\ud800" not in doc:
            assert ref.decode_bytes(ds.document(i).tolist()) == doc.encode("utf-8")
        assert ds.source_of(i) == (str(src), i + 1)


def test_text_files_by_line_and_whole_uint16(tmp_path):
    need_shared()
    ours, ref = pair("r50k_base")
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("first line\n\nsecond line\r\nthird", encoding="utf-8")
    b.write_text("whole file\nof two lines\n", encoding="utf-8")
    tokenize_files([a], tmp_path / "lines", encoding="r50k_base", by_line=True, progress=False)
    ds = TokenDataset(tmp_path / "lines")
    assert [ref.decode(ds.document(i).tolist()) for i in range(len(ds))] == ["first line", "second line", "third"]
    assert [ds.source_of(i)[1] for i in range(3)] == [1, 3, 4]
    assert ds.shards[0].dtype == np.uint16
    tokenize_files([a, b], tmp_path / "whole", encoding="r50k_base", eot=None, progress=False)
    ds = TokenDataset(tmp_path / "whole")
    assert np.concatenate(ds.shards).tolist() == ref.encode_ordinary(a.read_bytes().decode()) + ref.encode_ordinary(b.read_bytes().decode())


def test_sentencepiece_model(tmp_path):
    need_shared()
    import sentencepiece as spm
    from _shared import MODELS

    model = MODELS / "sentencepiece" / "llama2c_tok512.model"
    ref = spm.SentencePieceProcessor(model_file=str(model))
    src = tmp_path / "t.txt"
    src.write_text("Once upon a time\nthere was a cat\n", encoding="utf-8")
    tokenize_files([src], tmp_path / "out", encoding=str(model), by_line=True, progress=False)
    ds = TokenDataset(tmp_path / "out")
    eos = ref.eos_id()
    expected = ref.encode("Once upon a time") + [eos] + ref.encode("there was a cat") + [eos]
    assert np.concatenate(ds.shards).tolist() == expected


def test_resume_in_process_gives_identical_shards(tmp_path, docs):
    """An interruption after some shards (simulated by an exception from the encoder) and a
    resume write the same files as one run."""
    need_shared()
    src = tmp_path / "docs.jsonl"
    write_jsonl(src, docs)
    kw = dict(encoding="cl100k_base", shard_size=30_000, progress=False, block_bytes=50_000)
    tokenize_files([src], tmp_path / "full", **kw)

    from tokenforge.data import encoders

    real = encoders.TokenEncoder.encode_flat
    calls = {"n": 0}

    def failing(self, texts, eot, threads):
        calls["n"] += 1
        if calls["n"] == 9:
            raise KeyboardInterrupt
        return real(self, texts, eot, threads)

    encoders.TokenEncoder.encode_flat = failing
    try:
        with pytest.raises(KeyboardInterrupt):
            tokenize_files([src], tmp_path / "cut", **kw)
    finally:
        encoders.TokenEncoder.encode_flat = real
    from tokenforge.data.journal import read_state

    state = read_state(str(tmp_path / "cut"))[0]  # index.json and the journal of the shards since
    assert not state["complete"] and 0 < len(state["shards"])
    assert not [n for n in os.listdir(tmp_path / "cut") if n.startswith(".tmp")]  # no torn shard left
    with pytest.raises(ValueError, match="resume"):
        tokenize_files([src], tmp_path / "cut", **kw)
    tokenize_files([src], tmp_path / "cut", resume=True, **kw)
    assert sorted(os.listdir(tmp_path / "full")) == sorted(os.listdir(tmp_path / "cut"))
    for name in os.listdir(tmp_path / "full"):
        if name != "index.json":
            assert (tmp_path / "full" / name).read_bytes() == (tmp_path / "cut" / name).read_bytes(), name
    full, cut = (json.loads((tmp_path / d / "index.json").read_text()) for d in ("full", "cut"))
    assert full["shards"] == cut["shards"] and full["stats"] == cut["stats"]
    with pytest.raises(ValueError, match="other inputs or settings"):
        tokenize_files([src], tmp_path / "cut", resume=True, **{**kw, "shard_size": 1000})


def test_bad_records(tmp_path):
    need_shared()
    src = tmp_path / "bad.jsonl"
    src.write_bytes(b'{"text": "ok"}\n{"text": broken\n{"other": "x"}\n{"text": "caf\xe9"}\n{"text": 5}\n\n{"text": "end"}\n')
    with pytest.raises(ValueError, match=r"bad\.jsonl:2: not a JSON line"):
        tokenize_files([src], tmp_path / "a", encoding="cl100k_base", progress=False)
    s = tokenize_files([src], tmp_path / "b", encoding="cl100k_base", errors="skip", progress=False)
    assert (s.documents, s.skipped, s.replaced) == (2, 4, 0)
    s = tokenize_files([src], tmp_path / "c", encoding="cl100k_base", errors="replace", progress=False)
    assert (s.documents, s.skipped, s.replaced) == (3, 3, 1)
    ds = TokenDataset(tmp_path / "c")
    assert [ds.source_of(i)[1] for i in range(3)] == [1, 4, 7]
    for field_error, line in ((b'{"other": "x"}\n', 1), (b'{"text": 1}\n', 1)):
        (tmp_path / "f.jsonl").write_bytes(field_error)
        with pytest.raises(ValueError, match=rf"f\.jsonl:{line}: "):
            tokenize_files([tmp_path / "f.jsonl"], tmp_path / f"d{len(field_error)}", encoding="cl100k_base", progress=False)
    (tmp_path / "u.jsonl").write_bytes(b'{"text": "a"}\n{"text": "\xff"}\n')
    with pytest.raises(ValueError, match=r"u\.jsonl:2: not UTF-8"):
        tokenize_files([tmp_path / "u.jsonl"], tmp_path / "e", encoding="cl100k_base", progress=False)


def test_unwritable_output_names_the_path(tmp_path):
    need_shared()
    src = tmp_path / "a.txt"
    src.write_text("hello", encoding="utf-8")
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(OSError, match="file"):
        tokenize_files([src], blocker / "out", encoding="cl100k_base", progress=False)
    if os.geteuid() != 0:  # root writes anywhere
        ro = tmp_path / "ro"
        ro.mkdir()
        ro.chmod(0o500)
        with pytest.raises(OSError, match="ro"):
            tokenize_files([src], ro, encoding="cl100k_base", progress=False)


def test_full_disk_leaves_no_shard(tmp_path, monkeypatch):
    """A write that fails (ENOSPC) raises an OSError naming the shard and leaves no file
    under a shard's final name."""
    need_shared()
    import errno

    from tokenforge.data import shards

    src = tmp_path / "a.txt"
    src.write_text("hello world " * 1000, encoding="utf-8")
    real_fdopen = os.fdopen

    class FillingFile:  # a file on a disk that fills up after 1000 bytes
        def __init__(self, f):
            self.f, self.n = f, 0

        def write(self, data):
            self.n += memoryview(data).nbytes
            if self.n > 1000:
                raise OSError(errno.ENOSPC, "No space left on device")
            return self.f.write(data)

        def __getattr__(self, name):
            return getattr(self.f, name)

    monkeypatch.setattr(shards.os, "fdopen", lambda fd, mode="r", *a, **k: FillingFile(real_fdopen(fd, mode, *a, **k)))
    with pytest.raises(OSError, match=r"No space left on device: .*shard_000000\.npy"):
        tokenize_files([src], tmp_path / "out", encoding="cl100k_base", progress=False)
    assert [n for n in os.listdir(tmp_path / "out") if n.startswith("shard_")] == []


def test_parquet(tmp_path):
    need_shared()
    pa = need_extra("pyarrow", "parquet")
    import pyarrow.parquet as pq

    ours, ref = pair("o200k_base")
    texts = ["alpha beta", None, "gamma", "δέλτα"]
    pq.write_table(pa.table({"text": texts}), tmp_path / "t.parquet", row_group_size=2)
    s = tokenize_files([tmp_path / "t.parquet"], tmp_path / "out", encoding="o200k_base", errors="skip",
                       shard_size=3, progress=False)
    ds = TokenDataset(tmp_path / "out")
    assert s.skipped == 1
    assert [ref.decode(ds.document(i).tolist()) for i in range(len(ds))] == ["alpha beta", "gamma", "δέλτα"]
    assert [ds.source_of(i)[1] for i in range(3)] == [0, 2, 3]
