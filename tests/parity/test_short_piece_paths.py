"""The encoder's fast paths against tiktoken, on the inputs that sit on their edges.

- ShortTokenIndex answers whole pieces of 1..15 bytes from two zero-padded words, the
  second tagged with the length: pieces of exactly 8/9/15/16/17 bytes, pieces holding NUL
  bytes (a key's padding is zeros), pieces within 16 bytes of the end of the text (the key
  is then built without reading past it), and a vocabulary with ids up to 2^24 - 1.
- The ShortMergeCache (per thread) that keeps the merges of pieces and chunks of up to 15
  bytes: many distinct short chunks, with repeats in between; more distinct pieces than
  it keeps (the rest then go to the general piece cache); pieces of over 4 ids (kept
  outside the entry); a string met first as a whole piece and then as a chunk of a longer
  piece, and the other way round.
- The scanners' ASCII word fast paths and block-wise blank runs: words ended by non-ASCII
  letters or marks, contractions, leading characters, indentation.

Expected ids always come from tiktoken.
"""

from __future__ import annotations

import random

import pytest
from _tiktoken_refs import ENCODINGS, pair

import tokenforge


def check(name: str, text: str) -> None:
    ours, ref = pair(name)
    assert ours.encode_ordinary(text) == ref.encode_ordinary(text), repr(text)
    assert ours.encode_ordinary_batch([text, text[::-1]], num_threads=1) == [
        ref.encode_ordinary(text),
        ref.encode_ordinary(text[::-1]),
    ]
    assert ours.count_tokens(text) == len(ref.encode_ordinary(text))


@pytest.mark.parametrize("name", ENCODINGS)
def test_whole_token_pieces_of_every_short_length(name):
    ours, _ = pair(name)
    rng = random.Random(1)
    by_length: dict[int, list[str]] = {}
    for token in ours._mergeable_ranks:
        if 1 <= len(token) <= 20:
            try:
                s = token.decode("utf-8")
            except UnicodeDecodeError:
                continue
            by_length.setdefault(len(token), []).append(s)
    for length in (1, 2, 3, 7, 8, 9, 14, 15, 16, 17, 18):
        sample = rng.sample(by_length.get(length, []), min(40, len(by_length.get(length, []))))
        # Alone (the piece ends the text: no 16 bytes to read past it), then joined, so
        # most pieces are followed by more text.
        for s in sample[:10]:
            check(name, s)
        check(name, "\n".join(sample) + "\n" + " ".join(sample))


@pytest.mark.parametrize("name", ENCODINGS)
def test_non_token_pieces_around_8_and_16_bytes(name):
    rng = random.Random(2)
    words = []
    for length in (7, 8, 9, 10, 14, 15, 16, 17, 24):
        for _ in range(20):
            words.append("".join(rng.choice("qxzjkvwy") for _ in range(length)))
    check(name, " ".join(words))
    for w in words[::17]:
        check(name, w)
        check(name, " " + w)


@pytest.mark.parametrize("name", ENCODINGS)
def test_nul_bytes_and_text_ends(name):
    for text in ["a\x00", "\x00", "\x00\x00\x00", "ab\x00cd", "abcdefgh\x00", "abcdefgh\x00\x00x",
                 "x" * 14 + "\x00", "x" * 15 + "\x00", "\x00" * 15, "\x00" * 16, "\x00" * 17, " the", "the", "t", "  ", "abcdefghijklmnop", "abcdefghijklmnopq"]:
        check(name, text)
        check(name, "prefix text here " + text)
        check(name, text + " and some more text after it to read past")


@pytest.mark.parametrize("name", ENCODINGS)
def test_scanner_fast_paths(name):
    cases = [
        "café naïve résumé Zürich", "e\u0301t\u00e9 abc\u0301 ABC\u0301", "don't I'M you're WE'LL it's 'sup 'S",
        "HELLOworld helloWorld HelloWorld ABC'S abc's aBC", "$abc @abc #abc (abc) \tabc \nabc \rabc 'abc ’abc",
        "Straße ĲSSEL ǅemal ʰabc aʰb", "x" * 40 + "é" + "y" * 3, "A" * 33 + "b" * 20 + "'ll",
        "def f(x):\n        return x  \n\n    \t  y\n" + " " * 40 + "z", "a   \n   ", "   ", " " * 17, "\t \t  x",
        "1234567 12a3 ١٢٣ abc123def", "a/b//c ///d\r\n/", "中文abc汉字 abcЖжЖ",
    ]
    for text in cases:
        check(name, text)
    check(name, "\n".join(cases))


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_chunk_memo_eviction_and_repeats(name):
    rng = random.Random(3)
    han = [chr(c) for c in range(0x4E00, 0x4E00 + 3000)]
    cyr = [chr(c) for c in range(0x0430, 0x0450)]
    texts = []
    for i in range(300):
        word = "".join(rng.choice(han) for _ in range(rng.randint(1, 6)))
        word += " " + "".join(rng.choice(cyr) for _ in range(rng.randint(2, 12)))
        texts.append(word)
    text = " ".join(texts)
    check(name, text)
    check(name, text + " " + text)  # the same chunks again, now from the memo


def pieces_and_chunks(rng: random.Random, count: int) -> tuple[list[str], list[str]]:
    """`count` strings of 4..15 rare letters, and `count` longer pieces of four of them each:
    random letters are cut where no token straddles, so the strings recur as chunks."""
    words = ["".join(rng.choice("qxzjkvwy") for _ in range(rng.randint(4, 15))) for _ in range(count)]
    return words, ["".join(rng.sample(words, 4)) for _ in range(count)]


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_short_merge_cache_fills_and_overflows(name):
    # Over 2^17 distinct non-token pieces of 4..15 letters (the short cache holds 2^17,
    # then keeps all in the general one too), then the first ones again, and some later
    # ones; the first text in a fresh thread so that the caches start empty.
    import threading

    rng = random.Random(6)
    letters = "bcdfghjklmnpqrstvwxz"
    words = [" " + "".join(rng.choice(letters) for _ in range(rng.randint(3, 14))) for _ in range(150000)]
    text = "".join(words) + "".join(words[:3000]) + "".join(words[::13])
    # Then, with the short cache full, strings met as whole pieces and as chunks of longer
    # pieces, in both orders.
    odd, longer = pieces_and_chunks(rng, 300)
    text += " " + " ".join(odd[:150]) + " " + " ".join(longer) + " " + " ".join(odd[150:])
    result = {}
    thread = threading.Thread(target=lambda: result.setdefault("ids", pair(name)[0].encode_ordinary(text)))
    thread.start()
    thread.join()
    assert result["ids"] == pair(name)[1].encode_ordinary(text)
    check(name, text)


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_short_merges_of_many_ids_and_shared_chunks(name):
    rng = random.Random(7)
    # Up to 15 bytes that merge into over 4 ids: rare symbols and accented capitals.
    rare = [chr(c) for c in list(range(0x2190, 0x21FF)) + list(range(0x1D400, 0x1D4FF)) + list(range(0x0100, 0x017F))]
    pieces = ["".join(rng.choice(rare) for _ in range(rng.randint(2, 7))) for _ in range(300)]
    pieces = [x for x in pieces if len(x.encode()) <= 15] + ["\x01\x02\x03\x04\x05\x06\x07\x08\x0e\x0f\x10\x11\x12\x13\x14"]
    check(name, " ".join(pieces) + " " + " ".join(pieces))
    # The same short strings as whole pieces and as chunks of longer ones, in both orders.
    words, longer = pieces_and_chunks(rng, 200)
    check(name, " ".join(words) + " " + " ".join(longer))
    check(name, " ".join(longer[::-1]) + " " + " ".join(words[::-1]))


def test_vocabulary_with_ids_beyond_the_short_index():
    # Ids up to 2**24 - 1, the largest a vocabulary this sparse may have (TokenTable), and
    # too large for the long-piece trie (TokenTrie::kMaxIds), which is then not built.
    import tiktoken

    big = (1 << 24) - 8
    ranks = {bytes([b]): b for b in range(256)}
    for i, tok in enumerate([b"ab", b"abc", b"abcd", b" a", b" ab", b"cd", b"abcdabcdabcdabcdab", b"xy"]):
        ranks[tok] = big + i
    pat = tokenforge.patterns.CL100K
    ours = tokenforge.Encoding("big", pat_str=pat, mergeable_ranks=ranks, special_tokens={})
    ref = tiktoken.Encoding("big", pat_str=pat, mergeable_ranks=ranks, special_tokens={})
    for text in ["abcd ab abc cd xyz", "abcdabcdabcdabcdab", "abcdabcdabcdabcdabcd abc", "a", "ab", ""]:
        assert ours.encode_ordinary(text) == ref.encode_ordinary(text)
        assert ours.count_tokens(text) == len(ref.encode_ordinary(text))


@pytest.mark.parametrize("name", ENCODINGS)
def test_merges_of_chunks_of_every_length_up_to_40(name):
    # merge_parts finds the lowest rank with a branch-free search over 16 or 32 lanes for
    # chunks of up to 16 or 32 bytes (a loop beyond), and prefetches the substrings of
    # chunks up to 32 bytes by their first 8/16 bytes: lengths on either side of 8, 16 and
    # 32, the lowest rank in every lane, and repeats (equal ranks: the leftmost merges first).
    rng = random.Random(4)
    letters = "abcdefghijklmnopqrstuvwxyz"
    pieces = []
    for length in range(3, 41):
        for _ in range(6):
            pieces.append("".join(rng.choice(letters) for _ in range(length)))
        unit = "".join(rng.choice(letters) for _ in range(rng.randint(1, 3)))
        pieces.append((unit * 40)[:length])
        pieces.append("".join(chr(rng.randint(0x4E00, 0x4E00 + 400)) for _ in range(length // 3 + 1)))
        pieces.append("".join(chr(rng.randint(0x0430, 0x044F)) for _ in range(length // 2 + 1)))
    for piece in pieces:
        check(name, piece)
    check(name, " ".join(pieces))


def test_merge_order_on_repeats_in_a_small_vocabulary():
    import tiktoken

    ranks = {bytes([b]): b for b in range(256)}
    for i, tok in enumerate([b"ab", b"ba", b"aba", b"bab", b"abab", b"baba", b"ababa", b"aa", b"bb"]):
        ranks[tok] = 256 + i
    pat = tokenforge.patterns.CL100K
    ours = tokenforge.Encoding("rep", pat_str=pat, mergeable_ranks=ranks, special_tokens={})
    ref = tiktoken.Encoding("rep", pat_str=pat, mergeable_ranks=ranks, special_tokens={})
    rng = random.Random(5)
    for length in range(1, 70):
        for text in ["ab" * length, "a" * length, ("ab" * length)[1:], "".join(rng.choice("ab") for _ in range(length))]:
            assert ours.encode_ordinary(text) == ref.encode_ordinary(text), text


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_long_pieces_repeated_around_the_cache_limit(name):
    # The piece cache keeps pieces of up to 512 bytes: rules of box-drawing characters,
    # dashes and equals signs of lengths on both sides of that limit (and of the old 128),
    # each repeated down the text as in a table, so the second sighting is answered from
    # the cache (or, past the limit, merged again).
    rng = random.Random(7)
    lines = []
    for char in ("─", "═", "-", "=", "~-", "·", "━┳"):
        for count in (40, 42, 43, 85, 127, 128, 129, 170, 171, 255, 256, 257, 511, 512, 513, 600):
            rule = (char * count)[:count] if len(char) == 1 else char * (count // 2)
            lines.extend([rule, "│ x │" + rule + "│", " " + rule])
    rng.shuffle(lines)
    text = "\n".join(lines * 3)
    check(name, text)
