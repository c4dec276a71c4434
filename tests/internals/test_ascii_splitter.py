"""The ASCII splitter (cpp/pretokenize/ascii_splitter.h) against the regexes themselves.

The splitter decides piece starts 64 bytes at a time from class masks and hands the
undecided rest to the scalar scanner, so its edges are: window ends (texts and runs of
lengths around multiples of 16, 32 and 64), a run of spaces, newlines, digits or
apostrophes crossing a window end, non-ASCII right after ASCII, `\\s+(?!\\S)` and `\\s*[\\r\\n]`
at window ends, text ending in spaces, `\\r\\n` runs, o200k's contraction chains, the
two-byte Latin-1 letters (U+00C0..U+00FF) that the AVX-512 and AVX2 paths classify, and
DeepSeek V3's digits that end a whitespace run's subject, punctuation before letters and
control bytes.
Every check runs at each level the CPU has (AVX-512, AVX2, SSE, scalar only) and compares the
piece ends with `regex` running the pattern; a few texts also go through tiktoken.  The
pure-Python reference of the rules (`tokenforge.reference.ascii_split`) is held to the
same regexes.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from _scanners import COMPILED, PATTERNS, reference_ends
from _tiktoken_refs import pair

from tokenforge import _native, patterns
from tokenforge.reference import ascii_split as reference

BEST = _native._testing.ascii_split_level(-1)
# Tekken has no ASCII splitter: its scalar scanner splits all of it (tests/_scanners.py checks it).
SCANNERS = [*(s for s in PATTERNS if s != patterns.Scanner.TEKKEN), patterns.Scanner.DEEPSEEK_V3]
LEVELS = list(range(BEST, -1, -1))
ALPHABET = "aA1 '\n\r\t.-_/(!$\x01sStTlLrReEvVdDmM9ÄßÿÞ×÷é中\u00a0"


def split_at_level(scanner, level: int, data: bytes) -> tuple[list[int], int]:
    """_native._testing.split with the splitter forced to `level` for the call."""
    old = _native._testing.ascii_split_level(level)
    try:
        return _native._split(int(scanner), data)
    finally:
        _native._testing.ascii_split_level(old)


def check(text: str) -> None:
    data = text.encode()
    for scanner in SCANNERS:
        want = reference_ends(scanner, text)
        for level in LEVELS:
            got, _ = split_at_level(scanner, level, data)
            assert got == want, (scanner, level, text)


def edge_texts() -> list[str]:
    runs = [" ", "  ", "\n", "\r\n", "\n  ", "  \n", "1", "'", "''", "/", "\t", "'s", "'LL", "..."]
    texts = []
    for n in (14, 15, 16, 17, 30, 31, 32, 33, 60, 61, 62, 63, 64, 65, 66, 127, 128, 129):
        for run in runs:
            for k in (1, 2, 3, 5, 40, 70):
                body = "word " * 30
                texts.append(body[:n] + run * k + "next")
                texts.append(body[:n] + run * k)  # the run ends the text
                texts.append(body[:n] + run * k + "é" + body)
        texts.append("x" * n + "é" + "y" * n)
        # A Latin-1 letter (two bytes, which the AVX-512 and AVX2 paths classify) at every offset
        # around the window ends, beside the signs × and ÷ (C3 97, C3 B7) that are not letters.
        for letter in ("Ä", "ß", "ÿ", "×", "÷", "Ä'S", "ä'll"):
            texts.append("wörd " * 3 + "x" * n + letter + "y" * n + " über 12")
            texts.append("Ü" * n + letter + "ab" + "Élan" * 20)
        texts.append("1" * n + " " + "2" * (n + 1))
    texts += [
        "don't's it's's a's's's'S'll 'll've'VE're",
        "CamelCaseWordsAndALLCAPSWords'S" * 5,
        "path/to/file.txt\n/usr/bin\n\n//comment\n/\n" * 4,
        "a.\n/b .\r\n\r\n/ c\n\n  \n\t\n   x" * 5,
        "def f(x):\n        return x  \n\n    \t  y\n" + " " * 70 + "z",
        "\r\n" * 50 + "a" + " \r\n" * 40,
        "x" + " " * 200 + "\n" + " " * 200,
        "1234567890" * 20 + "a12345",
        "'s'" * 40,
        "abc\x00\x01\x1f\x7f def\x0b\x0cghi" * 6,
        # DeepSeek V3: a blank run before digits stays whole; punctuation leads letters only
        # where it starts a piece (".b", but " .", "b" and "..", "c").
        "x  12 .foo (bar) a .b ..c \t. y\n \n z 3\t\t4 (x)y.z" * 5,
        "a\x01b \x01. \x1c\x1c.x\x7f(y" * 8,
    ]
    return texts


def test_splitter_decides_most_pieces_of_ascii_text():
    text = ("It's the model's text: 12345 words, don't   you\n\tthink?  (a/b) //x\r\n" * 30).encode()
    for scanner in SCANNERS:
        for level in LEVELS:
            ends, in_bulk = split_at_level(scanner, level, text)
            assert in_bulk <= len(ends)
            if level == 0:
                assert in_bulk == 0
            else:
                assert in_bulk > 0.9 * len(ends), (scanner, level)


def test_splitter_level_switch():
    assert BEST in (0, 1, 2, 3)
    old = _native._testing.ascii_split_level(0)
    assert _native._testing.ascii_split_level(-1) == 0
    _native._testing.ascii_split_level(old)
    assert _native._testing.ascii_split_level(-1) == old == BEST


@pytest.mark.parametrize("text", edge_texts())
def test_window_edges(text):
    check(text)


def test_random_small_alphabet():
    rng = random.Random(7)
    for _ in range(1500):
        n = rng.choice([3, 17, 63, 64, 65, 130, 300])
        weights = [rng.random() for _ in ALPHABET]
        if rng.random() < 0.7:
            weights[-3:] = [0.01, 0.01, 0.01]  # mostly ASCII and Latin-1 letters
        check("".join(rng.choices(ALPHABET, weights=weights, k=n)))


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list(ALPHABET) + ["x", "Y", "5", "\x0b", "!"]), max_size=300))
def test_hypothesis_small_alphabet(text):
    check(text)


def test_corpus_like_text_against_tiktoken():
    text = ("The model's outputs weren't checked: see https://example.com/a/b?c=1.\n\n"
            "    for (int i = 0; i < 1000000; ++i) {\n        x += y[i];  // sum\n    }\r\n") * 40
    for name in ("cl100k_base", "o200k_base"):
        ours, ref = pair(name)
        want = ref.encode_ordinary(text)
        for level in LEVELS:
            old = _native._testing.ascii_split_level(level)
            try:
                assert ours.encode_ordinary(text) == want
            finally:
                _native._testing.ascii_split_level(old)


REFERENCE_KINDS = {
    "cl100k": patterns.Scanner.CL100K,
    "llama3": patterns.Scanner.LLAMA3,
    "qwen2": patterns.Scanner.QWEN2,
    "o200k": patterns.Scanner.O200K,
    "gpt2": patterns.Scanner.GPT2,
    "deepseek_v3": patterns.Scanner.DEEPSEEK_V3,
}


@pytest.mark.parametrize("kind", sorted(REFERENCE_KINDS))
def test_reference_rules_equal_the_regex(kind):
    rng = random.Random(11)
    texts = edge_texts()[::7] + [
        "".join(rng.choices(ALPHABET, k=rng.choice([20, 64, 65, 150]))) for _ in range(150)
    ]
    for text in texts:
        pieces = reference.split(kind, text)
        assert "".join(pieces) == text
        if kind == "deepseek_v3":
            assert pieces == reference.deepseek_v3_pieces(text), text
        else:
            assert pieces == COMPILED[REFERENCE_KINDS[kind]].findall(text), text
