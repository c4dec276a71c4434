"""Which code points tiktoken's regex engine puts in each Unicode class.

Used by scripts/gen_unicode_tables.py (to generate the native tables) and by the property
tests (to know where the `regex` module, on a newer Unicode version, disagrees).  Needs
tiktoken; never imported by the library itself.
"""

from __future__ import annotations

import functools

PROPERTIES = [r"\s", r"\p{Lu}", r"\p{Ll}", r"\p{Lt}", r"\p{Lm}", r"\p{Lo}", r"\p{M}", r"\p{N}"]


def matching_code_points(pattern: str) -> frozenset[int]:
    """The code points tiktoken's engine matches with `pattern` (a one-character class).

    It encodes every code point with a probe encoding whose split pattern is the class:
    characters the pattern does not match fall in no piece and vanish from the output.
    """
    import tiktoken

    ranks = {bytes([i]): i for i in range(256)}
    probe = tiktoken.Encoding("probe", pat_str=pattern, mergeable_ranks=ranks, special_tokens={})
    text = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000)
    kept = probe.decode_bytes(probe.encode_ordinary(text)).decode("utf-8")
    return frozenset(ord(ch) for ch in kept)


@functools.lru_cache(maxsize=None)
def tiktoken_classes() -> dict[str, frozenset[int]]:
    """Property pattern -> its code points, per tiktoken."""
    return {p: matching_code_points(p) for p in PROPERTIES}
