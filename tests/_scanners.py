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
}
COMPILED = {k: regex.compile(v) for k, v in PATTERNS.items()}


def regex_ends(scanner, text: str) -> list[int]:
    """The byte offsets where `regex` ends the pieces of `text` under `scanner`'s pattern."""
    ends, pos = [], 0
    for m in COMPILED[scanner].finditer(text):
        pos += len(m.group().encode())
        ends.append(pos)
    return ends
