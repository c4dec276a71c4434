"""CharAtoms (merge_parts starts admitted two- and three-byte characters as their token)
against tiktoken, on the text where that start could go wrong:

- tokens that begin inside a character (with its last one or two bytes) or end inside one,
  placed so they overlap a character that is a token: the atom must be refused there;
- random runs of CJK, kana, Hangul, Cyrillic, Greek and mixed scripts, with and without
  ASCII between, and runs of characters that are not tokens (bytes and atoms side by side);
- pieces of every length from 2 to 64 bytes made of such characters;
- a toy vocabulary with tokens on each edge of a character that CharAtoms checks (rule 2);
- ASCII and non-ASCII letters mixed either side of the merge paths' size limits.

Expected ids always come from tiktoken.
"""

from __future__ import annotations

import random

import pytest
from _tiktoken_refs import check_lines, pair

NAMES = ["cl100k_base", "o200k_base", "r50k_base"]


def is_cont(b: int) -> bool:
    return 0x80 <= b < 0xC0


def single_chars(ranks: dict[bytes, int]) -> list[bytes]:
    out = []
    for t in ranks:
        if 2 <= len(t) <= 3:
            try:
                if len(t.decode("utf-8")) == 1:
                    out.append(t)
            except UnicodeDecodeError:
                pass
    return sorted(out)


@pytest.mark.parametrize("name", NAMES)
def test_tokens_straddling_a_character_edge(name):
    """Each token that begins with continuation bytes or ends in an unfinished character is
    completed into real text with characters that are tokens, so it overlaps one of them."""
    ours, _ = pair(name)
    ranks = ours._mergeable_ranks
    chars = single_chars(ranks)
    by_suffix: dict[bytes, list[bytes]] = {}
    by_prefix: dict[bytes, list[bytes]] = {}
    for c in chars:
        for j in range(1, len(c)):
            by_suffix.setdefault(c[j:], []).append(c)
            by_prefix.setdefault(c[:j], []).append(c)
    rng = random.Random(7)
    lines = []
    for t in sorted(ranks):
        lead = 0
        while lead < len(t) and is_cont(t[lead]):
            lead += 1
        last = len(t)
        while last > 0 and is_cont(t[last - 1]):
            last -= 1
        head = t[:lead]
        tail = t[last - 1:] if last >= 1 and t[last - 1] >= 0xC0 else b""
        if not (head and head in by_suffix) and not (tail and tail in by_prefix):
            continue
        for _ in range(3):
            before = rng.choice(by_suffix[head])[: -len(head)] if head in by_suffix else b""
            after = rng.choice(by_prefix[tail])[len(tail):] if tail in by_prefix else b""
            pad_l = b"".join(rng.choice(chars) for _ in range(rng.randrange(3)))
            pad_r = b"".join(rng.choice(chars) for _ in range(rng.randrange(3)))
            raw = pad_l + before + t + after + pad_r
            lines.append(raw.decode("utf-8", errors="ignore") + "\n")
    assert len(lines) > 100
    check_lines(name, lines)


SCRIPTS = [
    (0x3041, 0x3096), (0x30A1, 0x30FA), (0x4E00, 0x9FFF), (0xAC00, 0xD7A3), (0x0410, 0x044F),
    (0x0391, 0x03C9), (0x0600, 0x06FF), (0x0900, 0x097F), (0x0E00, 0x0E7F), (0x00C0, 0x017F),
    (0x2000, 0x206F), (0xFF01, 0xFF5E), (0x3000, 0x303F),
]


def random_run(rng: random.Random, length: int) -> str:
    lo, hi = rng.choice(SCRIPTS)
    out = []
    for _ in range(length):
        if rng.random() < 0.15:
            lo, hi = rng.choice(SCRIPTS)
        out.append(chr(rng.randint(lo, hi)))
        if rng.random() < 0.03:
            out.append(rng.choice([" ", "a", "1", ".", "\n", "😀", "𝔸"]))
    return "".join(out)


@pytest.mark.parametrize("name", NAMES)
def test_random_non_ascii_runs(name):
    rng = random.Random(11)
    lines = [random_run(rng, rng.randrange(1, 40)) + "\n" for _ in range(3000)]
    check_lines(name, lines)


@pytest.mark.parametrize("name", NAMES)
def test_pieces_of_every_length_from_token_characters(name):
    """Pieces of 2..64 bytes (no spaces, so each is one piece) of characters that are tokens,
    some of them common in real text, some rare."""
    ours, _ = pair(name)
    chars = [c.decode("utf-8") for c in single_chars(ours._mergeable_ranks)]
    rng = random.Random(5)
    common = "日本語の文章です中国人民한국어Русскийязыкελληνικά"
    lines = []
    for n in range(2, 65):
        for _ in range(20):
            s, size = [], 0
            pool = common if rng.random() < 0.5 else chars
            while size < n:
                c = rng.choice(pool)
                s.append(c)
                size += len(c.encode())
            lines.append("".join(s) + "\n")
    check_lines(name, lines)


def test_character_held_by_a_lower_ranked_token_stays_bytes():
    """"aé" ranks below "é" itself: starting "é" as its token would let "a" + "é" merge
    before "b" + "a" (rank 257), which the byte-level merge applies while "é" is still two
    bytes.  CharAtoms must refuse such a character (its condition 3)."""
    import tiktoken

    import tokenforge

    ranks = {bytes([b]): b for b in range(256)}
    ranks |= {"aé".encode(): 256, b"ba": 257, "é".encode(): 258, "bé".encode(): 259}
    pat = r"\S+|\s+"
    ours = tokenforge.Encoding("toy", pat_str=pat, mergeable_ranks=ranks, special_tokens={})
    ref = tiktoken.Encoding("toy", pat_str=pat, mergeable_ranks=ranks, special_tokens={})
    for text in ["baé", "aé", "bé", "é", "babaé bé aéé ébaé", "ébaébé"]:
        assert ours.encode_ordinary(text) == ref.encode_ordinary(text), text
    assert ref.encode_ordinary("baé") == [257, 258]


@pytest.mark.parametrize("seed", range(12))
def test_one_and_two_byte_edges_in_a_toy_vocabulary(seed):
    """Tokens that begin with the last one or two bytes of a character that is a token and go
    on with the next byte, or end with a byte and its first one or two bytes, ranked below,
    between and above the character's own merges: CharAtoms must refuse the atom exactly
    where such a token could form (rule 2 of char_atoms.h)."""
    import tiktoken

    import tokenforge

    e, k = "é".encode(), "中".encode()  # c3 a9, e4 b8 ad
    ranks = {bytes([b]): b for b in range(256)}
    ranks |= {e: 300, k[:2]: 320, k: 340}  # the characters' own merges
    edges = [e[1:] + b"x", b"y" + e[:1], k[1:] + b"x", k[2:] + b"z", b"y" + k[:2], b"w" + k[:1], b"v" + k[:1]]
    edges.append(k[1:])  # so that k[1:] + b"x" can form
    rng = random.Random(seed)
    for i, t in enumerate(edges):  # below, between or above the own merges
        ranks[t] = rng.choice([290, 310, 330, 350]) - i
    pat = r"\S+|\s+"
    ours = tokenforge.Encoding("toy", pat_str=pat, mergeable_ranks=ranks, special_tokens={})
    ref = tiktoken.Encoding("toy", pat_str=pat, mergeable_ranks=ranks, special_tokens={})
    texts = ["éx", "yé", "yéx", "中x", "中z", "y中", "w中", "v中", "y中x", "w中z", "aéb", "a中b", "ééxy中中zw中x"]
    for text in texts + [a + b for a in texts for b in texts]:
        assert ours.encode_ordinary(text) == ref.encode_ordinary(text), text


@pytest.mark.parametrize("name", NAMES)
def test_chunks_at_the_merge_path_limits(name):
    """Pieces of letters mixing ASCII with accented, Cyrillic and CJK letters, 12-20 and 44-52
    bytes long (the chunk memo takes chunks of up to 15 bytes), so that joins of ASCII parts
    (looked up by their bytes) and of non-ASCII ones (by their ids, JoinIndex) meet in one
    merge on both sides of the limit."""
    rng = random.Random(13)
    pools = ["abcdefghij", "éèàçüöß", "абвгдежз", "日本語中文字", "ĀāĒēĪī"]
    lines = []
    for target in list(range(12, 21)) + list(range(44, 53)):
        for _ in range(40):
            s, size = [], 0
            while True:
                c = rng.choice(rng.choice(pools))
                if size + len(c.encode()) > target:
                    break
                s.append(c)
                size += len(c.encode())
            lines.append("".join(s) + "\n")
    check_lines(name, lines)
