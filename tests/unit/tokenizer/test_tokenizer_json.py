"""Tokenizer API, bad input and file writing; expected values worked by hand or from tokenizers."""

from __future__ import annotations

import json
import os

import pytest

from tokenforge.tokenizer import AddedToken, Tokenizer

WORDLEVEL = {"model": {"type": "WordLevel", "vocab": {"a": 0, "b": 1, "[UNK]": 2}, "unk_token": "[UNK]"},
             "pre_tokenizer": {"type": "WhitespaceSplit"}}


def _bpe(merges) -> dict:
    return {"model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": merges}}


def test_malformed_json():
    with pytest.raises(ValueError, match="not valid JSON"):
        Tokenizer.from_str("{not json")
    with pytest.raises(ValueError, match="no model"):
        Tokenizer.from_str("{}")


@pytest.mark.parametrize("field,obj", [
    ("normalizer", {"type": "Nope"}), ("pre_tokenizer", {"type": "Nowhere"}),
    ("post_processor", {"type": "Mystery"}), ("decoder", {"type": "Bogus"}), ("model", {"type": "Rainbow"}),
])
def test_unknown_component_is_named(field, obj):
    d = dict(WORDLEVEL)
    d[field] = obj
    with pytest.raises(ValueError, match=obj["type"]):
        Tokenizer.from_str(json.dumps(d))


def test_merges_naming_absent_tokens():
    with pytest.raises(ValueError, match="'c'"):
        Tokenizer.from_dict(_bpe(["a c"]))
    with pytest.raises(ValueError, match="not two tokens"):
        Tokenizer.from_dict(_bpe(["a b c"]))
    assert Tokenizer.from_dict(_bpe([["a", "b"]])).encode("ab").ids == [2]
    assert Tokenizer.from_dict(_bpe(["a b"])).encode("abab").tokens == ["ab", "ab"]


def test_decode_out_of_range_raises():
    """tokenizers drops unknown ids silently; tokenforge raises (dropping loses text)."""
    tok = Tokenizer.from_dict(WORDLEVEL)
    assert tok.decode([0, 1]) == "a b"
    with pytest.raises(ValueError, match="10"):
        tok.decode([0, 10])
    with pytest.raises(ValueError):
        tok.decode([-1])


def test_lone_surrogate_raises():
    tok = Tokenizer.from_file(_gpt2()) if os.path.exists(_gpt2()) else None
    if tok is None:
        pytest.skip("needs ../shared/models/hf/gpt2_tokenizer.json")
    with pytest.raises(ValueError, match="surrogate"):
        tok.encode("a\ud800b")
    # Every batch path names the character, as str.encode does (2-byte and 4-byte strs; two
    # surrogates in a row are two lone ones to Python).
    for text, at in [("a\ud800b", 1), ("\u00e9t\u00e9 \udc00", 4), ("x\U0001F600\ud83d\ude00", 2)]:
        for truncate in (False, True):
            if truncate:
                tok.enable_truncation(2)
            else:
                tok.no_truncation()
            for encode in (tok.encode_batch, tok.encode_batch_fast):
                with pytest.raises(ValueError, match=f"surrogate at character {at}$"):
                    encode(["fine", "long enough to be cut " * 3, text])
    tok.no_truncation()


def _gpt2() -> str:
    from _shared import MODELS
    return str(MODELS / "hf" / "gpt2_tokenizer.json")


def test_added_tokens_and_vocab():
    tok = Tokenizer.from_dict(WORDLEVEL)
    assert tok.add_special_tokens(["<s>"]) == 1
    assert tok.add_tokens([AddedToken("zz", single_word=True)]) == 1
    assert tok.token_to_id("<s>") == 3 and tok.id_to_token(4) == "zz"
    assert tok.get_vocab_size() == 5 and tok.get_vocab_size(with_added_tokens=False) == 3
    e = tok.encode("a<s>b zz azz")
    assert e.tokens == ["a", "<s>", "b", "zz", "[UNK]"]
    assert e.offsets == [(0, 1), (1, 4), (4, 5), (6, 8), (9, 12)]
    assert tok.decode(e.ids) == "a b zz [UNK]"
    assert tok.decode(e.ids, skip_special_tokens=False) == "a <s> b zz [UNK]"


def test_to_file_is_atomic_and_loads(tmp_path):
    tok = Tokenizer.from_dict(WORDLEVEL)
    path = tmp_path / "tokenizer.json"
    tok.to_file(path)
    assert Tokenizer.from_file(path).encode("a b").ids == [0, 1]
    assert [p.name for p in tmp_path.iterdir()] == ["tokenizer.json"]
    with pytest.raises(OSError):
        tok.to_file(tmp_path / "missing" / "t.json")


def test_encoding_fields_and_template():
    d = dict(WORDLEVEL)
    d["post_processor"] = {"type": "BertProcessing", "sep": ["[SEP]", 5], "cls": ["[CLS]", 6]}
    tok = Tokenizer.from_dict(d)
    e = tok.encode("a b", "b")
    assert e.ids == [6, 0, 1, 5, 1, 5]
    assert e.type_ids == [0, 0, 0, 0, 1, 1]
    assert e.special_tokens_mask == [1, 0, 0, 1, 0, 1]
    assert e.word_ids == [None, 0, 1, None, 0, None]
    assert e.offsets == [(0, 0), (0, 1), (2, 3), (0, 0), (0, 1), (0, 0)]


def test_from_encoding_written_loads_in_tokenizers():
    """A trained byte-level encoding as a tokenizer.json: tokenizers loads our to_str and gives
    the ids tokenforge.Encoding gives."""
    tokenizers = pytest.importorskip("tokenizers")
    import tokenforge

    texts = ["the quick brown fox jumps over the lazy dog's back, 123 times!"] * 20 + ["héllo wörld 你好"] * 5
    enc = tokenforge.BpeTrainer(300, pat_str=tokenforge.patterns.CL100K, special_tokens=["<|end|>"], show_progress=False).train_from_iterator(texts)
    tok = Tokenizer.from_encoding(enc)
    ref = tokenizers.Tokenizer.from_str(tok.to_str())
    for text in texts[:1] + texts[-1:] + ["fox<|end|>dog  \n\n 42"]:
        want = enc.encode(text, allowed_special="all")
        assert tok.encode(text).ids == want
        assert ref.encode(text).ids == want
        assert tok.decode(want, skip_special_tokens=False) == ref.decode(want, skip_special_tokens=False) == text
