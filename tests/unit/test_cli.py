"""The `tokenforge train` command: default corpus, outputs, and errors as exit status 1."""

from __future__ import annotations

import json

import pytest

import tokenforge
from tokenforge import cli, patterns


def test_train_on_the_standard_library_by_default(capsys):
    assert cli.main(["train", "--vocab-size", "400", "-q"]) == 0
    out = capsys.readouterr().out
    assert "vocab       400 tokens (256 bytes + 144 merges + 0 special)" in out
    assert "bytes per token" in out and "example:" in out


TRAIN_TEXT = "".join(f"hello world, hello tokens {i} times; the {w} tokenizer says {w}{i % 7}\n"
                     for i, w in enumerate(["byte", "pair", "encoding", "merges", "ranks"] * 30))


def saved_ranks(path, suffix) -> dict[bytes, int]:
    """The ranks of a file the CLI wrote, read by the readers of each format (tiktoken's
    own loader for .tiktoken, HF tokenizers for .json)."""
    if suffix == ".tiktoken":
        import tiktoken.load

        return tiktoken.load.load_tiktoken_bpe(str(path))
    if suffix == ".model":
        from tokenforge.formats import minbpe

        return minbpe.load(path)._mergeable_ranks
    import tokenizers

    from tokenforge.formats.byte_map import CHAR_TO_BYTE as to_byte

    tok = tokenizers.Tokenizer.from_file(str(path))
    added = set(tok.get_added_tokens_decoder())  # specials stand in the model's vocab too, as in HF's files
    vocab = tok.get_vocab(with_added_tokens=False)
    return {bytes(to_byte[c] for c in token): i for token, i in vocab.items() if i not in added}


def merged_tokens(ranks: dict[bytes, int]) -> list[bytes]:
    """The 256 bytes, then the token each merge makes, in merge order."""
    assert sorted(t for t, r in ranks.items() if r < 256) == [bytes([b]) for b in range(256)]
    return [t for t, r in sorted(ranks.items(), key=lambda kv: kv[1]) if r >= 256]


@pytest.mark.parametrize("suffix", [".tiktoken", ".model", ".json"])
def test_train_files_and_save(tmp_path, capsys, suffix):
    """The saved file holds the merges BpeTrainer learns from the same file and options."""
    src = tmp_path / "a.txt"
    src.write_text(TRAIN_TEXT, encoding="utf-8")
    out = tmp_path / f"tok{suffix}"
    argv = ["train", str(src), "--vocab-size", "300", "--pattern", "gpt2", "--special", "<|eot|>", "-o", str(out), "-q"]
    assert cli.main(argv) == 0
    assert f"saved       {out}" in capsys.readouterr().out
    want = tokenforge.BpeTrainer(300, pat_str=patterns.GPT2, special_tokens=["<|eot|>"],
                                 show_progress=False).train([str(src)])
    assert len(want._mergeable_ranks) == 300
    saved = saved_ranks(out, suffix)
    assert merged_tokens(saved) == merged_tokens(want._mergeable_ranks)
    if suffix != ".model":  # minbpe numbers the bytes by value, not in GPT-2's order
        assert saved == want._mergeable_ranks
    if suffix == ".json":
        import tokenizers

        data = json.loads(out.read_text(encoding="utf-8"))
        assert [(t["content"], t["id"]) for t in data["added_tokens"]] == [("<|eot|>", 300)]
        hf = tokenizers.Tokenizer.from_file(str(out))
        text = "hello tokens, the pair encoding says merges <|eot|>"
        assert hf.encode(text).ids == want.encode(text, allowed_special="all")


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
