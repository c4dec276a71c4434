"""SentencePiece BPE cuts text into words (between characters consecutive in no piece) and
takes shortcuts for one-character words; these cases pin those shortcuts to sentencepiece:
USER_DEFINED pieces of one character and of several, pieces that only occur inside others,
runs of unknown characters, with and without byte fallback.  Expected values come from
sentencepiece on the same serialized model."""

from __future__ import annotations

import pytest

from tokenforge.sentencepiece import SentencePieceProcessor
from tokenforge.formats.sentencepiece_model import ModelType, PieceType

from .test_processor import build

spm = pytest.importorskip("sentencepiece")

N, UD = PieceType.NORMAL, PieceType.USER_DEFINED
# No UNUSED piece, so the text is cut into words.  "ď" and "[" are USER_DEFINED pieces of
# one character, "ĉ" a NORMAL one; "x" and "y" occur only inside "xy"; "[Z]" shares its
# first character with the one-character piece "[".
PIECES = [("▁", -1.0, N), ("a", -2.0, N), ("b", -3.0, N), ("c", -4.0, N), ("abc", -0.7, N), ("▁a", -1.2, N),
          ("bc", -1.1, N), ("[X]", 0.0, UD), ("[XY]", 0.0, UD), ("ď", 0.0, UD), ("[", 0.0, UD), ("[Z]", 0.0, UD),
          ("ĉ", -5.0, N), ("xy", -2.5, N), ("d", -6.0, N), ("ďd", -0.1, N)]
TEXTS = ["ď", "ďd", "dď", "ďďď", "a ď b", "[", "[[", "[Z]", "[Z", "[X][", "ĉ", "ĉĉ aĉ", "x", "y", "xy", "yx",
         "xyx", "😀", "ą😀ą", "ąąą ďą", "abc ďabc [XY]ĉ", "a\u4e00\u4e01b", " ".join(["ď[Zĉxy"] * 30)]


@pytest.fixture(params=[False, True], ids=["unk", "byte_fallback"])
def pair(request):
    data = build(ModelType.BPE, PIECES, byte_fallback=request.param)
    return SentencePieceProcessor(model_proto=data), spm.SentencePieceProcessor(model_proto=data)


@pytest.mark.parametrize("text", TEXTS)
def test_words_same_as_sentencepiece(pair, text):
    ours, theirs = pair
    assert ours.encode(text) == theirs.encode(text)
    assert ours.encode(text, out_type=str) == theirs.encode(text, out_type=str)


def test_words_in_batches(pair):
    ours, theirs = pair
    batch = TEXTS * 50
    assert ours.encode(batch, num_threads=2) == [theirs.encode(t) for t in batch]
    assert ours.encode(batch, out_type=str, num_threads=2) == [theirs.encode(t, out_type=str) for t in batch]
