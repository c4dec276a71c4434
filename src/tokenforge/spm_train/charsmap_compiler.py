"""Custom normalization rules: sentencepiece's rule TSV compiled into a precompiled charsmap.

A rule file (``normalization_rule_tsv``) has one rule a line: source code points, a tab,
target code points, and optionally more tab-separated fields that are ignored (comments).
Code points are hexadecimal, space-separated, optionally written ``U+0041`` or ``0x41``;
a line without a tab or with an empty target deletes its source.  A source given twice
keeps its last rule.  This is sentencepiece's ``normalizer::Builder::LoadCharsMap``.

The charsmap (sentencepiece's ``CompileCharsMap``) is a little-endian uint32 holding the
trie's size in bytes, the Darts-clone double array mapping each source's UTF-8 to an
offset (:mod:`tokenforge.spm_train.darts_builder`), then every distinct target's UTF-8
followed by NUL, in code point order.  The result is byte for byte sentencepiece's.

Denormalization rules (``denormalization_rule_tsv``) are compiled the same way.  What
this leaves out: applying the rules (the normalizer reads the charsmap).

Example:
    >>> blob = compile_charsmap({"Ａ": "a", "①": "1"})
    >>> decompile_charsmap(blob)
    [('①', '1'), ('Ａ', 'a')]
"""

from __future__ import annotations

import os
import struct
from collections.abc import Iterable, Mapping

from tokenforge._files import read_utf8
from tokenforge.spm_train.darts_builder import build_double_array

# sentencepiece's normalizer reads at most this many keys prefixing one position.
MAX_SHARED_PREFIXES = 32


def _code_points(field: str, where: str) -> str:
    out = []
    for token in field.split(" "):
        token = token.strip()
        if not token:
            continue
        digits = token[2:] if token.startswith("U+") else token
        digits = digits[2:] if digits[:2].lower() == "0x" else digits
        try:
            if not digits or not all(c in "0123456789abcdefABCDEF" for c in digits):
                raise ValueError
            cp = int(digits, 16)
            if 0xD800 <= cp <= 0xDFFF or cp > 0x10FFFF:
                raise ValueError
        except ValueError:
            raise ValueError(f"{where}: {token!r} is not a Unicode code point in hex") from None
        out.append(chr(cp))
    return "".join(out)


def parse_rules(text: str, name: str = "<rules>") -> dict[str, str]:
    """The rules of a rule TSV's text, source -> target (the last rule of a source wins).

    Raises:
        ValueError: a line without a source, a bad code point, or no rule at all; the
            message names the file and line.

    >>> parse_rules("41\\t61 62\\t# A -> ab\\nU+3000\\tU+0020\\n0xAA\\n")
    {'A': 'ab', '\\u3000': ' ', 'ª': ''}
    """
    rules: dict[str, str] = {}
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for number, line in enumerate(lines, 1):
        where = f"{name} line {number}"
        fields = line.split("\t")
        source = _code_points(fields[0], where)
        if not source:
            raise ValueError(f"{where}: no source code point in {line[:80]!r}")
        if "\0" in source:
            raise ValueError(f"{where}: U+0000 cannot be a source")
        rules[source] = _code_points(fields[1], where) if len(fields) > 1 else ""
    if not rules:
        raise ValueError(f"{name}: no normalization rule")
    return rules


def load_rules(path: str | os.PathLike) -> dict[str, str]:
    """The rules of a rule TSV file (see :func:`parse_rules`).

    Raises:
        OSError: the file cannot be read.
        ValueError: a bad line (named) or a file that is not UTF-8.
    """
    return parse_rules(read_utf8(path), os.fspath(path))


def compile_charsmap(rules: Mapping[str, str] | Iterable[tuple[str, str]]) -> bytes:
    """The precompiled charsmap of source -> target rules, as sentencepiece compiles it.

    Raises:
        ValueError: no rule, an empty source or one holding U+0000 or a surrogate, or more
            than 31 sources prefixing one another.

    >>> len(compile_charsmap([("x", "y")]))
    1030
    """
    items = dict(rules.items() if isinstance(rules, Mapping) else rules)
    if not items:
        raise ValueError("no normalization rule to compile")
    offsets: dict[str, int] = {}
    blob = bytearray()
    for target in sorted(set(items.values())):  # code point order, as sentencepiece's map of vectors
        offsets[target] = len(blob)
        blob += _utf8(target) + b"\0"
    pairs = []
    for source, target in items.items():
        if not source or "\0" in source:
            raise ValueError(f"normalization rule source {source!r} is empty or holds U+0000")
        pairs.append((_utf8(source), offsets[target]))
    pairs.sort()
    keys = [k for k, _ in pairs]
    known = set(keys)
    for key in keys:
        shared = sum(key[:n] in known for n in range(1, len(key) + 1))
        if shared >= MAX_SHARED_PREFIXES:
            raise ValueError(f"{shared} normalization rule sources prefix {key.decode()!r}: "
                             f"sentencepiece reads fewer than {MAX_SHARED_PREFIXES}")
    units = build_double_array(keys, [v for _, v in pairs])
    return struct.pack(f"<I{len(units)}I", 4 * len(units), *units) + bytes(blob)


def _utf8(s: str) -> bytes:
    try:
        return s.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError(f"normalization rule {s!r} holds a surrogate code point") from None


def decompile_charsmap(blob: bytes) -> list[tuple[str, str]]:
    """The rules in a precompiled charsmap, sorted by their sources' UTF-8 (sentencepiece's
    ``SentencePieceNormalizer.Decompile``).

    Raises:
        ValueError: the blob is truncated.

    >>> decompile_charsmap(compile_charsmap({"b": "", "a": "x"}))
    [('a', 'x'), ('b', '')]
    """
    if not blob:
        return []
    if len(blob) < 4:
        raise ValueError("precompiled charsmap is truncated")
    (size,) = struct.unpack_from("<I", blob)
    if size % 4 or 4 + size > len(blob):
        raise ValueError("precompiled charsmap is truncated")
    units = struct.unpack_from(f"<{size // 4}I", blob, 4)
    strings = blob[4 + size:]
    out: list[tuple[str, str]] = []

    def offset(u: int) -> int:
        return (u >> 10) << ((u & 0x200) >> 6)

    def walk(node: int, key: bytes) -> None:
        for label in range(1, 256):
            pos = node ^ label
            if pos >= len(units) or units[pos] & 0x800000FF != label:
                continue
            child = pos ^ offset(units[pos])
            if units[pos] & 0x100 and child < len(units):
                value = units[child] & 0x7FFFFFFF
                end = strings.find(b"\0", value)
                target = strings[value:end if end >= 0 else None]
                out.append(((key + bytes([label])).decode("utf-8", "replace"), target.decode("utf-8", "replace")))
            walk(child, key + bytes([label]))

    if units:
        walk(offset(units[0]), b"")
    return out
