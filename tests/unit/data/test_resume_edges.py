"""Edges of tokenize_files' resume and of reading a folder back, on a byte-level encoding of
its own (no ../shared): a run killed inside its first shard leaves a temporary and no index;
a resume with another split pattern or a changed encoding file is refused and says what
differs; a reader's ranges past the finished shards raise; an unfinished run's document that
goes on into the shard not written is not listed; `count` prints a total and skips a text
file that is not UTF-8 under errors="skip"."""

from __future__ import annotations

import os

import pytest

import tokenforge
from tokenforge import patterns
from tokenforge.data import TokenDataset, count_files, tokenize_files
from tokenforge.data import shards


def byte_encoding() -> tokenforge.Encoding:
    return tokenforge.Encoding("bytes", pat_str=patterns.GPT2, special_tokens={"<|endoftext|>": 256},
                               mergeable_ranks={bytes([b]): b for b in range(256)})


def test_first_shard_temporary_removed_without_index(tmp_path):
    src = tmp_path / "a.txt"
    src.write_text("hello\nworld\n")
    out = tmp_path / "out"
    out.mkdir()
    stale = out / (shards.TEMP_PREFIX + "abc123")
    stale.write_bytes(b"\0" * 100)  # what a SIGKILL inside the first shard leaves
    tokenize_files([src], out, encoding=byte_encoding(), by_line=True, shard_size=4, progress=False, resume=True)
    assert not stale.exists()
    assert not [n for n in os.listdir(out) if n.startswith(".tmp")]


def test_resume_with_other_pattern_or_changed_file_is_refused(tmp_path):
    src = tmp_path / "a.txt"
    src.write_text("one two three four five six seven\n" * 20)
    rank_file = tmp_path / "tiny.tiktoken"
    import base64

    rank_file.write_text("".join(f"{base64.b64encode(bytes([b])).decode()} {b}\n" for b in range(256)))
    kw = dict(encoding=str(rank_file), by_line=True, shard_size=8, progress=False, eot=None)
    out = tmp_path / "out"
    tokenize_files([src], out, pattern="gpt2", **kw)
    with pytest.raises(ValueError, match="pattern"):
        tokenize_files([src], out, pattern="cl100k", resume=True, **kw)
    os.utime(rank_file, ns=(1, 1))
    with pytest.raises(ValueError, match="encoding_file"):
        tokenize_files([src], out, pattern="gpt2", resume=True, **kw)


def test_reader_ranges_past_the_end_raise(tmp_path):
    src = tmp_path / "a.txt"
    src.write_text("ab\ncd\nef\n")
    out = tmp_path / "out"
    tokenize_files([src], out, encoding=byte_encoding(), by_line=True, shard_size=4, progress=False)
    ds = TokenDataset(out)
    assert ds.total == 9 and ds.tokens(0, 9).tolist() == [97, 98, 256, 99, 100, 256, 101, 102, 256]
    for start, count in ((0, 10), (8, 2), (-1, 1), (3, -1)):
        with pytest.raises(IndexError, match="finished shards"):
            ds.tokens(start, count)
    assert [ds.document(i).tolist() for i in range(len(ds))] == [[97, 98], [99, 100], [101, 102]]


def test_unfinished_run_lists_whole_documents_only(tmp_path):
    src = tmp_path / "a.txt"
    src.write_text("abcdef\ngh\n")
    out = tmp_path / "out"
    tokenize_files([src], out, encoding=byte_encoding(), by_line=True, shard_size=4, progress=False)
    import json

    index = json.loads((out / "index.json").read_text())
    index["shards"], index["complete"] = index["shards"][:1], False  # as if killed after shard 0
    (out / "index.json").write_text(json.dumps(index))
    ds = TokenDataset(out)
    assert ds.total == 4 and len(ds) == 0  # "abcdef" goes on past the first shard


def test_count_total_and_skip(tmp_path, capsys):
    good, bad = tmp_path / "good.txt", tmp_path / "bad.txt"
    good.write_text("hello world")
    bad.write_bytes(b"ok \xff\xfe text")
    enc = byte_encoding()
    assert count_files([good, bad], enc, errors="skip") == {str(good): 11, str(bad): 0}
    with pytest.raises(ValueError, match="not UTF-8"):
        count_files([bad], enc)
    from tokenforge import cli

    rank_file = tmp_path / "tiny.tiktoken"
    import base64

    rank_file.write_text("".join(f"{base64.b64encode(bytes([b])).decode()} {b}\n" for b in range(256)))
    assert cli.main(["count", str(good), "--encoding", str(rank_file), "--pattern", "gpt2"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-1].split() == ["11", "total"] and len(out) == 2


def test_eot_past_the_vocabulary_taken_as_given(tmp_path):
    """A rank file without its special tokens (Llama 3's .tiktoken) still has an end-of-text id
    the user knows: an explicit id past the vocabulary separates the documents."""
    src = tmp_path / "a.txt"
    src.write_text("ab\ncd\n")
    out = tmp_path / "out"
    tokenize_files([src], out, encoding=byte_encoding(), by_line=True, eot=70000, progress=False)
    ds = TokenDataset(out)
    assert ds.dtype.name == "uint32" and ds.tokens(0, 6).tolist() == [97, 98, 70000, 99, 100, 70000]
    with pytest.raises(ValueError, match="32-bit"):
        tokenize_files([src], tmp_path / "o2", encoding=byte_encoding(), by_line=True, eot=1 << 32, progress=False)


def test_parquet_that_is_not_parquet_names_the_file(tmp_path):
    pytest.importorskip("pyarrow")
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(b"PAR")
    with pytest.raises(ValueError, match="bad.parquet"):
        tokenize_files([bad], tmp_path / "out", encoding=byte_encoding(), progress=False)


def test_an_encoding_without_an_end_of_text_token_needs_eot_given(tmp_path):
    # A rank file without its special tokens: the documents would run together unasked.
    src = tmp_path / "a.txt"
    src.write_text("ab\ncd\n")
    rank_file = tmp_path / "bare.tiktoken"
    import base64

    rank_file.write_text("".join(f"{base64.b64encode(bytes([b])).decode()} {b}\n" for b in range(256)))
    kw = dict(encoding=str(rank_file), pattern="gpt2", by_line=True, progress=False)
    with pytest.raises(ValueError, match="bare.*no end-of-text token.*--eot"):
        tokenize_files([src], tmp_path / "out", **kw)
    assert not (tmp_path / "out" / "index.json").exists()
    tokenize_files([src], tmp_path / "out", eot=None, **kw)
    assert TokenDataset(tmp_path / "out").total == 4
    tokenize_files([src], tmp_path / "out2", eot=7, **kw)
    assert TokenDataset(tmp_path / "out2").tokens(0, 6).tolist() == [97, 98, 7, 99, 100, 7]
