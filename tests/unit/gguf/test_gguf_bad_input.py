"""Bad GGUF input gives a ValueError naming the problem, never a crash: files that are not
GGUF, truncated or corrupted ones, GGUFs without a tokenizer, merges naming absent tokens,
unknown models and pre-tokenizers."""

from __future__ import annotations

import random

import pytest
from _gguf import need_gguf

from tokenforge.gguf import GGUFTokenizer, GGUFVocab, pre_tokenizer, read_vocab, write_vocab


def _tiny(**changes) -> GGUFVocab:
    base = dict(model="gpt2", pre="gpt-2", tokens=["a", "b", "ab", "<|x|>"], token_types=[1, 1, 1, 3],
                merges=["a b"], special_ids={"eos": 3}, add_bos=False)
    return GGUFVocab(**{**base, **changes})


@pytest.fixture
def tiny_file(tmp_path):
    need_gguf()
    path = tmp_path / "tiny.gguf"
    write_vocab(_tiny(), path)
    return path


@pytest.mark.parametrize("content", [b"", b"GGU", b"hello world", b"\x00" * 64, b"GGUF"])
def test_not_gguf(tmp_path, content):
    need_gguf()
    path = tmp_path / "x.gguf"
    path.write_bytes(content)
    with pytest.raises(ValueError, match="x.gguf: (not a GGUF file|malformed GGUF file)"):
        read_vocab(path)


def test_every_truncation_is_a_value_error(tiny_file):
    data = tiny_file.read_bytes()
    for cut in range(len(data)):
        tiny_file.write_bytes(data[:cut])
        with pytest.raises(ValueError, match="tiny.gguf"):
            read_vocab(tiny_file)


def test_corrupted_bytes_never_crash(tiny_file):
    """Random byte changes: a ValueError or a vocabulary, never another exception (a corrupted
    array length once made gguf's reader allocate without bound)."""
    data = tiny_file.read_bytes()
    rng = random.Random(29)
    for _ in range(300):
        changed = bytearray(data)
        for _ in range(rng.randint(1, 3)):
            changed[rng.randrange(len(changed))] = rng.randrange(256)
        tiny_file.write_bytes(bytes(changed))
        try:
            GGUFTokenizer(read_vocab(tiny_file)).encode("ab")
        except ValueError:
            pass


def test_length_past_the_end(tiny_file):
    data = bytearray(tiny_file.read_bytes())
    data[16:24] = (10**12).to_bytes(8, "little")  # the key/value count
    tiny_file.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="malformed GGUF file: key 8 of 1000000000000: truncated"):
        read_vocab(tiny_file)


def test_gguf_without_tokenizer(tmp_path):
    gguf = need_gguf()
    path = tmp_path / "model.gguf"
    w = gguf.GGUFWriter(path, "llama")
    w.add_name("no tokenizer here")
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.close()
    with pytest.raises(ValueError, match=r"model.gguf: the GGUF file has no tokenizer \(no tokenizer.ggml.model key\)"):
        read_vocab(path)


def test_wrong_value_types(tmp_path):
    gguf = need_gguf()
    path = tmp_path / "w.gguf"
    w = gguf.GGUFWriter(path, "llama")
    w.add_tokenizer_model("gpt2")
    w.add_string("tokenizer.ggml.tokens", "not an array")
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.close()
    with pytest.raises(ValueError, match="tokenizer.ggml.tokens should be an array of strings"):
        read_vocab(path)


def test_short_scores():
    with pytest.raises(ValueError, match="tokenizer.ggml.scores has 1 values for 4 tokens"):
        GGUFTokenizer(_tiny(scores=[0.0]))


@pytest.mark.parametrize("merge, named", [("a c", "'c'"), ("ab b", "'abb'"), ("ab", None)])
def test_merges_naming_absent_tokens(merge, named):
    message = f"names {named}, which is not a token" if named else "is not two tokens separated by a space"
    with pytest.raises(ValueError, match=rf"tokenizer.ggml.merges\[0\] = '{merge}' {message}"):
        GGUFTokenizer(_tiny(merges=[merge]))


def test_unknown_model():
    with pytest.raises(ValueError, match="unknown tokenizer.ggml.model 'rwkv-9'"):
        GGUFTokenizer(_tiny(model="rwkv-9"))


def test_unknown_pre():
    with pytest.raises(ValueError, match="unknown tokenizer.ggml.pre 'gpt-17'"):
        GGUFTokenizer(_tiny(pre="gpt-17"))


@pytest.mark.parametrize("pre", ["kimi-k2", "afmoe", "gemma4", "whitespace"])
def test_custom_pre_tokenizers_are_not_guessed(pre):
    with pytest.raises(ValueError, match=f"'{pre}' .* not yet supported"):
        pre_tokenizer(pre)


def test_bert_without_an_unknown_token():
    with pytest.raises(ValueError, match="bert \\(WordPiece\\) vocabulary needs tokenizer.ggml.unknown_token_id"):
        GGUFTokenizer(_tiny(model="bert"))


def test_unknown_model():
    with pytest.raises(ValueError, match="unknown tokenizer.ggml.model 'rwkv'"):
        GGUFTokenizer(_tiny(model="rwkv"))


def test_add_bos_without_a_bos_id():
    with pytest.raises(ValueError, match="add_bos_token is true but the vocabulary has no bos id"):
        GGUFTokenizer(_tiny(add_bos=True))


def test_gpt2_without_merges():
    with pytest.raises(ValueError, match="needs tokenizer.ggml.merges"):
        GGUFTokenizer(_tiny(merges=None))


def test_bad_token_type():
    with pytest.raises(ValueError, match="token_type holds 9"):
        GGUFTokenizer(_tiny(token_types=[1, 1, 9, 3]))


@pytest.mark.parametrize("data, message", [({"model": {"type": "WordPiece"}}, "a 'WordPiece' model, not byte-level BPE"),
                                           ({"x": 1}, "not a tokenizer.json"),
                                           ({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": []},
                                             "pre_tokenizer": None}, "no split regex: pass pre=")])
def test_bad_tokenizer_json(data, message):
    from tokenforge.gguf.convert import vocab_from_tokenizer_json

    with pytest.raises(ValueError, match=message):
        vocab_from_tokenizer_json(data)
