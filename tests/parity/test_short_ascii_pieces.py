"""Streams of short never-seen ASCII pieces against tiktoken, on all five vocabularies.

Random mixed-case letters (which o200k's pattern cuts at every case change) and base64-like
text give hundreds of thousands of pieces of a few bytes, most of them new.  While most are
new, the short merge cache admits a piece only when it is seen again (FirstSightFilter), so
these texts pass through: first sightings merged without the cache, second sightings
merged and stored, later ones found; the filter's bits cleared when full; and the filter
switching off again on text whose pieces recur, and back on.  Each text is also encoded in
a fresh thread (empty caches) and counted.  Expected ids come from tiktoken.
"""

from __future__ import annotations

import random
import string
import threading

import pytest
from _tiktoken_refs import ENCODINGS, pair

BASE64 = string.ascii_letters + string.digits + "+/"


def draw(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def check_fresh(name: str, text: str) -> None:
    """text encodes as tiktoken does in a new thread (caches empty), again in this one, and counted."""
    ours, ref = pair(name)
    want = ref.encode_ordinary(text)
    result = {}
    thread = threading.Thread(target=lambda: result.setdefault("ids", ours.encode_ordinary(text)))
    thread.start()
    thread.join()
    assert result["ids"] == want
    assert ours.encode_ordinary(text) == want
    assert ours.count_tokens(text) == len(want)


@pytest.mark.parametrize("name", ENCODINGS)
def test_random_short_pieces_first_seen_then_repeated(name):
    rng = random.Random(11)
    mixed = draw(rng, string.ascii_letters, 60_000)
    b64 = draw(rng, BASE64, 60_000)
    # New pieces (the filter comes on), then the same text again (second sightings are
    # stored), a third time (found), then words that recur (the filter goes off), then new
    # random pieces again.
    words = [draw(rng, "etaoinshrdlucmfw", rng.randint(4, 9)) for _ in range(300)]
    recurring = " ".join(rng.choice(words) for _ in range(20_000))
    text = mixed + " " + b64 + "\n" + mixed + " " + b64 + "\n" + mixed[:20_000] + "\n" + recurring + "\n"
    text += draw(rng, string.ascii_letters, 30_000) + " " + recurring[:20_000]
    check_fresh(name, text)


@pytest.mark.parametrize("name", ENCODINGS)
def test_short_random_pieces_between_spaces_and_punctuation(name):
    # Pieces of 1..15 bytes (whole-piece keys of one and two words), some that are tokens,
    # after spaces, punctuation and digits, each length many times.
    rng = random.Random(12)
    parts = []
    for _ in range(20_000):
        lead = rng.choice(["", " ", " ", ".", "_", "'", "-"])
        parts.append(lead + draw(rng, string.ascii_letters, rng.randint(1, 15)))
        if rng.random() < 0.2:
            parts.append(draw(rng, string.digits, rng.randint(1, 4)))
    check_fresh(name, "".join(parts))


def test_first_sight_filter_cleared_when_full():
    # Over 2^17 first-time pieces (an eighth of the filter's bits), then the start again.
    rng = random.Random(13)
    text = draw(rng, string.ascii_letters, 700_000)
    check_fresh("o200k_base", text + text[:100_000])


@pytest.mark.parametrize("name", ENCODINGS)
def test_every_piece_of_two_to_four_bytes_over_small_alphabets(name):
    # The pieces of 2..4 bytes that are no token are merged by a fixed decision on their
    # pair ranks and three-byte lookups (merge_tiny_ascii): every string of those lengths
    # over a few letters (equal ranks such as "abab" and "aaaa", pairs that are tokens or
    # not, either case), alone on a line and after a space or punctuation, first seen.
    import itertools

    pieces = []
    for alphabet in ("abeTZq", "xQjz", "ab"):
        for n in (2, 3, 4):
            pieces += ["".join(t) for t in itertools.product(alphabet, repeat=n)]
    lines = [p for p in pieces] + [" " + p[:3] for p in pieces] + ["." + p[:3] for p in pieces]
    check_fresh(name, "\n".join(lines) + "\n")
