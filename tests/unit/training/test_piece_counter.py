"""The native piece counter: cutting input into blocks never changes the pieces."""

from __future__ import annotations

import pytest
from _shared import corpus_sample, need_shared

from tokenforge import _native, patterns
from tokenforge.training.reference import count_pieces

PATTERNS = {
    patterns.Scanner.GPT2: patterns.GPT2,
    patterns.Scanner.CL100K: patterns.CL100K,
    patterns.Scanner.LLAMA3: patterns.LLAMA3,
    patterns.Scanner.O200K: patterns.O200K,
    patterns.Scanner.QWEN2: patterns.QWEN2,
}
# Text around every kind of cut: newlines before letters/digits/'/'/spaces, "a b" runs,
# whitespace that ends a block, CRLF, non-ASCII right after a newline.
TRICKY = (
    "ab cd\n\nef  \n  gh\n/x +\n/y\r\n9z é\n é\t\n\n\nQ  R s's\n  \u00a0x\n"
    "word word word\n 12345 6789\n\u3000\u3000a\n" * 40
)


def native_counts(text: str, scanner: int, block: int, threads: int = 2) -> dict[bytes, int]:
    c = _native.PieceCounter(int(scanner), threads, block)
    c.add_texts([text])
    return c.counts()


@pytest.mark.parametrize("scanner", list(PATTERNS))
@pytest.mark.parametrize("block", [16, 97, 4096])
def test_blocks_do_not_change_pieces(scanner, block):
    assert native_counts(TRICKY, scanner, block) == count_pieces([TRICKY], PATTERNS[scanner])


@pytest.mark.parametrize("scanner", list(PATTERNS))
def test_corpus_pieces_match_the_regex(scanner, corpus):
    name, text = corpus
    text = text[:400_000]
    assert native_counts(text, scanner, 1 << 14) == count_pieces([text], PATTERNS[scanner])


def test_files_match_texts(tmp_path):
    need_shared()
    text = corpus_sample("multi", 300_000)
    path = tmp_path / "multi.txt"
    path.write_bytes(text.encode("utf-8"))
    c = _native.PieceCounter(int(patterns.Scanner.CL100K), 2, 1000)
    c.add_files([str(path), str(path)], False)
    want = {k: 2 * v for k, v in count_pieces([text], patterns.CL100K).items()}
    assert c.counts() == want
    assert c.bytes_done == 2 * len(text.encode("utf-8"))


def test_each_text_is_split_on_its_own():
    # "a  " + "b" as two texts: the trailing spaces cannot join the next text's piece.
    assert native_counts("", patterns.Scanner.CL100K, 16) == {}
    c = _native.PieceCounter(int(patterns.Scanner.CL100K), 1)
    c.add_texts(["a  ", "  b"])
    assert c.counts() == count_pieces(["a  ", "  b"], patterns.CL100K)


@pytest.mark.parametrize(
    "data, replaced",
    [
        (b"ab\xffcd", "ab\ufffdcd"),
        (b"x\xe2\x82y", "x\ufffdy"),  # a truncated 3-byte sequence is one U+FFFD
        (b"\xed\xa0\x80z", "\ufffd\ufffd\ufffdz"),  # an encoded surrogate: three
        (b"end\xf0\x9f\x98", "end\ufffd"),
    ],
)
def test_invalid_utf8_replaced_like_python(tmp_path, data, replaced):
    assert data.decode("utf-8", "replace") == replaced
    path = tmp_path / "bad.txt"
    path.write_bytes(data * 50)
    c = _native.PieceCounter(int(patterns.Scanner.CL100K), 2, 16)
    c.add_files([str(path)], True)
    assert c.counts() == count_pieces([replaced * 50], patterns.CL100K)
    try:
        (data * 50).decode("utf-8")
    except UnicodeDecodeError as e:
        first = e.start
    with pytest.raises(ValueError, match=f"bad.txt: invalid UTF-8 at byte offset {first} "):
        _native.PieceCounter(int(patterns.Scanner.CL100K), 2, 16).add_files([str(path)], False)


@pytest.mark.parametrize("block", [16, 61, 1 << 20])
def test_special_tokens_cut_the_text_and_are_not_counted(tmp_path, block):
    # Specials that contain chunk-boundary look-alikes ("d o", "\nA") must never be cut.
    specials = ["<|endoftext|>", "<|end of text|>", "<|x\nAy|>", "<|"]
    text = "".join(f"doc {i} ab cd\n{s}next line  \n" for i in range(60) for s in specials) + "tail<|"
    want = count_pieces([text], patterns.CL100K, specials)
    assert b"<|" not in want and b"endoftext" not in want
    c = _native.PieceCounter(int(patterns.Scanner.CL100K), 2, block)
    c.set_specials(specials)
    c.add_texts([text])
    assert c.counts() == want
    path = tmp_path / "t.txt"
    path.write_text(text, encoding="utf-8")
    c = _native.PieceCounter(int(patterns.Scanner.CL100K), 2, block)
    c.set_specials(specials)
    c.add_files([str(path)], False)
    assert c.counts() == want


@pytest.mark.parametrize("block", [16, 97, 1 << 20])
def test_by_line_makes_each_line_a_text(tmp_path, block):
    path = tmp_path / "t.txt"
    path.write_bytes(TRICKY.encode("utf-8"))
    lines = TRICKY.encode("utf-8").decode("utf-8").split("\n")
    lines = [line + "\n" for line in lines[:-1]] + ([lines[-1]] if lines[-1] else [])
    c = _native.PieceCounter(int(patterns.Scanner.LLAMA3), 2, block)
    c.add_files([str(path)], False, True)
    assert c.counts() == count_pieces(lines, patterns.LLAMA3)
