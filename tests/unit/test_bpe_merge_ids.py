"""models/bpe.py's native load path (`_native.bpe_merge_ids`, `valid_vocab`) against its
readable Python path: the same ids for both merge forms and a continuing-subword prefix, and
every input it does not take (mixed forms, surrogates, a str subclass, bad ids, absent
tokens) left to the Python path, which names the problem."""

from __future__ import annotations

import json

import pytest
from _shared import MODELS, need_shared

from tokenforge import _native
from tokenforge.models import from_dict
from tokenforge.models.bpe import BPE, _parse_merges, _uint32s


def _python_ids(vocab, merges, plen=0):
    pairs = _parse_merges(merges)
    return [[vocab[a] for a, _ in pairs], [vocab[b] for _, b in pairs], [vocab[a + b[plen:]] for a, b in pairs]]


def _native_ids(vocab, merges, plen=0):
    found = _native.bpe_merge_ids(vocab, merges, plen)
    return None if found is None else [list(_uint32s(b)) for b in found]


VOCAB = {"a": 0, "b": 1, "ab": 2, "é": 3, "aé": 4, "##b": 5, "a##b": 6, "😀": 7, "😀a": 8, "": 9}


def test_both_forms_and_prefix():
    for merges in (["a b", "a é", "😀 a"], [["a", "b"], ("a", "é"), ["😀", "a"]]):
        model = BPE(VOCAB, merges)
        assert _native_ids(VOCAB, merges) == _python_ids(VOCAB, merges)
        assert [list(x) for x in model.merge_ids] == _python_ids(VOCAB, merges)
        assert model.merges == [("a", "b"), ("a", "é"), ("😀", "a")]
    model = BPE(VOCAB, ["a ##b"], continuing_subword_prefix="##")
    assert [list(x) for x in model.merge_ids] == [[0], [5], [2]]


@pytest.mark.parametrize("merges", [["a b", ["a", "b"]], ["a  b"], ["ab"], [["a", "b", "c"]], ["a \ud800"],
                                    [1], [["a", 1]], ["a x"], [["x", "b"]], ["a b", "a b", "b a"]])
def test_uncommon_inputs_go_to_python(merges):
    """None from the native helper, and the Python path's own answer (an error or the ids)."""
    assert _native_ids(VOCAB, merges) is None
    try:
        expected = _python_ids(VOCAB, merges)
    except (ValueError, KeyError):
        with pytest.raises(ValueError):
            BPE(VOCAB, merges)
    else:
        assert [list(x) for x in BPE(VOCAB, merges).merge_ids] == [list(x) for x in expected]


def test_str_subclass_and_bad_vocab():
    class S(str):
        pass

    assert _native.bpe_merge_ids(VOCAB, [S("a b")], 0) is None
    assert _native.bpe_merge_ids({"a": -1, "b": 1, "ab": 2}, ["a b"], 0) is None
    assert _native.bpe_merge_ids({"a": True, "b": 1, "ab": 2}, ["a b"], 0) is None
    assert not _native.valid_vocab({"a": True})
    assert not _native.valid_vocab({"a": 2 ** 40})
    assert not _native.valid_vocab({1: 1})
    assert _native.valid_vocab({"a": 0, "\ud800": 1})  # keys are only checked to be strs here
    with pytest.raises(ValueError, match="vocab must map tokens"):
        from_dict({"type": "BPE", "vocab": {"a": -1}, "merges": []})
    with pytest.raises(ValueError, match="names 'x', which is not in the vocab"):
        BPE(VOCAB, ["a x"])


@pytest.mark.parametrize("name", ["gpt2", "llama3", "mistral_v1", "qwen3", "gemma"])
def test_shared_files(name):
    need_shared()
    d = json.loads((MODELS / "hf" / f"{name}_tokenizer.json").read_text(encoding="utf-8"))["model"]
    model = from_dict(d)
    assert [list(x) for x in model.merge_ids] == [list(x) for x in _python_ids(d["vocab"], d["merges"])]
    assert model.merges == _parse_merges(d["merges"])


def test_loaded_model_leaves_no_lists_for_the_collector():
    """Merges written as [a, b] must not stay behind as lists: every full collection of the
    user's process would walk each of them for the life of the model."""
    import gc

    from tokenforge import Tokenizer

    vocab = {chr(0x100 + i): i for i in range(200)}
    merges = []
    for i in range(199):
        a, b = chr(0x100 + i), chr(0x100 + i + 1)
        vocab[a + b] = len(vocab)
        merges.append([a, b])
    text = json.dumps({"model": {"type": "BPE", "vocab": vocab, "merges": merges}})
    gc.collect()
    before = len(gc.get_objects())
    tok = Tokenizer.from_str(text)
    gc.collect()
    assert len(gc.get_objects()) - before < 100
    assert tok.model.merges[:2] == [(chr(0x100), chr(0x101)), (chr(0x101), chr(0x102))]
    assert json.loads(tok.to_str())["model"]["merges"][0] == [chr(0x100), chr(0x101)]
