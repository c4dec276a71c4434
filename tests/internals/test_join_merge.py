"""The merge of non-ASCII pieces by token ids (merge_joins with JoinIndex, and whole pieces
without safe cuts in vocabularies such as o200k) against tiktoken, on made-up text:

- words of one script (Cyrillic, Greek, Arabic, Hebrew, Hangul, Devanagari, Thai, CJK,
  kana), and of several mixed, with ASCII letters, digits and emoji between;
- pieces of 240-270 bytes, on both sides of the whole-piece limit (kShortPiece);
- pieces that are runs of one non-ASCII character, or of characters that are not tokens
  (joined from their bytes), and four-byte characters (never atoms);
- pieces that repeat a short word (the same join at several places);
- a toy vocabulary where a token spells two parts in several ways, in both regimes.

Expected ids always come from tiktoken.
"""

from __future__ import annotations

import random

import pytest
from _tiktoken_refs import ENCODINGS, check_lines, pair

SCRIPTS = {
    "cyrillic": (0x0410, 0x044F), "greek": (0x0391, 0x03C9), "arabic": (0x0621, 0x064A),
    "hebrew": (0x05D0, 0x05EA), "hangul": (0xAC00, 0xD7A3), "devanagari": (0x0905, 0x0939),
    "thai": (0x0E01, 0x0E30), "cjk": (0x4E00, 0x9FFF), "hiragana": (0x3041, 0x3096),
    "katakana": (0x30A1, 0x30FA), "latin1": (0x00C0, 0x00FF),
}
COMMON = ["日本語の文章です", "中华人民共和国", "한국어 문장입니다", "Русский язык", "ελληνικά γράμματα",
          "العربية الفصحى", "עברית", "हिन्दी भाषा", "ภาษาไทย", "カタカナ語"]
EMOJI = ["😀", "🎉", "👍🏽", "🇯🇵", "𝔸", "𠀋"]


def word(rng: random.Random, script: str, length: int) -> str:
    lo, hi = SCRIPTS[script]
    return "".join(chr(rng.randint(lo, hi)) for _ in range(length))


@pytest.mark.parametrize("name", ENCODINGS)
def test_words_of_each_script(name):
    rng = random.Random(21)
    lines = []
    for script in SCRIPTS:
        for _ in range(150):
            lines.append(" ".join(word(rng, script, rng.randint(1, 12)) for _ in range(rng.randint(1, 4))) + "\n")
    lines += [c + "\n" for c in COMMON]
    check_lines(name, lines)


@pytest.mark.parametrize("name", ENCODINGS)
def test_mixed_scripts_ascii_digits_and_emoji(name):
    rng = random.Random(22)
    lines = []
    for _ in range(1500):
        bits = []
        for _ in range(rng.randint(1, 8)):
            roll = rng.random()
            if roll < 0.5:
                bits.append(word(rng, rng.choice(list(SCRIPTS)), rng.randint(1, 8)))
            elif roll < 0.65:
                bits.append(rng.choice(COMMON))
            elif roll < 0.8:
                bits.append(rng.choice(["abc", "Linux", "x", "Ü", "42", "3.14"]))
            else:
                bits.append(rng.choice(EMOJI))
        lines.append(rng.choice(["", " ", "-"]).join(bits) + "\n")
    check_lines(name, lines)


@pytest.mark.parametrize("name", ENCODINGS)
def test_pieces_around_the_whole_piece_limit(name):
    """Pieces of 240..270 bytes of letters without spaces (one piece each): the first ones
    are merged whole in o200k-like vocabularies, the others cut at safe cuts."""
    rng = random.Random(23)
    lines = []
    for target in range(240, 271):
        for script in ("cjk", "cyrillic", "hangul", "latin1"):
            s, size = [], 0
            while size < target:
                c = chr(rng.randint(*SCRIPTS[script])) if rng.random() < 0.9 else rng.choice("abcxyz")
                s.append(c)
                size += len(c.encode())
            lines.append("".join(s) + "\n")
    check_lines(name, lines)


@pytest.mark.parametrize("name", ENCODINGS)
def test_runs_and_characters_that_are_not_tokens(name):
    """Runs of one character, of rare CJK characters (mostly not tokens: their bytes join),
    and of four-byte characters (always bytes), of 1..90 characters."""
    ours, _ = pair(name)
    ranks = ours._mergeable_ranks
    rng = random.Random(24)
    rare = [chr(c) for c in range(0x9F00, 0x9FFF) if chr(c).encode() not in ranks][:200]
    four = [chr(c) for c in range(0x20000, 0x20100)]
    lines = []
    for n in range(1, 91, 3):
        lines.append(rng.choice("日本ЖжΩ가") * n + "\n")
        lines.append("".join(rng.choice(rare) for _ in range(n)) + "\n")
        lines.append("".join(rng.choice(four) for _ in range(n)) + "\n")
        lines.append("".join(rng.choice(rare + four + list("日本語ab")) for _ in range(n)) + "\n")
    check_lines(name, lines)


@pytest.mark.parametrize("name", ENCODINGS)
def test_repeated_words_and_pairs_tie_leftmost(name):
    """Pieces that repeat one short word or pair of characters, with a letter or character
    changed here and there: the same join at several places (ties go to the leftmost,
    and merge_joins' scan takes the same rank further right as its second key), and
    joins of a merge next to the second key (which then must be scanned for)."""
    rng = random.Random(25)
    lines = []
    for _ in range(600):
        unit = word(rng, rng.choice(list(SCRIPTS)), rng.randint(1, 4))
        units = [unit if rng.random() < 0.8 else word(rng, rng.choice(list(SCRIPTS)), rng.randint(1, 3))
                 for _ in range(rng.randint(2, 12))]
        lines.append("".join(units) + "\n")
    for text in COMMON:
        lines.append(text.replace(" ", "") * 3 + "\n")
    check_lines(name, lines)


@pytest.mark.parametrize("rich", [False, True])
def test_toy_vocabulary_with_tokens_spelled_several_ways(rich):
    """Tokens of several non-ASCII characters that split into tokens in more than one way,
    some of them not their own merge's last join; with `rich`, most non-ASCII tokens span
    several characters (pieces merged whole), else few do (pieces cut into chunks)."""
    import tiktoken

    import tokenforge

    chars = ["é", "中", "ж", "字", "ü"]
    ranks = {bytes([b]): b for b in range(256)}
    rng = random.Random(25)
    combos = set()
    while len(combos) < (40 if rich else 6):
        combos.add("".join(rng.choice(chars) for _ in range(rng.randint(2, 4))))
    singles = chars + [c[:1] for c in ["ab", "ba"]] + ["ab", "bé", "éa", "a中"]
    tokens = [t.encode() for t in singles] + [c.encode() for c in sorted(combos)]
    if not rich:
        tokens += [bytes([0xC3, b]) for b in range(0x80, 0xC0)] + [bytes([0xD0, b]) for b in range(0x90, 0xC0)]
    for t in sorted(set(tokens) - set(ranks), key=lambda _: rng.random()):
        ranks[t] = len(ranks)
    pat = r"\S+|\s+"
    ours = tokenforge.Encoding("toy", pat_str=pat, mergeable_ranks=ranks, special_tokens={})
    ref = tiktoken.Encoding("toy", pat_str=pat, mergeable_ranks=ranks, special_tokens={})
    alphabet = chars + ["a", "b", "😀"]
    for _ in range(2000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 100)))
        assert ours.encode_ordinary(text) == ref.encode_ordinary(text), text
