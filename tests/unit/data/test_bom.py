"""A UTF-8 byte order mark at the start of a JSONL or text file is dropped, as Python's
"utf-8-sig" does (editors on Windows write one); anywhere else it stays text: U+FEFF in a
document, an error at the start of a later JSONL line.  `count` agrees with `tokenize`."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest

import tokenforge
from tokenforge import patterns
from tokenforge.data import TokenDataset, count_files, tokenize_files
from tokenforge.data.count import count_stream
from tokenforge.data.sources import DocumentReader

BOM = b"\xef\xbb\xbf"


def byte_encoding() -> tokenforge.Encoding:
    return tokenforge.Encoding("bytes", pat_str=patterns.GPT2, special_tokens={"<|endoftext|>": 256},
                               mergeable_ranks={bytes([b]): b for b in range(256)})


def texts(path, **kw) -> list[str]:
    return [t for b in DocumentReader([str(path)], **kw).blocks() for t in b.texts]


def test_jsonl_with_a_bom(tmp_path):
    src = tmp_path / "a.jsonl"
    src.write_bytes(BOM + b'{"text": "first"}\n{"text": "second"}\n')
    assert texts(src) == ["first", "second"]
    out = tmp_path / "out"
    s = tokenize_files([src], out, encoding=byte_encoding(), progress=False)
    assert s.bytes == src.stat().st_size and s.documents == 2
    ds = TokenDataset(out)
    assert bytes(ds.document(0).astype(np.uint8)) == b"first" and ds.source_of(0)[1] == 1
    assert count_files([src], byte_encoding()) == {str(src): 11}


def test_bom_only_at_the_start(tmp_path):
    later = tmp_path / "later.jsonl"
    later.write_bytes(b'{"text": "a"}\n' + BOM + b'{"text": "b"}\n')
    with pytest.raises(ValueError, match=r"later\.jsonl:2: not a JSON line"):
        texts(later)
    inside = tmp_path / "inside.jsonl"
    inside.write_bytes(BOM + json.dumps({"text": "\ufeffkept"}).encode() + b"\n")
    assert texts(inside) == ["\ufeffkept"]
    lines = tmp_path / "lines.txt"
    lines.write_bytes(BOM + b"one\n" + BOM + b"two\n")
    assert texts(lines, by_line=True) == ["one", "\ufefftwo"]
    only = tmp_path / "only.jsonl"
    only.write_bytes(BOM + b"\n" + b'{"text": "x"}\n')
    assert texts(only) == ["x"]


def test_text_file_with_a_bom(tmp_path):
    src = tmp_path / "a.txt"
    src.write_bytes(BOM + "héllo\n".encode() + BOM)
    assert texts(src) == ["héllo\n\ufeff"]
    enc = byte_encoding()
    s = tokenize_files([src], tmp_path / "out", encoding=enc, progress=False)
    assert s.tokens == len("héllo\n".encode()) + 3 + 1
    assert count_files([src], enc) == {str(src): s.tokens - 1}
    assert count_stream(io.BytesIO(BOM + b"ab"), enc) == 2 and count_stream(io.BytesIO(BOM), enc) == 0


def test_bad_utf8_after_a_bom_names_the_byte(tmp_path):
    src = tmp_path / "a.txt"
    src.write_bytes(BOM + b"ok\xff")
    with pytest.raises(ValueError, match=r"a\.txt: not UTF-8 \(byte 5 of the file"):
        texts(src)
