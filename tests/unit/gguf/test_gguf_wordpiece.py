"""llama.cpp's WPM (``bert``) rules on a small hand-made vocabulary; every expected value is
worked by hand from llm_tokenizer_wpm_session (llama.cpp src/llama-vocab.cpp) and
unicode_cpts_normalize_nfd / gen-unicode-data.py (one code point -> the first of its NFD)."""

from __future__ import annotations

import pytest

from tokenforge.gguf import GGUFTokenizer, GGUFVocab
from tokenforge.gguf.convert_bert import vocab_from_wordpiece
from tokenforge.gguf.wordpiece import words

#         0        1        2        3        4       5      6       7      8     9     10     11
TOKENS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "▁un", "aff", "able", "▁a", "▁!", "▁e", "▁ᄒ", "▁,"]


def _bert(**changes) -> GGUFTokenizer:
    base = dict(model="bert", tokens=TOKENS, token_types=[3, 3, 3, 3] + [1] * 8,
                special_ids={"unk": 1, "cls": 2, "sep": 3, "pad": 0})
    return GGUFTokenizer(GGUFVocab(**{**base, **changes}))


@pytest.mark.parametrize("text, expected", [
    ("Unaffable", ["unaffable"]),
    ("a,b", ["a", ",", "b"]),  # punctuation is a word of its own
    ("a$b", ["a", "$", "b"]),  # so is an ASCII symbol ...
    ("a€b", ["a€b"]),  # ... but not a symbol above U+007F
    ("中文", ["中", "文"]),  # CJK ideographs one by one
    ("É", ["e"]),  # the first code point of NFD, lowercased
    ("e\u0301", ["e\u0301"]),  # a combining mark already in the text stays (HF would drop it)
    ("한", ["\u1112"]),  # a Hangul syllable keeps its leading consonant only
    ("a\u200bb\x00c\ufffd", ["abc"]),  # format/control characters, NUL and U+FFFD dropped
    ("a\u3000b\u00a0c", ["a", "b", "c"]),  # Unicode whitespace separates
])
def test_words(text, expected):
    assert words(text) == expected


def test_greedy_longest_match_and_unknown_words():
    tok = _bert()
    assert tok.encode("unaffable", add_special=False) == [4, 5, 6]
    assert tok.encode("Unaffable, a!", add_special=False) == [4, 5, 6, 11, 7, 8]
    # "unx": "▁un" matches, then nothing does: the whole word becomes [UNK]
    assert tok.encode("unx a", add_special=False) == [1, 7]
    assert tok.encode("É", add_special=False) == [9]
    assert tok.encode("한", add_special=False) == [10]


def test_cls_and_sep():
    tok = _bert()
    assert tok.encode("a") == [2, 7, 3]
    assert tok.encode("") == [2, 3]
    assert tok.encode("a", add_special=False) == [7]
    # with special-token parsing, [SEP] in the text is that token; without, it is text
    assert tok.encode("a [SEP] a", add_special=False, parse_special=True) == [7, 3, 7]
    assert tok.encode("a [SEP]", add_special=False) == [7, 1, 1, 1]  # "[", "sep" (unknown), "]"


def test_bos_falls_back_to_cls_and_unk_is_required():
    assert _bert(special_ids={"unk": 1, "cls": 11, "sep": 3}).encode("a") == [11, 7, 3]
    with pytest.raises(ValueError, match="unknown_token_id"):
        _bert(special_ids={"cls": 2, "sep": 3, "unk": 99})


def test_decode():
    tok = _bert()
    assert tok.decode([2, 4, 5, 6, 11, 7, 3]) == "unaffable , a"


def _wordpiece_json(**changes):
    j = {"model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                   "vocab": {"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, "un": 3, "##able": 4}},
         "normalizer": {"type": "BertNormalizer", "lowercase": True, "strip_accents": None},
         "pre_tokenizer": {"type": "BertPreTokenizer"}}
    for key, value in changes.items():
        j[key] = value
    return j


@pytest.mark.parametrize("changes, message", [
    ({"normalizer": {"type": "BertNormalizer", "lowercase": False}}, "lowercases"),
    ({"normalizer": {"type": "BertNormalizer", "lowercase": True, "strip_accents": False}}, "strips accents"),
    ({"normalizer": None}, "normalizer None"),
    ({"pre_tokenizer": {"type": "Whitespace"}}, "pre-tokenizer 'Whitespace'"),
    ({"model": {"type": "BPE", "vocab": {}, "merges": []}}, "not WordPiece"),
    ({"model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "@@", "vocab": {"[UNK]": 0}}},
     "continuing_subword_prefix"),
    ({"model": {"type": "WordPiece", "unk_token": "<unk>", "vocab": {"[UNK]": 0}}}, "unk_token"),
])
def test_wordpiece_files_llama_cpp_would_encode_differently_are_refused(changes, message):
    with pytest.raises(ValueError, match=message):
        vocab_from_wordpiece(_wordpiece_json(**changes))


def test_added_tokens_and_holes():
    j = _wordpiece_json(added_tokens=[{"id": 6, "content": "[NEW]", "special": True},
                                      {"id": 7, "content": "hello", "special": False}])
    v = vocab_from_wordpiece(j)
    assert v.tokens == ["[UNK]", "[CLS]", "[SEP]", "▁un", "able", "[PAD5]", "[NEW]", "▁hello"]
    assert v.token_types == [1, 1, 1, 1, 1, 5, 3, 4]
