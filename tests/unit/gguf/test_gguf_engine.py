"""llama.cpp's encoding conventions in GGUFTokenizer, on small hand-made vocabularies whose
ids are worked out by hand from llama.cpp's rules (llama_vocab::impl::tokenize and
tokenizer_st_partition), plus decoding round trips on a test vocabulary."""

from __future__ import annotations

import pytest
from _gguf import need_gguf, tokenizer
from _shared import corpus_sample

from tokenforge.gguf.bytelevel import BYTE_TO_CHAR
from tokenforge.gguf import GGUFTokenizer, GGUFVocab

B2C = BYTE_TO_CHAR


def _spm(**changes) -> GGUFTokenizer:
    # 0 <unk>, 1 <s>, 2 </s>, 3 ▁, 4 a, 5 ▁a, 6 <u> (user-defined)
    base = dict(model="llama", tokens=["<unk>", "<s>", "</s>", "▁", "a", "▁a", "<u>"],
                scores=[0, 0, 0, -1, -2, -0.5, 0], token_types=[2, 3, 3, 1, 1, 1, 4])
    return GGUFTokenizer(GGUFVocab(**{**base, **changes}))


def _bpe(pre="gpt-2", specials=("<|x|>", "<|x|>y"), **changes) -> GGUFTokenizer:
    tokens = [B2C[b] for b in range(256)] + ["ab"] + list(specials)
    types = [1] * 257 + [3] * len(specials)
    base = dict(model="gpt2", pre=pre, tokens=tokens, token_types=types, merges=["a b"])
    return GGUFTokenizer(GGUFVocab(**{**base, **changes}))


def test_spm_space_prefix_at_start_and_after_each_special():
    tok = _spm()
    assert tok.encode("a a", add_special=False) == [5, 5]
    assert tok.encode("a<s>a", add_special=False, parse_special=True) == [5, 1, 5]
    assert tok.encode("a<u>a", add_special=False) == [5, 6, 5]  # user-defined: cut out even without parse_special


def test_spm_without_space_prefix():
    assert _spm(add_space_prefix=False).encode("a a", add_special=False) == [4, 5]


def test_spm_bos_by_default_and_flags():
    assert _spm().encode("a") == [1, 5]
    assert _spm(add_bos=False, add_eos=True).encode("a") == [5, 2]
    assert _spm().encode("") == [1]


def test_bpe_specials_only_when_parsed_longest_first():
    tok = _bpe()
    assert tok.encode("ab<|x|>y", add_special=False, parse_special=True) == [256, 258]
    assert tok.encode("ab<|x|>", add_special=False, parse_special=True) == [256, 257]
    assert tok.encode("<|x|>", add_special=False) == [ord(c) for c in "<|x|>"]  # byte tokens have their byte as id


def test_bpe_bos_default_follows_pre():
    bos = {"bos": 257}
    assert _bpe(pre="gpt-2", special_ids=bos).encode("ab") == [256]
    assert _bpe(pre="llama-bpe", special_ids=bos).encode("ab") == [257, 256]  # llama3 types add BOS
    assert _bpe(pre="llama-bpe", special_ids=bos, add_bos=False).encode("ab") == [256]


def test_bpe_ranks_follow_the_merge_order_not_the_ids():
    """Merge 0 makes "bc" (id 258), merge 1 "ab" (id 257): in "abc" the earlier merge wins,
    although "ab" has the smaller id."""
    tokens = [B2C[b] for b in range(256)] + ["zz", "ab", "bc"]
    tok = GGUFTokenizer(GGUFVocab(model="gpt2", pre="gpt-2", tokens=tokens, merges=["b c", "a b"]))
    assert tok.encode("abc", add_special=False) == [ord("a"), 258]
    assert tok.encode("ab", add_special=False) == [257]


def test_t5_adds_eos_by_default():
    tok = GGUFTokenizer(GGUFVocab(model="t5", tokens=["<pad>", "</s>", "<unk>", "▁", "a", "▁a"],
                                  scores=[0, 0, 0, -1, -2, -0.5], token_types=[3, 3, 2, 1, 1, 1], add_space_prefix=True))
    assert tok.encode("a a") == [5, 5, 1]


def test_phi3_strips_whitespace_after_its_special_tokens():
    need_gguf()
    tok = tokenizer("phi-3")
    assert tok.encode("<|user|>  \nhi", add_special=False, parse_special=True) == \
        tok.encode("<|user|>hi", add_special=False, parse_special=True)
    assert tok.encode("<s> hi", add_special=False, parse_special=True) != \
        tok.encode("<s>hi", add_special=False, parse_special=True)


@pytest.mark.parametrize("name", ["gpt-2", "llama-spm"])
def test_decode_round_trip(name):
    need_gguf()
    tok = tokenizer(name)
    text = corpus_sample("multi")[:20_000]
    for line in text.split("\n")[:200]:
        assert tok.decode(tok.encode(line, add_special=False)) == line
