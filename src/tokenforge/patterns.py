"""The split patterns of the GPT model family, and which native scanner runs each.

A split pattern cuts text into pieces before byte-pair merging.  tokenforge runs the
well-known patterns with hand-written C++ scanners whose pieces are byte-identical to the
regex's; every spelling of a pattern that splits the same way maps to the same scanner.
Any other pattern falls back to the `regex` module (same ids, slower).

This module only names patterns; the scanners live in ``cpp/pretokenize/``.

Example:
    >>> scanner_for(CL100K) == Scanner.CL100K
    True
    >>> scanner_for(r"\\w+") is None
    True
"""

from __future__ import annotations

import enum


class Scanner(enum.IntEnum):
    """Native scanners (the values of ``tf::SplitPattern``)."""

    GPT2 = 0
    CL100K = 1
    LLAMA3 = 2
    O200K = 3
    QWEN2 = 4
    DEEPSEEK_V3 = 5  # DeepSeek V3's three tokenizer.json Splits as one; no single pattern names it
    TEKKEN = 6


# tiktoken's spellings.
GPT2 = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s"""
CL100K = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
    r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)
O200K = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)
# Llama 3 (and the older spelling of cl100k, which differs from tiktoken's current one
# only on whitespace at the very end of the text).
LLAMA3 = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"""
    r"""|\s*[\r\n]+|\s+(?!\S)|\s+"""
)
# Qwen 2, 2.5 and 3: Llama 3's with one digit a piece.
QWEN2 = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"""
    r"""|\s*[\r\n]+|\s+(?!\S)|\s+"""
)
# Mistral's Tekken (its tokenizer.json's Split): o200k's without the contraction suffixes and
# with one digit a piece.
TEKKEN = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*""",
        r"""\p{N}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)

# Other spellings that split identically.
_GPT2_ORIGINAL = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
_GPT2_BRACKETED = r"""'s|'t|'re|'ve|'m|'ll|'d| ?[\p{L}]+| ?[\p{N}]+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
# tiktoken's r50k and cl100k spellings without the possessive quantifiers: none of them
# changes a match (each possessive run is followed by something it cannot give back to).
_GPT2_GREEDY = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+$|\s+(?!\S)|\s"""
_CL100K_GREEDY = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"""
    r"""|\s+$|\s*[\r\n]|\s+(?!\S)|\s"""
)
# minbpe's spellings (minbpe/regex.py): GPT-2's with the contractions grouped, and GPT-4's
# with \s*[\r\n] for Llama 3's \s*[\r\n]+ (both end at the run's last line break).
_MINBPE_GPT2 = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
_MINBPE_GPT4 = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]++[\r\n]*|\s*[\r\n]|\s+(?!\S)|\s+"""
)
_KNOWN: dict[str, Scanner] = {
    GPT2: Scanner.GPT2,
    _GPT2_ORIGINAL: Scanner.GPT2,
    _GPT2_BRACKETED: Scanner.GPT2,
    _GPT2_GREEDY: Scanner.GPT2,
    CL100K: Scanner.CL100K,
    _CL100K_GREEDY: Scanner.CL100K,
    LLAMA3: Scanner.LLAMA3,
    _MINBPE_GPT4: Scanner.LLAMA3,
    _MINBPE_GPT2: Scanner.GPT2,
    O200K: Scanner.O200K,
    QWEN2: Scanner.QWEN2,
    TEKKEN: Scanner.TEKKEN,
}

# Short names accepted wherever a pattern is asked for (e.g. the CLI's --pattern).
BY_NAME: dict[str, str] = {"gpt2": GPT2, "r50k": GPT2, "cl100k": CL100K, "llama3": LLAMA3, "o200k": O200K, "qwen2": QWEN2, "tekken": TEKKEN}


def scanner_for(pat_str: str) -> Scanner | None:
    """The native scanner that splits exactly like `pat_str`, or None if there is none.

    Args:
        pat_str: a split pattern in the syntax of tiktoken / the `regex` module.

    Returns:
        The matching :class:`Scanner`, or None when the pattern must run on the regex engine.

    >>> scanner_for(GPT2).name
    'GPT2'
    """
    return _KNOWN.get(pat_str)
