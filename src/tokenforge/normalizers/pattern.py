r"""The `pattern` field of Split and Replace: `{"String": s}` or `{"Regex": r}`.

`tokenizers` runs regexes on Oniguruma; they are compiled here with the `regex` module, which
reads the patterns found in published files the same way (Unicode classes, `(?i:)`, lookahead).
Oniguruma's Unicode is older than the `regex` module's, and its ``\w`` is not quite the
module's, so class escapes (``\p{L}``, ``\P{N}``, ``\w``, ``\s``, ``\d`` and their negations,
in and out of brackets) are written out as Oniguruma's code point ranges (onig_classes.py,
read off `tokenizers`; its ``\w`` differs in and out of brackets) before compiling: `onig_source`.  A class it has no table for keeps the
`regex` module's meaning.

Example:
    >>> compile_pattern({"String": "a.b"}).findall("a.b axb")
    ['a.b']
"""

from __future__ import annotations

import functools
import re

import regex


# \p{Name}, \p{^Name}, \P{Name}, \pL and the Perl classes.
_CLASS_ESCAPE = regex.compile(r"\\(?:([pP])\{(\^?)([A-Za-z_]+)\}|([pP])([A-Z])|([wWdDsS]))")


def ranges_text(ranges) -> str:
    """Inclusive code point ranges as the body of a `regex` character class."""
    return "".join(f"\\U{a:08x}" if a == b else f"\\U{a:08x}-\\U{b:08x}" for a, b in ranges)


def _complement(ranges) -> list[tuple[int, int]]:
    out, at = [], 0
    for a, b in ranges:
        if a > at:
            out.append((at, a - 1))
        at = b + 1
    if at <= 0x10FFFF:
        out.append((at, 0x10FFFF))
    return out


def _escapes(source: str):
    """The class escapes of `source` in order: (match, class name, negated, inside a bracket).

    The class name is the key of Oniguruma's table: ``w_in_class`` for ``\\w`` in a bracket.
    """
    i, n, depth = 0, len(source), 0
    while i < n:
        ch = source[i]
        if ch == "\\":
            m = _CLASS_ESCAPE.match(source, i)
            if m is None:
                i += 2
                continue
            if m.group(6):
                name, negated = m.group(6).lower(), m.group(6).isupper()
            else:
                p, caret, name = (m.group(1), m.group(2), m.group(3)) if m.group(1) else (m.group(4), "", m.group(5))
                negated = (p == "P") != (caret == "^")
            yield m, ("w_in_class" if name == "w" and depth else name), negated, bool(depth)
            i = m.end()
            continue
        if ch == "[":
            depth += 1
            i = _class_body(source, i)
            continue
        if ch == "]" and depth:
            depth -= 1
        i += 1


def _class_body(source: str, i: int) -> int:
    """Where the body of the class opened by the `[` at i begins: past a `^` and a literal `]`
    first in the class."""
    i += 1
    if source.startswith("^", i):
        i += 1
    if source.startswith("]", i):
        i += 1
    return i


def onig_source(source: str) -> str:
    """`source` with its class escapes written out as Oniguruma's ranges (module docstring).

    >>> bool(regex.fullmatch(onig_source(r"\\p{L}+"), "abc")), bool(regex.match(onig_source(r"\\p{L}"), "\\U000107bb"))
    (True, False)
    """
    from tokenforge.normalizers.onig_classes import ONIG_CLASSES

    out: list[str] = []
    at = 0
    for m, name, negated, in_bracket in _escapes(source):
        out.append(source[at:m.start()])
        at = m.end()
        ranges = ONIG_CLASSES.get(name)
        if ranges is None:
            out.append(m.group(0))
        elif in_bracket:
            out.append(ranges_text(_complement(ranges) if negated else ranges))
        else:
            out.append("[" + ("^" if negated else "") + ranges_text(ranges) + "]")
    out.append(source[at:])
    return "".join(out)


def _bitmap(ranges):
    import numpy as np

    bits = np.zeros(0x110000, dtype=bool)
    for a, b in ranges:
        bits[a:b + 1] = True
    return bits


@functools.lru_cache(maxsize=32)
def _class_disputes(name: str):
    """Code points where Oniguruma's class `name` and the `regex` module's differ (a bool array)."""
    import numpy as np

    from tokenforge.normalizers.onig_classes import ONIG_CLASSES

    escape = r"\w" if name == "w_in_class" else (rf"\{name}" if name in ("w", "s", "d") else rf"\p{{{name}}}")
    every = "".join(map(chr, range(0x110000)))
    ours = np.zeros(0x110000, dtype=bool)
    for m in regex.finditer(f"[{escape}]+", every):
        ours[m.start():m.end()] = True
    return ours ^ _bitmap(ONIG_CLASSES[name])


@functools.lru_cache(maxsize=64)
def disputed_ranges(source: str) -> tuple[tuple[int, int], ...] | None:
    """The code points on which `source` compiled as written by the `regex` module may match
    differently from Oniguruma: where one of its classes differs between the two engines.

    On text holding none of them the unrewritten pattern (`regex` module, fast) cuts exactly
    as the written-out one.  None when that cannot be told from the classes alone: a class
    without an Oniguruma table, or case-insensitive matching (the engines' folding differs).

    >>> any(a <= 0xB2 <= b for a, b in disputed_ranges(r"\\w+")), disputed_ranges(r"a+")
    (True, ())
    """
    import numpy as np

    from tokenforge.normalizers.onig_classes import ONIG_CLASSES

    if "(?i" in source:
        return None
    names = {name for _, name, _, _ in _escapes(source)}
    if any(name not in ONIG_CLASSES for name in names):
        return None
    bits = np.zeros(0x110000, dtype=bool)
    for name in names:
        bits |= _class_disputes(name)
    edges = np.flatnonzero(np.diff(np.concatenate(([False], bits, [False])).astype(np.int8)))
    return tuple((int(a), int(b) - 1) for a, b in zip(edges[::2], edges[1::2]))


def ruby_syntax(source: str) -> str:
    r"""`source` read as Oniguruma's Ruby syntax (what `tokenizers` compiles with), written for
    Python's engines, which must compile it with MULTILINE: in Ruby `^` and `$` always match at
    line breaks (`^` not after a newline that ends the text), `(?m)` is what Python calls `(?s)`
    (a dot matches a newline), `\Z` may stop before a final newline and `\z` is the very end
    (Python's `\Z`).

    >>> ruby_syntax(r"(?m:.)\Z")
    '(?s:.)(?=\\n?\\Z)'
    """
    out: list[str] = []
    i, n, depth = 0, len(source), 0
    while i < n:
        ch = source[i]
        if ch == "\\" and i + 1 < n:
            nxt = source[i + 1]
            out.append("\\Z" if nxt == "z" and not depth else "(?=\\n?\\Z)" if nxt == "Z" and not depth
                       else source[i:i + 2])
            i += 2
            continue
        if ch == "[":
            depth += 1
            j = _class_body(source, i)
            out.append(source[i:j])
            i = j
            continue
        if ch == "]" and depth:
            depth -= 1
        elif ch == "^" and not depth:  # a line's start, but not after a newline that ends the text
            out.append("(?:\\A|(?<=\\n)(?!\\Z))")
            i += 1
            continue
        elif ch == "(" and not depth and source.startswith("(?", i):
            j = i + 2
            while j < n and source[j] in "imx-":
                j += 1
            if j > i + 2 and j < n and source[j] in ":)":
                out.append("(?" + source[i + 2:j].replace("m", "s"))
                i = j
                continue
        out.append(ch)
        i += 1
    return "".join(out)


def set_operations(source: str) -> bool:
    r"""Whether `source` nests a class in a class (`[^a[bc]]`, `[[:alpha:]]`) or intersects
    classes (`[a-z&&[^aeiou]]`), as Oniguruma allows.  Python's `re` and the `regex` module's
    version 0 read a `[` in a class as a literal (`[a[b]c]` then means something else), so such
    a pattern is compiled with the `regex` module's version 1, which reads them as Oniguruma.

    >>> set_operations(r" ?[^(\s|[.,!?])]+"), set_operations(r"[\[\]]"), set_operations(r"[a-z]&&")
    (True, False, False)
    """
    i, n, depth = 0, len(source), 0
    while i < n:
        ch = source[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "[":
            if depth:
                return True
            depth += 1
            i = _class_body(source, i)
            continue
        if ch == "]" and depth:
            depth -= 1
        elif ch == "&" and depth and source.startswith("&&", i):
            return True
        i += 1
    return False


def regex_version(source: str) -> int:
    """The `regex` module's version flag that reads `source` as Oniguruma does (set_operations)."""
    return regex.V1 if set_operations(source) else regex.V0


@functools.lru_cache(maxsize=256)
def _compile(kind: str, source: str):
    if kind == "String":
        return regex.compile(regex.escape(source))
    written = onig_source(ruby_syntax(source))
    if set_operations(source):
        try:
            return regex.compile(written, regex.V1 | regex.MULTILINE)
        except regex.error as e:
            raise ValueError(f"invalid regex {source!r}: {e}") from None
    try:
        # The standard library's `re` matches the written-out classes as a bitmap, several
        # times faster than the `regex` module does; `regex` takes what `re` cannot read.
        return re.compile(written, re.MULTILINE)
    except (re.error, ValueError, OverflowError, RecursionError):
        pass
    try:
        return regex.compile(written, regex.V0 | regex.MULTILINE)
    except regex.error as e:
        raise ValueError(f"invalid regex {source!r}: {e}") from None


def compile_onig(source: str):
    """A regex of a tokenizer component's own (not from a file), compiled as Oniguruma reads it."""
    return _compile("Regex", source)


class Regex:
    """A regex pattern for Split, Replace and the Replace decoder, as `tokenizers.Regex`: a str
    given to them is matched literally; a Regex is a regular expression (Oniguruma's reading).

    Raises:
        ValueError: a pattern that does not compile.
    """

    __slots__ = ("pattern",)

    def __init__(self, pattern: str) -> None:
        if not isinstance(pattern, str):
            raise TypeError(f"Regex takes a str, got {type(pattern).__name__}")
        _compile("Regex", pattern)  # refused now, as tokenizers refuses it
        self.pattern = pattern

    def __repr__(self) -> str:
        return f"Regex({self.pattern!r})"


def pattern_object(pattern) -> dict:
    """The tokenizer.json form of a component's pattern: a str (literal), a Regex, or the form
    itself."""
    if isinstance(pattern, str):
        return {"String": pattern}
    if isinstance(pattern, Regex):
        return {"Regex": pattern.pattern}
    return pattern


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
