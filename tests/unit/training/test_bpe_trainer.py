"""`tokenforge.BpeTrainer`: the Encoding it returns, its settings, and bad input."""

from __future__ import annotations

import os

import pytest

import tokenforge
from tokenforge import patterns
from tokenforge.formats.byte_map import BYTE_ORDER
from tokenforge.training.reference import count_pieces, train_bpe

TEXT = "the quick brown fox jumps over the lazy dog; the dog sleeps.\n" * 20 + "naïve café 東京 123456\n" * 5


def train(texts, vocab_size=300, **kw):
    trainer = tokenforge.BpeTrainer(vocab_size, show_progress=False, **kw)
    return trainer, trainer.train_from_iterator(texts)


def test_ranks_are_bytes_in_gpt2_order_then_merges():
    trainer, enc = train([TEXT])
    assert [enc.decode_single_token_bytes(r) for r in range(256)] == [bytes([b]) for b in BYTE_ORDER]
    tokens, merges = train_bpe(count_pieces([TEXT], patterns.CL100K), 300)
    assert [enc.decode_single_token_bytes(r) for r in range(enc.n_vocab)] == tokens
    assert trainer.merges == merges
    assert enc.decode(enc.encode(TEXT)) == TEXT


def test_special_tokens_follow_the_merges():
    _, enc = train([TEXT], special_tokens=["<|endoftext|>", "<|pad|>"])
    assert enc.n_vocab == 302
    assert enc.encode("<|endoftext|><|pad|>", allowed_special="all") == [300, 301]


def test_files_and_iterator_agree(tmp_path):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text(TEXT, encoding="utf-8")
    b.write_text(TEXT.upper(), encoding="utf-8")
    t1 = tokenforge.BpeTrainer(320, show_progress=False)
    e1 = t1.train([a, b])
    t2 = tokenforge.BpeTrainer(320, show_progress=False)
    e2 = t2.train_from_iterator([TEXT, TEXT.upper()])
    assert t1.merges == t2.merges
    assert e1.encode(TEXT) == e2.encode(TEXT)
    assert t1.stats.bytes == len((TEXT + TEXT.upper()).encode())
    assert t1.stats.tokens == sum(len(e1.encode_ordinary(t)) for t in (TEXT, TEXT.upper()))


def test_custom_pattern_runs_through_the_regex_module(tmp_path):
    pat = r"\s?\w+|\s+|[^\s\w]+"
    trainer, enc = train([TEXT], pat_str=pat)
    assert trainer.merges == train_bpe(count_pieces([TEXT], pat), 300)[1]
    path = tmp_path / "t.txt"
    path.write_text(TEXT, encoding="utf-8")
    t2 = tokenforge.BpeTrainer(300, pat_str=pat, show_progress=False)
    t2.train(path)
    assert t2.merges == trainer.merges


def test_pattern_with_empty_matches():
    """A pattern that also matches the empty string gives empty pieces, which hold no pair:
    the merges are the reference's.  (Under scripts/sanitize_tests.sh, UBSan once stopped
    here: an empty piece's null pointer reached memcmp; found by the bpe_trainer fuzz
    target's regression input.)"""
    pat = r"a*"
    texts = ["aaab aab ba caaa", "baaaa"] * 5
    trainer, enc = train(texts, pat_str=pat)
    assert trainer.merges == train_bpe(count_pieces(texts, pat), 300)[1]
    assert trainer.merges  # "aa" and longer runs were learned
    assert enc.decode(enc.encode_ordinary("aaaa")) == "aaaa"


def test_stops_early_when_pairs_run_out():
    _, enc = train(["abcd"], vocab_size=1000)
    assert enc.n_vocab == 259


def test_min_frequency():
    trainer, _ = train([TEXT], vocab_size=5000, min_frequency=5)
    counts = count_pieces([TEXT], patterns.CL100K)
    assert trainer.merges == train_bpe(counts, 5000, 5)[1]


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"vocab_size": 255}, "vocab_size must be an int >= 256"),
        ({"vocab_size": 300, "pat_str": "(unclosed"}, "split pattern does not compile"),
        ({"vocab_size": 300, "errors": "ignore"}, "errors must be"),
        ({"vocab_size": 300, "special_tokens": ["", "x"]}, "special_tokens must be distinct"),
        ({"vocab_size": 300, "min_frequency": -1}, "min_frequency"),
    ],
)
def test_bad_settings(kwargs, message):
    with pytest.raises(ValueError, match=message):
        tokenforge.BpeTrainer(**kwargs)


def test_missing_and_unreadable_files(tmp_path):
    trainer = tokenforge.BpeTrainer(300, show_progress=False)
    with pytest.raises(FileNotFoundError):
        trainer.train(tmp_path / "nope.txt")
    with pytest.raises(IsADirectoryError):
        trainer.train(tmp_path)
    if os.geteuid() != 0:  # root reads anything
        locked = tmp_path / "locked.txt"
        locked.write_text("x")
        locked.chmod(0)
        with pytest.raises(PermissionError):
            trainer.train(locked)


def test_non_utf8_is_an_error_or_replaced(tmp_path):
    path = tmp_path / "latin1.txt"
    path.write_bytes("café crème brûlée\n".encode("latin-1") * 10)
    with pytest.raises(ValueError, match="latin1.txt: invalid UTF-8 at byte offset 3"):
        tokenforge.BpeTrainer(300, show_progress=False).train(path)
    trainer = tokenforge.BpeTrainer(300, show_progress=False, errors="replace")
    trainer.train(path)
    want = train_bpe(count_pieces([path.read_bytes().decode("utf-8", "replace")], patterns.CL100K), 300)[1]
    assert trainer.merges == want


def test_lone_surrogates_in_texts():
    with pytest.raises(ValueError, match="lone surrogate"):
        train(["ab\ud800cd"])
    trainer, _ = train(["ab\ud800cd"], errors="replace")
    assert trainer.merges == train_bpe(count_pieces(["ab\ufffdcd"], patterns.CL100K), 300)[1]


def test_iterator_items_must_be_str():
    with pytest.raises(TypeError, match="needs str items"):
        train([b"bytes"])


@pytest.mark.parametrize("pat_str", [patterns.CL100K, r"\s?\w+|\s+|[^\s\w]+"], ids=["native", "regex"])
def test_special_tokens_in_the_text_are_not_learned_from(tmp_path, pat_str):
    specials = ["<|endoftext|>", "<|end|>"]
    text = "<|endoftext|>".join([TEXT, TEXT.upper(), "x<|end|>y"])
    want = train_bpe(count_pieces([text], pat_str, specials), 400)[1]
    trainer, enc = train([text], 400, pat_str=pat_str, special_tokens=specials)
    assert trainer.merges == want
    assert b"<|" not in [enc.decode_single_token_bytes(i) for i in range(enc.n_vocab - 2)]
    path = tmp_path / "t.txt"
    path.write_text(text, encoding="utf-8")
    t2 = tokenforge.BpeTrainer(400, pat_str=pat_str, special_tokens=specials, show_progress=False)
    t2.train(path)
    assert t2.merges == want


def test_progress_bars_go_to_stderr(tmp_path, capsys):
    path = tmp_path / "t.txt"
    path.write_text(TEXT, encoding="utf-8")
    tokenforge.BpeTrainer(300, show_progress=True).train(path)
    err = capsys.readouterr().err
    assert "counting  [##############################]" in err and "merging   [" in err
    with pytest.raises(TypeError):  # an error inside the progress thread reaches the caller
        tokenforge.BpeTrainer(300, show_progress=True).train_from_iterator([1])


@pytest.mark.parametrize("pat_str", [patterns.CL100K, r"\s?\w+|\s+|[^\s\w]+"], ids=["native", "regex"])
def test_by_line(tmp_path, pat_str):
    text = "a  \n\n  b\r\nccc  \n" * 30
    path = tmp_path / "t.txt"
    path.write_bytes(text.encode())
    trainer = tokenforge.BpeTrainer(300, pat_str=pat_str, show_progress=False)
    trainer.train(path, by_line=True)
    lines = [line + "\n" for line in text.split("\n")[:-1]]
    assert trainer.merges == train_bpe(count_pieces(lines, pat_str), 300)[1]
