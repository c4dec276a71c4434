"""`tokenforge train-spm`: files out, summary, errors as exit status 1."""

from __future__ import annotations

import pytest

from tokenforge import cli


@pytest.mark.parametrize("model_type", ["bpe", "unigram"])
def test_train_spm_writes_model_and_vocab(tmp_path, capsys, model_type):
    src = tmp_path / "a.txt"
    src.write_text("hello world, hello tokens and words\n" * 50, encoding="utf-8")
    prefix = str(tmp_path / "m")
    argv = ["train-spm", str(src), "--vocab-size", "30", "--model-type", model_type, "-o", prefix,
            "--option", "hard_vocab_limit=false"]
    assert cli.main(argv) == 0
    captured = capsys.readouterr()
    assert (tmp_path / "m.model").exists() and (tmp_path / "m.vocab").exists()
    assert "saved" in captured.out and "spm_train:" in captured.err  # progress on stderr


@pytest.mark.parametrize("argv, message", [
    (["train-spm", "/nonexistent.txt", "-o", "x", "-q"], "not found"),
    (["train-spm", "a.txt", "-o", "x", "--option", "nonsense=1", "-q"], "unknown option"),
    (["train-spm", "a.txt", "-o", "x", "--option", "oops", "-q"], "NAME=VALUE"),
])
def test_train_spm_errors(tmp_path, monkeypatch, capsys, argv, message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.txt").write_text("some text\n", encoding="utf-8")
    assert cli.main(argv) == 1
    assert message in capsys.readouterr().err
