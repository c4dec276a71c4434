"""CHAR and WORD models, trained by sentencepiece's own trainer, encode as sentencepiece does.

CHAR: one piece per character (the longest USER_DEFINED piece first), unknown characters
as <unk>; WORD: one piece per whitespace-delimited word (each starting with ▁), unknown
words as <unk>.  Expected ids, pieces and decoded text come from sentencepiece on the model
it trained on a small text written to tmp_path.
"""

from __future__ import annotations

import pytest

from tokenforge.sentencepiece import SentencePieceProcessor

spm = pytest.importorskip("sentencepiece")

TRAIN = """The quick brown fox jumps over the lazy dog.
A journey of a thousand miles begins with a single step.
Über den Wolken muss die Freiheit wohl grenzenlos sein.
東京は日本の首都です。 京都もきれいです。
The dog sleeps; the fox runs. The end.
"""
TEXTS = ["The quick dog", "  the   lazy  fox ", "unseen words here", "東京と京都", "Über 😀 ünknown", "",
         "fox<u>dog", "a\tb\nc", "The end. The end."]


@pytest.fixture(scope="module", params=[("char", {}), ("char", {"user_defined_symbols": "<u>,qu"}),
                                        ("word", {}), ("word", {"user_defined_symbols": "<u>"})],
                ids=["char", "char_user", "word", "word_user"])
def model(request, tmp_path_factory):
    kind, extra = request.param
    tmp = tmp_path_factory.mktemp(kind)
    corpus = tmp / "train.txt"
    corpus.write_text(TRAIN * 3, encoding="utf-8")
    spm.SentencePieceTrainer.train(input=str(corpus), model_prefix=str(tmp / "m"), model_type=kind, vocab_size=60,
                                   hard_vocab_limit=False, minloglevel=2, **extra)
    path = str(tmp / "m.model")
    return SentencePieceProcessor(model_file=path), spm.SentencePieceProcessor(model_file=path)


@pytest.mark.parametrize("text", TEXTS)
def test_same_as_sentencepiece(model, text):
    ours, theirs = model
    assert ours.encode(text) == theirs.encode(text)
    assert ours.encode(text, out_type=str) == theirs.encode(text, out_type=str)
    assert ours.decode(theirs.encode(text)) == theirs.decode(theirs.encode(text))
    assert ours.encode([text, text], num_threads=2) == [theirs.encode(text)] * 2
    assert ours.encode(text, out_type="offset_mapping") == theirs.encode(text, out_type="offset_mapping")


def test_unigram_only_queries_fail(model):
    ours, _ = model
    with pytest.raises(RuntimeError):
        ours.nbest_encode("The dog", nbest_size=2)
    with pytest.raises(RuntimeError):
        ours.encode("The dog", enable_sampling=True, nbest_size=-1, alpha=0.1)
    with pytest.raises(ValueError):
        ours.sample_encode_and_score("The dog", num_samples=2)
