"""Helpers for the benchmark scripts: locating ../shared, loading corpora, timing."""

from __future__ import annotations

import lzma
import os
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("TOKENFORGE_SHARED", REPO.parent / "shared"))
MODELS = SHARED / "models"
CORPUS = SHARED / "corpus"
os.environ.setdefault("TOKENFORGE_MODELS_DIR", str(MODELS / "tiktoken"))


def corpus_text(name: str, max_bytes: int | None = None) -> str:
    """A corpus file (decompressed), cut at a line boundary after `max_bytes` characters; a
    name that is a path is read as it is (text from benchmarks/unseen_text.py, say)."""
    cache = Path(os.environ.get("TMPDIR", "/tmp")) / f"tokenforge-corpus-{name}.txt"
    if os.path.isfile(name):
        cache = Path(name)
    elif not cache.exists():
        with lzma.open(CORPUS / f"{name}.txt.xz", "rb") as f:
            data = f.read()
        tmp = cache.with_suffix(".part")
        tmp.write_bytes(data)
        os.replace(tmp, cache)
    text = cache.read_text(encoding="utf-8")
    if max_bytes and len(text) > max_bytes:
        text = text[: text.find("\n", max_bytes) + 1 or max_bytes]
    return text


def best_of(n: int, fn, setup=None) -> float:
    """The shortest of n runs of fn(state), where state = setup() is made outside the timing."""
    best = float("inf")
    for _ in range(n):
        state = setup() if setup else None
        t0 = time.perf_counter()
        fn(state)
        best = min(best, time.perf_counter() - t0)
    return best


def paired_ratio(n: int, fn_a, fn_b, setup=None, clock=time.perf_counter) -> float:
    """The median over n pairs of (time of fn_b) / (time of fn_a), the two timed back to back
    (in alternating order) by `clock`, each on a fresh state = setup().  On a shared machine a core's
    speed drifts by a third over seconds (English from 200 to 310 MB/s on one instance,
    thread CPU time alike); best_of() of each side alone can then take the two sides from
    different phases, and the ratio of two encodes a few ms apart stays in one."""
    import statistics

    ratios = []
    for i in range(n):
        times = {}
        for which, fn in ((("a", fn_a), ("b", fn_b)) if i % 2 == 0 else (("b", fn_b), ("a", fn_a))):
            state = setup() if setup else None
            t0 = clock()
            fn(state)
            times[which] = clock() - t0
        ratios.append(times["b"] / times["a"])
    return statistics.median(ratios)


def documents(text: str, size: int = 4096) -> list[str]:
    """Cuts text into documents of about `size` characters at line boundaries."""
    docs, start = [], 0
    while start < len(text):
        end = text.find("\n", start + size)
        end = len(text) if end < 0 else end + 1
        docs.append(text[start:end])
        start = end
    return docs


def adversarial_texts() -> dict[str, str]:
    """The issue's adversarial inputs, label -> text (seeded, the same in every script)."""
    import random

    rng = random.Random(0)
    return {
        "1MB one letter": "a" * 1_000_000,
        "1MB random letters": "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(1_000_000)),
        "300k CJK": "".join(chr(rng.randrange(0x4E00, 0x9FA5)) for _ in range(300_000)),
        "1MB spaces": " " * 1_000_000,
        "1MB digits": "".join(rng.choice("0123456789") for _ in range(1_000_000)),
        "1MB ^": "^" * 1_000_000,
    }


def more_adversarial_texts() -> dict[str, str]:
    """Inputs of the same kinds as the issue's that it does not list: random text over other
    alphabets (one long piece, or a stream of short new pieces), periodic runs, whitespace
    mixes.  Label -> text, seeded."""
    import random

    rng = random.Random(5)

    def draw(alphabet: str, n: int) -> str:
        return "".join(rng.choice(alphabet) for _ in range(n))

    return {
        "cyrillic letters": draw("абвгдежзийклмнопрстуфхцчшщъыьэюяАБВГДЕЖЗ", 500_000),
        "greek letters": draw("αβγδεζηθικλμνξοπρστυφχψω", 500_000),
        "arabic letters": draw("ابتثجحخدذرزسشصضطظعغفقكلمنهوي", 500_000),
        "hangul": "".join(chr(rng.randrange(0xAC00, 0xD7A4)) for _ in range(300_000)),
        "emoji": "".join(chr(rng.randrange(0x1F600, 0x1F650)) for _ in range(250_000)),
        "mixed-case letters": draw("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", 1_000_000),
        "base64": draw("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", 1_000_000),
        "hex": draw("0123456789abcdef", 1_000_000),
        "punctuation": draw("!@#$%^&*()_+-=[]{};:,.<>/?|~`", 1_000_000),
        "ab repeated": "ab" * 500_000,
        "letters+accents": draw("abcdeéèêàçñüößø", 1_000_000),
        "whitespace mix": draw(" \t\n\r", 1_000_000),
        "newlines": "\n" * 1_000_000,
        "space-letter": draw(" a", 1_000_000),
    }
