"""The table of llama.cpp's pre-tokenizers and the regex-sequence splitter, on hand-worked
examples (each piece below is worked out from the regexes in llama.cpp's llama-vocab.cpp)."""

from __future__ import annotations

import pytest
import regex

from tokenforge.gguf.pretokenizers import PRE_NAMES, PRE_TYPES, pre_tokenizer
from tokenforge.gguf.split import SequenceSplitter

ISSUE_NAMES = ["default", "llama-bpe", "llama3", "gpt-2", "qwen2", "deepseek-llm", "deepseek-coder", "deepseek-v3",
               "falcon", "mpt", "starcoder", "refact", "command-r", "olmo", "dbrx", "smaug-bpe", "poro-chat",
               "stablelm2", "chatglm-bpe", "tekken", "gpt-4o"]


@pytest.mark.parametrize("name", sorted(PRE_NAMES))
def test_every_name_resolves_or_says_why_not(name):
    try:
        pre = pre_tokenizer(name)
    except ValueError as e:
        assert "not yet supported" in str(e) and not PRE_TYPES[PRE_NAMES[name][0]].supported
        return
    for pattern in pre.regexes + pre.llama_cpp_regexes:
        regex.compile(pattern)


def test_the_issues_names_are_all_supported():
    for name in ISSUE_NAMES:
        assert pre_tokenizer(name).supported


def test_missing_pre_is_default():
    assert pre_tokenizer(None).type == pre_tokenizer("").type == "default"


def test_flags_follow_llama_cpp():
    assert pre_tokenizer("llama-bpe").ignore_merges and pre_tokenizer("llama-bpe").add_bos
    assert pre_tokenizer("tekken").ignore_merges and pre_tokenizer("tekken").add_bos
    assert pre_tokenizer("minicpm5").ignore_merges and not pre_tokenizer("minicpm5").add_bos
    assert not pre_tokenizer("gpt-2").ignore_merges and not pre_tokenizer("dbrx").add_bos


@pytest.mark.parametrize("name, text, pieces", [
    # [\r\n] | \s?\p{L}+ | \s?\p{P}+ | CJK | \p{N}, each on the pieces of the one before.
    ("deepseek-coder", "Hello 123\nworld", ["Hello", " ", "1", "2", "3", "\n", "world"]),
    # punctuation runs, then GPT-2's regex, then three-digit groups.
    ("falcon", "x=1234", ["x", "=", "123", "4"]),
    # one digit at a time, then GPT-2's regex.
    ("starcoder", "v2 12ab", ["v", "2", " ", "1", "2", "ab"]),
    # up to three digits, runs of Han/kana, then the main regex.
    ("deepseek-v3", "abc12345日本語x", ["abc", "123", "45", "日本語", "x"]),
    # a zero-width lookahead only marks cuts: digit groups of three from the right.
    ("superbpe", "n=1234567", ["n=", "1", "234", "567"]),
])
def test_sequences_split_by_hand(name, text, pieces):
    assert SequenceSplitter(pre_tokenizer(name).regexes).split(text) == pieces


def test_llama_cpp_spelling_differs_from_the_original_only_on_long_s():
    pre = pre_tokenizer("qwen2")
    ours, theirs = regex.compile(pre.regexes[0]), regex.compile(pre.llama_cpp_regexes[0])
    assert ours.findall("it's It'S") == theirs.findall("it's It'S") == ["it", "'s", " It", "'S"]
    assert ours.findall("x'ſt") == ["x", "'ſ", "t"] and theirs.findall("x'ſt") == ["x", "'ſt"]
    # The model's own tokenizer (HF tokenizers, Oniguruma) folds ſ too: ours is the exact one.
    tokenizers = pytest.importorskip("tokenizers")
    split = tokenizers.pre_tokenizers.Split(tokenizers.Regex(pre.regexes[0]), behavior="isolated")
    assert [p for p, _ in split.pre_tokenize_str("x'ſt")] == ["x", "'ſ", "t"]


def test_splitter_rejects_bad_regex():
    with pytest.raises(ValueError, match="does not compile"):
        SequenceSplitter(["(unclosed"])
