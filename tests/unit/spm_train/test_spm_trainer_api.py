"""SentencePieceTrainer / train_sentencepiece: options, files, errors (no reference needed)."""

from __future__ import annotations

import io
import os

import pytest

import tokenforge
from tokenforge.formats.sentencepiece_model import ModelProto, PieceType
from tokenforge.spm_train.options import parse_options

TEXT = ["the cat sat on the mat", "the dog sat on the log", "a cat and a dog"] * 30


def train(**kw):
    out = io.BytesIO()
    tokenforge.SentencePieceTrainer.train(sentence_iterator=iter(TEXT), model_writer=out, minloglevel=2, **kw)
    return ModelProto.from_bytes(out.getvalue())


def test_string_form_equals_keywords():
    a, _, _ = parse_options("--vocab_size=40 --model_type=bpe --user_defined_symbols=<a>,<b> --byte_fallback", {})
    b, _, _ = parse_options(None, dict(vocab_size=40, model_type="bpe", user_defined_symbols=["<a>", "<b>"],
                                       byte_fallback=True))
    assert a.to_bytes() == b.to_bytes()


@pytest.mark.parametrize("bad", [dict(vocab_sise=10), dict(model_type="foo"), dict(character_coverage=0.5),
                                 dict(vocab_size="many"), dict(max_sentencepiece_length=0),
                                 dict(shrinking_factor=0.99)])
def test_bad_options_raise_value_error(bad):
    with pytest.raises(ValueError):
        train(**{"vocab_size": 40, **bad})


@pytest.mark.parametrize("kind", ["char", "word"])
def test_char_and_word_models_not_built(kind):
    with pytest.raises(ValueError, match="not supported"):
        train(vocab_size=40, model_type=kind)


def test_meta_pieces_at_their_ids():
    m = train(vocab_size=300, model_type="bpe", pad_id=3, bos_id=-1, control_symbols=["<c>"],
              user_defined_symbols=["<u>"], byte_fallback=True, hard_vocab_limit=False)
    pieces = [(p.piece, p.type) for p in m.pieces]
    # bos_id=-1 drops <s>; eos and pad keep their ids; <c> and <u> take the lowest free ones.
    assert pieces[:5] == [("<unk>", PieceType.UNKNOWN), ("<c>", PieceType.CONTROL), ("</s>", PieceType.CONTROL),
                          ("<pad>", PieceType.CONTROL), ("<u>", PieceType.USER_DEFINED)]
    assert pieces[5] == ("<0x00>", PieceType.BYTE) and pieces[260] == ("<0xFF>", PieceType.BYTE)
    assert [p.score for p in m.pieces[261:264]] == [0.0, -1.0, -2.0]  # the first learned piece scores -0.0


def test_bpe_by_hand():
    # Words: ▁aaab x2, ▁ab x1.  Pairs: aa 4 (overlapping), ▁a 3, ab 3 -> "aa"; then ab 3 -> "ab";
    # then ▁aa 2 and aaab 2 tie -> fewer characters: "▁aa".  Then the alphabet by count, ties by
    # code point: a 7, b 3, ▁ 3.
    out = io.BytesIO()
    tokenforge.SentencePieceTrainer.train(sentence_iterator=iter(["aaab", "aaab", "ab"]), model_writer=out,
                                          vocab_size=9, model_type="bpe", minloglevel=2)
    m = ModelProto.from_bytes(out.getvalue())
    assert [p.piece for p in m.pieces[3:]] == ["aa", "ab", "▁aa", "a", "b", "▁"]


def test_files_written_atomically_and_nothing_on_failure(tmp_path):
    src = tmp_path / "in.txt"
    src.write_text("\n".join(TEXT) + "\n", encoding="utf-8")
    prefix = str(tmp_path / "m")
    with pytest.raises(ValueError):
        tokenforge.SentencePieceTrainer.train(input=str(src), model_prefix=prefix, vocab_size=5, minloglevel=2)
    assert not os.path.exists(prefix + ".model") and not os.path.exists(prefix + ".vocab")
    tokenforge.SentencePieceTrainer.train(input=str(src), model_prefix=prefix, vocab_size=30, model_type="bpe",
                                          minloglevel=2)
    vocab = (tmp_path / "m.vocab").read_text(encoding="utf-8").splitlines()
    assert vocab[:4] == ["<unk>\t0", "<s>\t0", "</s>\t0", "at\t-0"]  # "at": cat, sat, mat; 180 times
    assert vocab[4].endswith("\t-1") and len(vocab) == 30
    assert sorted(os.listdir(tmp_path)) == ["in.txt", "m.model", "m.vocab"]


def test_bad_input(tmp_path):
    with pytest.raises(OSError, match="not found"):
        tokenforge.SentencePieceTrainer.train(input=str(tmp_path / "missing.txt"), model_prefix=str(tmp_path / "m"),
                                              vocab_size=40, minloglevel=2)
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"good line\nbad \xff byte\n")
    with pytest.raises(ValueError, match="not UTF-8.*byte 14"):
        tokenforge.SentencePieceTrainer.train(input=str(bad), model_prefix=str(tmp_path / "m"), vocab_size=40,
                                              minloglevel=2)
    empty = tmp_path / "empty.txt"
    empty.write_text("\n\n", encoding="utf-8")
    with pytest.raises(ValueError, match="no sentence"):
        tokenforge.SentencePieceTrainer.train(input=str(empty), model_prefix=str(tmp_path / "m"), vocab_size=40,
                                              minloglevel=2)
    with pytest.raises(ValueError, match="too large"):
        train(vocab_size=5000, model_type="bpe")
    with pytest.raises(ValueError, match="model_prefix"):
        tokenforge.SentencePieceTrainer.train(sentence_iterator=iter(TEXT), vocab_size=40)


def test_hard_vocab_limit_off_shrinks_vocab():
    m = train(vocab_size=5000, model_type="bpe", hard_vocab_limit=False)
    assert m.trainer_spec.vocab_size == len(m.pieces) < 5000


def test_train_sentencepiece_returns_a_processor_that_saves(tmp_path):
    sp = tokenforge.train_sentencepiece(TEXT, 16, model_type="unigram", minloglevel=2)
    assert isinstance(sp, tokenforge.SentencePieceProcessor)
    assert sp.get_piece_size() == 16
    assert sp.decode(sp.encode("the cat sat")) == "the cat sat"
    sp.save(tmp_path / "u")
    again = tokenforge.SentencePieceProcessor(model_file=str(tmp_path / "u.model"))
    assert again.encode("a dog and a cat") == sp.encode("a dog and a cat")


def test_sampling_keeps_input_sentence_size(tmp_path):
    src = tmp_path / "in.txt"
    src.write_text("\n".join(f"line {i} words here" for i in range(500)) + "\n", encoding="utf-8")
    for shuffle in (True, False):
        m = tokenforge.train_sentencepiece(str(src), 30, model_type="bpe", input_sentence_size=100,
                                           shuffle_input_sentence=shuffle, minloglevel=2)
        assert m.get_piece_size() == 30
