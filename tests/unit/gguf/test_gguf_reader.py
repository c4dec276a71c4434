"""tokenforge's own GGUF walk (`read_vocab`) against `gguf.GGUFReader` (`read_vocab_with_gguf`,
llama.cpp's reader): the same values on every test vocabulary, on files with tensors and
keys of every GGUF type, and on random vocabularies."""

from __future__ import annotations

import pytest
from _gguf import need_gguf, vocab_path
from hypothesis import given, settings
from hypothesis import strategies as st

from tokenforge.gguf import GGUFVocab, read_vocab, write_vocab
from tokenforge.gguf.reader import read_vocab_with_gguf


@pytest.mark.parametrize("name", ["llama-spm", "phi-3", "deepseek-coder", "bert-bge"])  # the quick ones for
def test_test_vocabularies_read_as_gguf_reads_them(name):  # GGUFReader; the bench checks all (its `same` column)
    need_gguf()
    assert read_vocab(vocab_path(name), reader="tokenforge") == read_vocab_with_gguf(vocab_path(name))


def test_a_file_with_tensors_and_every_value_type(tmp_path):
    gguf = need_gguf()
    np = pytest.importorskip("numpy")
    t = gguf.GGUFValueType
    path = tmp_path / "model.gguf"
    w = gguf.GGUFWriter(str(path), "llama")
    w.add_name("tiny model")
    w.add_uint32("llama.block_count", 2)
    w.add_array("llama.rope.something", [1.5, 2.5])
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre("gpt-2")
    w.add_token_list(["a", "b", "ab", "é"])
    w.add_token_merges(["a b"])
    w.add_token_types([1, 1, 1, 1])
    w.add_chat_template("{{ messages }}")
    for k, (value, kind) in enumerate([(7, t.UINT8), (-7, t.INT8), (700, t.UINT16), (-700, t.INT16),
                                       (70000, t.UINT32), (-70000, t.INT32), (0.25, t.FLOAT32), (True, t.BOOL),
                                       (2**40, t.UINT64), (-(2**40), t.INT64), (0.1, t.FLOAT64), ("x", t.STRING)]):
        w.add_key_value(f"tokenizer.ggml.extra_{k}", value, kind)
    w.add_key_value("tokenizer.ggml.extra_ints", [1, -2, 3], t.ARRAY, t.INT64)
    w.add_key_value("tokenizer.ggml.extra_bools", [True, False], t.ARRAY, t.BOOL)
    w.add_key_value("tokenizer.ggml.extra_bytes", b"\x00\xff", t.ARRAY, t.UINT8)
    w.add_tensor("token_embd.weight", np.arange(12, dtype=np.float32).reshape(3, 4))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    ours, theirs = read_vocab(path, reader="tokenforge"), read_vocab_with_gguf(path)
    assert ours == theirs
    assert ours.tokens == ["a", "b", "ab", "é"] and ours.name == "tiny model" and ours.architecture == "llama"
    assert ours.extra["tokenizer.chat_template"][0] == "{{ messages }}"
    assert ours.extra["tokenizer.ggml.extra_9"][0] == -(2**40)
    assert ours.extra["tokenizer.ggml.extra_bools"][0] == [True, False]


texts = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=8)


@settings(max_examples=40, deadline=None)
@given(tokens=st.lists(texts, min_size=1, max_size=30), data=st.data())
def test_random_vocabularies_read_as_gguf_reads_them(tmp_path_factory, tokens, data):
    need_gguf()
    n = len(tokens)
    vocab = GGUFVocab(model=data.draw(st.sampled_from(["llama", "t5", "gpt2", "bert"])), tokens=tokens,
                      scores=data.draw(st.lists(st.floats(-1e6, 1e6, width=32), min_size=n, max_size=n)),
                      token_types=data.draw(st.lists(st.integers(0, 6), min_size=n, max_size=n)),
                      merges=data.draw(st.lists(texts, max_size=5)) or None,
                      special_ids=data.draw(st.dictionaries(st.sampled_from(["bos", "eos", "unk", "pad"]),
                                                            st.integers(0, 2**31))),
                      add_bos=data.draw(st.none() | st.booleans()),
                      precompiled_charsmap=data.draw(st.none() | st.binary(min_size=1, max_size=40)))
    path = tmp_path_factory.mktemp("r") / "v.gguf"
    write_vocab(vocab, path)
    ours = read_vocab(path, reader="tokenforge")
    assert ours == read_vocab_with_gguf(path)
    assert (ours.tokens, ours.scores, ours.token_types, ours.merges) == (vocab.tokens, vocab.scores,
                                                                         vocab.token_types, vocab.merges)
