"""The `pattern` field of Split and Replace: `{"String": s}` or `{"Regex": r}`.

`tokenizers` runs regexes on Oniguruma; they are compiled here with the `regex` module, which
reads the patterns found in published files the same way (Unicode classes, `(?i:)`, lookahead).

Example:
    >>> compile_pattern({"String": "a.b"}).findall("a.b axb")
    ['a.b']
"""

from __future__ import annotations

import functools

import regex


@functools.lru_cache(maxsize=256)
def _compile(kind: str, source: str):
    if kind == "String":
        return regex.compile(regex.escape(source))
    try:
        return regex.compile(source, regex.V0)
    except regex.error as e:
        raise ValueError(f"invalid regex {source!r}: {e}") from None


def compile_pattern(pattern: dict):
    """A compiled `regex` for a tokenizer.json pattern object.

    Raises:
        ValueError: neither String nor Regex, or a regex that does not compile.
    """
    if not isinstance(pattern, dict) or len(pattern) != 1:
        raise ValueError(f"pattern must be {{'String': ...}} or {{'Regex': ...}}, got {pattern!r}")
    (kind, source), = pattern.items()
    if kind not in ("String", "Regex") or not isinstance(source, str):
        raise ValueError(f"pattern must be {{'String': ...}} or {{'Regex': ...}}, got {pattern!r}")
    return _compile(kind, source)
