"""tokenforge.minbpe against hand-worked examples and the pure-Python reference of minbpe's algorithm.

minbpe is not on PyPI, so the expected merges come from minbpe's documented example, from
examples worked by hand, and from tokenforge.minbpe.reference (minbpe's algorithm written
plainly: every merge rescans the text and takes max() over a first-seen-ordered dict).
"""

from __future__ import annotations

import random

import pytest
import regex

from tokenforge.minbpe import BasicTokenizer, RegexTokenizer
from tokenforge.minbpe import reference as R


def chunks_of(tok, text):
    if isinstance(tok, BasicTokenizer):
        return [list(text.encode("utf-8"))]
    return [list(c.encode("utf-8")) for c in regex.findall(tok.pattern, text)]


def test_documented_example():
    # minbpe's README: 3 merges of "aaabdaaabac" encode it as [258, 100, 258, 97, 99].
    tok = BasicTokenizer()
    tok.train("aaabdaaabac", 256 + 3)
    assert tok.encode("aaabdaaabac") == [258, 100, 258, 97, 99]
    assert tok.decode([258, 100, 258, 97, 99]) == "aaabdaaabac"
    # (256, 97) and (97, 98) both occur twice after the first merge: (256, 97) is seen first.
    assert tok.merges == {(97, 97): 256, (256, 97): 257, (257, 98): 258}
    assert tok.vocab[258] == b"aaab"


def test_tie_rule_first_seen_not_smallest():
    # Worked by hand: in "bcab" every pair occurs once; minbpe takes (b, c), the first seen
    # (HF's rule would take (a, b), the smallest).  Then (bc, a), then (bca, b).
    tok = BasicTokenizer()
    tok.train("bcab", 256 + 3)
    assert tok.merges == {(98, 99): 256, (256, 97): 257, (257, 98): 258}
    # Regex: chunks "xy", " ab", " xy", " ab"; (a, b) and (x, y) occur twice, " a" and " x"
    # twice too; (x, y) is seen first.
    tok = RegexTokenizer()
    tok.train("xy ab xy ab", 257)
    assert tok.merges == {(120, 121): 256}


def test_overlapping_pair_merges_left_to_right():
    tok = BasicTokenizer()
    tok.train("aaa", 257)  # (a, a) twice in "aaa", merged as (aa)a
    assert tok.encode("aaa") == [256, 97]
    assert tok.encode("aaaaa") == [256, 256, 97]


def test_stops_when_no_pair_is_left():
    tok = RegexTokenizer()
    tok.train("a b c", 300)  # chunks "a", " b", " c": two pairs, then nothing to merge
    assert tok.merges == {(32, 98): 256, (32, 99): 257}
    with pytest.raises(ValueError):
        tok.train("abc", 100)


@pytest.mark.parametrize("cls", [BasicTokenizer, RegexTokenizer])
def test_native_training_and_encoding_equal_reference_on_random_text(cls):
    rng = random.Random(31)
    for _ in range(300):
        alphabet = rng.choice(["ab", "ab c", "ab c\n", "aé 1'"])
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(2, 150)))
        tok = cls()
        tok.train(text, 256 + rng.randint(1, 50))
        want = R.train(chunks_of(tok, text), 256 + 50)
        assert tok.merges == dict(list(want.items())[: len(tok.merges)]), text
        assert len(tok.merges) == len(want) or len(tok.merges) < 50
        other = "".join(rng.choice(alphabet) for _ in range(60))
        assert tok.encode(other) == [i for c in chunks_of(tok, other) for i in R.encode_chunk(c, tok.merges)]
        assert tok.decode(tok.encode(other)) == other


def test_encode_falls_back_when_two_merges_make_the_same_bytes(tmp_path):
    # 257 = ab+c and 259 = a+bc are both "abc": the native engine maps bytes to one id, so
    # encoding takes minbpe's own loop.  By hand: "abc" -> (a, b) first -> [ab, c] -> [257];
    # "bcbc" -> [bc, bc] (no merge of (bc, bc)).
    path = tmp_path / "dup.model"
    path.write_text("minbpe v1\n\n0\n97 98\n256 99\n98 99\n97 258\n")
    tok = RegexTokenizer()
    tok.load(str(path))
    assert tok._engine() is None
    assert tok.encode("abc") == [257]
    assert tok.encode("bcbc") == [258, 258]
    assert tok.decode([259, 257]) == "abcabc"


def test_allowed_special_policy():
    tok = RegexTokenizer()
    tok.train("hello world " * 3, 256 + 5)
    tok.register_special_tokens({"<|eot|>": 1000, "<|pad|>": 1001})
    text = "hi<|eot|>yo<|pad|>"
    with pytest.raises(ValueError, match="eot"):
        tok.encode(text)
    assert tok.encode(text, allowed_special="none") == tok.encode_ordinary(text)
    assert tok.encode(text, allowed_special="all") == [104, 105, 1000, 121, 111, 1001]
    assert tok.encode(text, allowed_special={"<|pad|>"})[-1] == 1001
    assert 1000 not in tok.encode(text, allowed_special={"<|pad|>"})
    with pytest.raises(ValueError, match="not understood"):
        tok.encode(text, allowed_special="some")
    assert tok.decode([104, 1000]) == "h<|eot|>"
    with pytest.raises(ValueError, match="invalid token id"):
        tok.decode([5000])


def test_save_writes_minbpe_files_and_load_round_trips(tmp_path):
    tok = BasicTokenizer()
    tok.train("aaabdaaabac", 256 + 3)
    model, vocab = tok.save(tmp_path / "toy")
    # minbpe's layout, worked by hand: version, pattern ("" for Basic), specials, merges.
    assert open(model).read() == "minbpe v1\n\n0\n97 97\n256 97\n257 98\n"
    lines = open(vocab, encoding="utf-8").read().splitlines()
    assert lines[0] == "[\\u0000] 0" and lines[97] == "[a] 97"
    assert lines[256:] == ["[a][a] -> [aa] 256", "[aa][a] -> [aaa] 257", "[aaa][b] -> [aaab] 258"]
    back = BasicTokenizer()
    back.load(model)
    assert back.merges == tok.merges and back.encode("aaabdaaabac") == [258, 100, 258, 97, 99]


def test_regex_round_trip_with_specials_and_pattern(tmp_path):
    from tokenforge.minbpe import GPT2_SPLIT_PATTERN

    tok = RegexTokenizer(GPT2_SPLIT_PATTERN)
    tok.train("the cat sat on the mat, the end. " * 20, 256 + 30)
    tok.register_special_tokens({"<|endoftext|>": 286})
    model, _ = tok.save(str(tmp_path / "r"))
    lines = open(model).read().splitlines()
    assert lines[:4] == ["minbpe v1", GPT2_SPLIT_PATTERN, "1", "<|endoftext|> 286"]
    back = RegexTokenizer()  # the loaded pattern replaces the default
    back.load(model)
    assert back.pattern == GPT2_SPLIT_PATTERN and back.special_tokens == {"<|endoftext|>": 286}
    text = "the cat<|endoftext|> sat on a mat"
    assert back.encode(text, allowed_special="all") == tok.encode(text, allowed_special="all")


@pytest.mark.parametrize(
    "content, message",
    [("minbpe v2\n\n0\n", "not a minbpe v1"), ("minbpe v1\n\n0\n97 x\n", "line 4"), ("minbpe v1\n\n0\n97 300\n", "line 4")],
)
def test_load_rejects_bad_files(tmp_path, content, message):
    path = tmp_path / "bad.model"
    path.write_text(content)
    with pytest.raises(ValueError, match=message):
        RegexTokenizer().load(str(path))
    with pytest.raises(ValueError, match=".model"):
        RegexTokenizer().load(str(tmp_path / "bad.txt"))
    with pytest.raises(OSError):
        RegexTokenizer().load(str(tmp_path / "missing.model"))
