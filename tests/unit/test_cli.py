"""The `tokenforge train` command: default corpus, outputs, and errors as exit status 1."""

from __future__ import annotations

import json

import pytest

from tokenforge import cli


def test_train_on_the_standard_library_by_default(capsys):
    assert cli.main(["train", "--vocab-size", "400", "-q"]) == 0
    out = capsys.readouterr().out
    assert "vocab       400 tokens (256 bytes + 144 merges + 0 special)" in out
    assert "bytes per token" in out and "example:" in out


@pytest.mark.parametrize("suffix", [".tiktoken", ".model", ".json"])
def test_train_files_and_save(tmp_path, capsys, suffix):
    src = tmp_path / "a.txt"
    src.write_text("hello world, hello tokens\n" * 50, encoding="utf-8")
    out = tmp_path / f"tok{suffix}"
    argv = ["train", str(src), "--vocab-size", "270", "--pattern", "gpt2", "--special", "<|eot|>", "-o", str(out), "-q"]
    assert cli.main(argv) == 0
    assert out.exists()
    if suffix == ".json":
        assert json.loads(out.read_text(encoding="utf-8"))["added_tokens"][0]["id"] == 270
    assert f"saved       {out}" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["train", "/nonexistent/file.txt"], "No such file"),
        (["train", "--vocab-size", "10"], "vocab_size must be an int >= 256"),
        (["train", "--pattern", "(bad"], "split pattern does not compile"),
        (["train", "-o", "out.bin"], "cannot tell the format"),
    ],
)
def test_errors_exit_with_status_1(argv, message, capsys):
    assert cli.main(argv + ["-q"]) == 1
    assert message in capsys.readouterr().err


def test_non_utf8_file(tmp_path, capsys):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"abc \xff def\n" * 10)
    assert cli.main(["train", str(bad), "-q", "--vocab-size", "260"]) == 1
    assert "invalid UTF-8 at byte offset 4" in capsys.readouterr().err
    assert cli.main(["train", str(bad), "-q", "--vocab-size", "260", "--errors", "replace"]) == 0
