"""The scanners' patterns as `regex` compiles them: the reference for where the native
scanners end each piece."""

from __future__ import annotations

import regex

from tokenforge import patterns

PATTERNS = {
    patterns.Scanner.GPT2: patterns.GPT2,
    patterns.Scanner.CL100K: patterns.CL100K,
    patterns.Scanner.LLAMA3: patterns.LLAMA3,
    patterns.Scanner.O200K: patterns.O200K,
    patterns.Scanner.QWEN2: patterns.QWEN2,
    patterns.Scanner.TEKKEN: patterns.TEKKEN,
}
COMPILED = {k: regex.compile(v) for k, v in PATTERNS.items()}


def regex_ends(scanner, text: str) -> list[int]:
    """The byte offsets where `regex` ends the pieces of `text` under `scanner`'s pattern."""
    ends, pos = [], 0
    for m in COMPILED[scanner].finditer(text):
        pos += len(m.group().encode())
        ends.append(pos)
    return ends


def reference_ends(scanner, text: str) -> list[int]:
    """regex_ends; for DeepSeek V3 (three Splits, no single pattern) the ends of its Splits run
    by `regex` (whose classes are Oniguruma's on ASCII, Latin-1 and CJK text)."""
    if scanner != patterns.Scanner.DEEPSEEK_V3:
        return regex_ends(scanner, text)
    from tokenforge.reference.ascii_split import deepseek_v3_pieces

    ends, pos = [], 0
    for piece in deepseek_v3_pieces(text):
        pos += len(piece.encode())
        ends.append(pos)
    return ends
