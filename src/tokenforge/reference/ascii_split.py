"""The ASCII splitter of the cl100k / Llama 3 / Qwen 2, o200k, GPT-2 and DeepSeek V3 patterns, in plain Python.

This is the teaching text of ``cpp/pretokenize/ascii_split_rules.h`` and
``ascii_splitter.cc``: from a piece start, a window of 64 characters is classified into
one bit mask per character class (bit i = character i of the window), and the piece
starts of the whole window come out of shifts, ands and carries on those masks, instead
of a regex step or a scanner call per piece.  Only starts the window decides are kept:
before the first other non-ASCII character (its class is unknown here; letters of
U+00C0..U+00FF are classified, as the native AVX-512 path does) less two characters of
look-ahead, and not inside a run of whitespace that reaches that point.  The last kept
start is the next window's start; a window that decides nothing hands one piece to the
regex (the native code: to its exact scalar scanner).

It leaves out what makes the native splitter fast (vector classification, batched
writes).

Example:
    >>> split("cl100k", "Hello world's  end")
    ['Hello', ' world', "'s", ' ', ' end']
    >>> split("o200k", "Hello world's  end")
    ['Hello', " world's", ' ', ' end']
"""

from __future__ import annotations

import regex

from tokenforge import patterns
from tokenforge.pre_tokenizers.split import spans

WINDOW = 64
FULL = (1 << WINDOW) - 1
MOD3 = int("001" * 22, 2) & FULL  # bits 0, 3, 6, ...
PATTERNS = {"cl100k": patterns.CL100K, "llama3": patterns.LLAMA3, "qwen2": patterns.QWEN2, "o200k": patterns.O200K,
            "gpt2": patterns.GPT2}
# DeepSeek V3's tokenizer.json pre-tokenizer: three Isolated Splits, each on the pieces of the
# one before (its regexes as the file writes them; on ASCII the `regex` module's classes are
# Oniguruma's).
DEEPSEEK_V3_SPLITS = [
    r"\p{N}{1,3}",
    "[\u4e00-\u9fa5\u3040-\u309f\u30a0-\u30ff]+",
    r"""[!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+"""
    r"""| ?[\p{P}\p{S}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+""",
]


def latin1_letter(c: str) -> bool:
    """A letter of U+00C0..U+00FF (not the signs × and ÷): the native AVX-512 path classifies
    these, two bytes each, as letters instead of handing them to its scalar scanner."""
    return "\u00c0" <= c <= "\u00ff" and c not in "\u00d7\u00f7"


def classes(window: str) -> dict[str, int]:
    """One mask per class of the window's characters (see the rules header)."""
    tests = {
        "L": lambda c: (c.isascii() and c.isalpha()) or latin1_letter(c),
        "U": lambda c: "A" <= c <= "Z" or (latin1_letter(c) and c <= "\u00de"),
        "N": lambda c: "0" <= c <= "9",
        "NL": lambda c: c in "\r\n",
        "SP": lambda c: c == " ",
        "WS": lambda c: c in "\t\v\f",
        "Q": lambda c: c == "'",
        "SL": lambda c: c == "/",
        "hard": lambda c: not c.isascii() and not latin1_letter(c),
        "sdmt": lambda c: c in "sdmtSDMT",
        "rv": lambda c: c in "rvRV",
        "e": lambda c: c in "eE",
        "l": lambda c: c in "lL",
        "latin": latin1_letter,
        "ctl": lambda c: (c < " " and c not in "\t\n\v\f\r") or c == "\x7f",
    }
    m = {name: sum(1 << i for i, ch in enumerate(window) if test(ch)) for name, test in tests.items()}
    m["hard"] |= FULL & ~((1 << len(window)) - 1)  # past the end of the text
    m["S"] = m["NL"] | m["SP"] | m["WS"]
    m["O"] = FULL & ~(m["L"] | m["N"] | m["S"] | m["Q"] | m["hard"])  # includes "/"
    return m


def up(x: int, d: int = 1) -> int:
    """Bit i set where bit i - d of x is: "the character d back is in x"."""
    return (x << d) & FULL


def fill(seed: int, within: int, step) -> int:
    """Bits of `within` reachable from `seed` through `within` (step: up or down by d)."""
    f, g, d = seed & within, within, 1
    while d < WINDOW:
        f |= step(f, d) & g
        g &= step(g, d)
        d *= 2
    return f


def digit_starts(n: int) -> int:
    """Every third digit of each run from its first (`\\p{N}{1,3}`): the add carries a run's first bit through it."""
    first, d = n & ~up(n), 0
    for r in range(3):
        m = up(MOD3, r)
        d |= ((n + (first & m)) ^ n) & n & m
    return d & FULL


def space_starts(c: dict[str, int], tail: int, keeps: int = 0) -> int:
    """Starts among whitespace: after non-space; after a tail or last newline; the last blank of a
    run, unless a character of `keeps` follows it (DeepSeek V3's digits end the subject)."""
    s, blank = c["S"], c["SP"] | c["WS"]
    later_nl = fill(c["NL"], s, lambda x, d: x >> d) >> 1
    last_nl = c["NL"] & ~later_nl
    run_last = s & ~((s | keeps) >> 1)
    return blank & ((FULL & ~up(s)) | up(c["NL"] & (tail | last_nl)) | (up(blank) & run_last))


def deepseek_v3_classes(c: dict[str, int]) -> dict[str, int]:
    """The classes as DeepSeek V3's rules see them: control bytes (gaps of no alternative) and
    the Latin-1 letters (letters for A2, not for A1's [A-Za-z]) are hard."""
    d = dict(c)
    d["hard"] |= c["latin"] | c["ctl"]
    d["L"] &= ~c["latin"]
    return d


def deepseek_v3_starts(c: dict[str, int]) -> int:
    """DeepSeek V3's starts (see the rules header): digits are pieces of their own; a punctuation
    run starts after neither punctuation nor a space; a letter after a newline, a digit, or a
    punctuation byte that does not start (after one that does, A1 takes the letters); spaces as
    cl100k's but that the last blank before a digit does not start (A5 at the subject's end)."""
    p = (c["O"] | c["Q"]) & ~c["hard"]
    punct = p & ~up(p | c["SP"])
    letter = c["L"] & up(c["NL"] | c["N"] | (p & ~punct))
    newline = c["NL"] & up(c["L"] | c["N"])
    seeds = c["NL"] & up(p)
    tail = ((c["NL"] + seeds) ^ c["NL"]) & c["NL"]
    space = space_starts(c, tail, c["N"])
    return (letter | digit_starts(c["N"]) | punct | newline | space) & FULL


def starts(kind: str, c: dict[str, int]) -> int | None:
    """The piece starts of a window whose bit 0 is a piece start (None: give up on it)."""
    if kind == "deepseek_v3":
        return deepseek_v3_starts(c)
    oq = c["O"] | c["Q"]
    oqsp = oq | c["SP"]
    two = (up(c["rv"]) & c["e"]) | (up(c["l"]) & c["l"])  # re ve ll ending here
    newline = c["NL"] & up(c["L"] | c["N"])
    if kind == "gpt2":  # only a space leads; newlines are plain whitespace; lower-case contractions
        lower = FULL & ~c["U"]
        sdmt, rv, e, el = c["sdmt"] & lower, c["rv"] & lower, c["e"] & lower, c["l"] & lower
        two = (up(rv) & e) | (up(el) & el)
        q_start = c["Q"] & ~up(oqsp)
        opens2, opens3 = q_start & (sdmt >> 1), q_start & (two >> 2)
        contraction_end = up(opens2) | up(opens3, 2)
        letter = c["L"] & ((FULL & ~up(c["L"] | c["SP"] | c["Q"])) | up(c["Q"] & ~(opens2 | opens3)) | up(contraction_end))
        digit = c["N"] & ~up(c["N"] | c["SP"])
        punct = oq & ~up(oqsp)
        s = c["S"]
        space = s & ((FULL & ~up(s)) | (up(s) & s & ~(s >> 1)))
        return (letter | digit | punct | space) & FULL
    if kind != "o200k":
        q_start = c["Q"] & ~up(oqsp)
        contraction_end = (up(q_start) & c["sdmt"]) | (up(q_start, 2) & two)
        letter = c["L"] & (up(c["N"] | c["NL"]) | (up(oq) & up(oqsp, 2)) | up(contraction_end))
        punct = oq & ~up(oqsp)
        seeds = c["NL"] & up(oq)
        tail = ((c["NL"] + seeds) ^ c["NL"]) & c["NL"]
    else:
        lower = c["L"] & ~c["U"]
        maybe = c["Q"] & up(c["L"]) & ((c["sdmt"] >> 1) | (two >> 2))
        quote = maybe
        for _ in range(5):
            contraction_end = (up(quote) & c["sdmt"]) | (up(quote, 2) & two)
            nxt = maybe & ~up(contraction_end)
            if nxt == quote:
                break
            quote = nxt
        else:
            return None
        t, seeds = c["NL"] | c["SL"], c["NL"] & up(oq)  # several seeds per run: | puts them back
        tail = ((((t + seeds) ^ t) & t) | seeds) & FULL
        punct = ((oq & ~c["SL"] & ((FULL & ~up(oqsp)) | up(tail))) | (c["SL"] & ~up(oqsp | tail))) & ~quote
        letter = c["L"] & (
            up(c["N"] | c["NL"]) | up(oq & ~(punct | quote)) | up(contraction_end) | (c["U"] & up(lower) & ~up(quote, 2))
        )
    digit = c["N"] if kind == "qwen2" else digit_starts(c["N"])  # Qwen 2: `\p{N}`, one digit a piece
    return (letter | digit | punct | newline | space_starts(c, tail)) & FULL


def decided_limit(c: dict[str, int]) -> int:
    """Starts below this index are decided: two characters before the first hard one, out of a space run reaching it."""
    hard = c["hard"]
    h = (hard & -hard).bit_length() - 1 if hard else WINDOW
    if h < 3:
        return 0
    v = h - 2
    if (c["S"] >> (v - 1)) & 1:
        below = ~c["S"] & ((1 << v) - 1)
        v = below.bit_length()
    return v


def deepseek_v3_pieces(text: str) -> list[str]:
    """The pieces of DeepSeek V3's three Isolated Splits (matches and the gaps between them)."""
    parts = [text]
    for rx in map(regex.compile, DEEPSEEK_V3_SPLITS):
        parts = [part[a:b] for part in parts for a, b in spans(part, (m.span() for m in rx.finditer(part)), "Isolated")]
    return parts


def split(kind: str, text: str) -> list[str]:
    """The pieces of `text` under pattern `kind` ("cl100k", "llama3", "qwen2", "o200k", "gpt2" or
    "deepseek_v3")."""
    if kind == "deepseek_v3":  # no single regex: one piece from p of the Splits run from there
        first_piece = lambda p: p + len(deepseek_v3_pieces(text[p:])[0])  # noqa: E731
    else:
        pattern = regex.compile(PATTERNS[kind])
        first_piece = lambda p: pattern.match(text, p).end()  # noqa: E731
    pieces, p = [], 0
    while p < len(text):
        c = classes(text[p : p + WINDOW])
        if kind == "deepseek_v3":
            c = deepseek_v3_classes(c)
        found = starts(kind, c)
        keep = 0 if found is None else found & ((1 << decided_limit(c)) - 1) & ~1
        if keep == 0:  # undecided: one piece by the regex
            q = first_piece(p)
            pieces.append(text[p:q])
            p = q
            continue
        cuts = [i for i in range(WINDOW) if keep >> i & 1]
        pieces += [text[p + a : p + b] for a, b in zip([0] + cuts, cuts)]
        p += cuts[-1]
    return pieces
