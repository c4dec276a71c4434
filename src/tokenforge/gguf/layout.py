"""The key/value section of a GGUF file, decoded in one bounds-checked walk.

:func:`read_key_values` walks the header and every key/value of a GGUF file -- magic,
version, tensor and key/value counts, then each key, type and value -- checking that every
length fits in the bytes left, and decodes the values of the keys asked for: a string, a
number, a bool, or a list of them.  Any other value is skipped over (its lengths still
checked).  Numeric arrays are converted in one step by the standard library's
:mod:`array`, strings of an array one by one (a slice and a UTF-8 decode each); a corrupted
length is a ``ValueError`` naming the key, never a loop far past the end of the file (which
``gguf.GGUFReader``, trusting its counts, would do).

Layout facts from the GGUF specification (llama.cpp's ``docs/gguf.md``): little-endian;
strings are a ``uint64`` length and UTF-8 bytes; arrays are an item type, a ``uint64``
count and the items; value types are numbered as ``gguf.GGUFValueType``.

What this module leaves out: the tensor-info section and tensor data (a tokenizer needs
neither, so a file whose tensor infos are damaged still gives its tokenizer), big-endian
files (their version field reads as a huge number and is refused), and arrays of arrays
(bounds-checked and skipped, never decoded).

Example:
    >>> check_layout(b"GGUF" + (3).to_bytes(4, "little") + (0).to_bytes(8, "little") + (5).to_bytes(8, "little"))
    Traceback (most recent call last):
    ...
    ValueError: key 0 of 5: truncated (needs 8 bytes at offset 24, the file has 24)
"""

from __future__ import annotations

import array
import struct
import sys
from typing import Any, Callable

# GGUF value type -> (size in bytes, struct / array code) for the fixed-size types.
_FIXED = {0: (1, "B"), 1: (1, "b"), 2: (2, "H"), 3: (2, "h"), 4: (4, "I"), 5: (4, "i"), 6: (4, "f"), 7: (1, "?"),
          10: (8, "Q"), 11: (8, "q"), 12: (8, "d")}
_ARRAY_CODES = {4: "I", 5: "i", 6: "f", 10: "Q", 11: "q", 12: "d", 0: "B", 1: "b", 2: "H", 3: "h"}
STRING, ARRAY = 8, 9
_U32, _U64 = struct.Struct("<I"), struct.Struct("<Q")
_BIG_ENDIAN = sys.byteorder == "big"

# key -> (value, GGUF value type, array item type or None)
KeyValues = dict[str, tuple[Any, int, "int | None"]]


def check_layout(data: bytes | memoryview) -> None:
    """Checks that the header and every key/value of a GGUF file lie inside `data`.

    Raises:
        ValueError: bad magic or version, or a length that runs past the end.
    """
    read_key_values(data, lambda key: False)


def read_key_values(data: Any, wanted: Callable[[str], bool]) -> KeyValues:
    """The values of the keys `wanted` accepts, after checking the layout of every key/value.

    Args:
        data: the file's bytes (``bytes`` or an ``mmap``).
        wanted: says, for a key, whether to decode its value.

    Returns:
        key -> (value, value type, array item type or None), for the wanted keys.

    Raises:
        ValueError: bad magic or version, a length that runs past the end, an unknown value
            type, a key that appears twice, or a wanted string that is not UTF-8.
    """
    end = len(data)
    if bytes(data[:4]) != b"GGUF":
        raise ValueError("not a GGUF file (it does not start with b'GGUF')")
    pos = 4

    def need(n: int, what: str) -> None:
        if n > end - pos:
            raise ValueError(f"{what}: truncated (needs {n} bytes at offset {pos}, the file has {end})")

    need(4 + 8 + 8, "header")
    version = _U32.unpack_from(data, pos)[0]
    if version not in (2, 3):
        raise ValueError(f"unsupported GGUF version {version} (tokenforge reads versions 2 and 3, little-endian)")
    n_kv = _U64.unpack_from(data, pos + 12)[0]
    pos += 20
    out: KeyValues = {}
    seen: set[str] = set()
    for k in range(n_kv):
        where = f"key {k} of {n_kv}"
        need(8, where)
        size = _U64.unpack_from(data, pos)[0]
        pos += 8
        need(size + 4, where)
        key = _utf8(data[pos:pos + size], where)
        pos += size
        kind = _U32.unpack_from(data, pos)[0]
        pos += 4
        where = f"{where} ({key})"
        if key in seen:  # as llama.cpp and gguf's reader refuse it
            raise ValueError(f"{where}: the key appears twice")
        seen.add(key)
        if wanted(key):
            value, item, pos = _read_value(data, pos, end, kind, where)
            out[key] = (value, kind, item)
        else:
            pos = _skip_value(data, pos, end, kind, where)
    return out


def _utf8(raw: bytes, where: str) -> str:
    try:
        return str(raw, "utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(f"{where}: a string that is not UTF-8 ({e})") from None


def _read_value(data: Any, pos: int, end: int, kind: int, where: str) -> tuple[Any, int | None, int]:
    """(value, array item type or None, position after it)."""
    if kind in _FIXED:
        size, code = _FIXED[kind]
        if size > end - pos:
            raise ValueError(f"{where}: truncated value at offset {pos}")
        return struct.unpack_from("<" + code, data, pos)[0], None, pos + size
    if kind == STRING:
        after = _skip_value(data, pos, end, STRING, where)
        return _utf8(data[pos + 8:after], where), None, after
    if kind != ARRAY:
        raise ValueError(f"{where}: unknown GGUF value type {kind}")
    if 12 > end - pos:
        raise ValueError(f"{where}: truncated array at offset {pos}")
    item = _U32.unpack_from(data, pos)[0]
    count = _U64.unpack_from(data, pos + 4)[0]
    pos += 12
    if item in _ARRAY_CODES or item == 7:
        size = _FIXED[item][0]
        if count * size > end - pos:
            raise ValueError(f"{where}: an array of {count} items at offset {pos} runs past the end of the file")
        values = array.array(_ARRAY_CODES.get(item, "B"))
        values.frombytes(data[pos:pos + count * size])
        if _BIG_ENDIAN:
            values.byteswap()
        listed = values.tolist() if item != 7 else [v != 0 for v in values]
        return listed, item, pos + count * size
    if item != STRING:
        return None, item, _skip_value(data, pos - 12, end, ARRAY, where)
    if count * 8 > end - pos:
        raise ValueError(f"{where}: an array of {count} strings at offset {pos} runs past the end of the file")
    strings: list[str] = []
    append, u64 = strings.append, _U64.unpack_from
    for _ in range(count):
        if 8 > end - pos:
            raise ValueError(f"{where}: truncated string at offset {pos}")
        size = u64(data, pos)[0]
        pos += 8
        if size > end - pos:
            raise ValueError(f"{where}: a string of {size} bytes at offset {pos - 8} runs past the end of the file")
        try:
            append(str(data[pos:pos + size], "utf-8"))
        except UnicodeDecodeError as e:
            raise ValueError(f"{where}: holds a string that is not UTF-8 ({e})") from None
        pos += size
    return strings, item, pos


def _skip_value(data: Any, pos: int, end: int, kind: int, where: str) -> int:
    if kind in _FIXED:
        if _FIXED[kind][0] > end - pos:
            raise ValueError(f"{where}: truncated value at offset {pos}")
        return pos + _FIXED[kind][0]
    if kind == STRING:
        if 8 > end - pos:
            raise ValueError(f"{where}: truncated string at offset {pos}")
        size = _U64.unpack_from(data, pos)[0]
        if size > end - pos - 8:
            raise ValueError(f"{where}: a string of {size} bytes at offset {pos} runs past the end of the file")
        return pos + 8 + size
    if kind == ARRAY:
        if 12 > end - pos:
            raise ValueError(f"{where}: truncated array at offset {pos}")
        item = _U32.unpack_from(data, pos)[0]
        count = _U64.unpack_from(data, pos + 4)[0]
        pos += 12
        if item in _FIXED:
            if count * _FIXED[item][0] > end - pos:
                raise ValueError(f"{where}: an array of {count} items at offset {pos} runs past the end of the file")
            return pos + count * _FIXED[item][0]
        if item == STRING:
            if count * 8 > end - pos:
                raise ValueError(f"{where}: an array of {count} strings at offset {pos} runs past the end of the file")
            u64 = _U64.unpack_from
            for _ in range(count):
                if 8 > end - pos:
                    raise ValueError(f"{where}: truncated string at offset {pos}")
                size = u64(data, pos)[0]
                if size > end - pos - 8:
                    raise ValueError(f"{where}: a string of {size} bytes at offset {pos} runs past the end of the file")
                pos += 8 + size
            return pos
        if item == ARRAY:  # nested arrays: each at least an item type and a count
            if count * 12 > end - pos:
                raise ValueError(f"{where}: an array of {count} arrays at offset {pos} runs past the end of the file")
            for _ in range(count):
                pos = _skip_value(data, pos, end, ARRAY, where)
            return pos
        raise ValueError(f"{where}: unknown GGUF array item type {item}")
    raise ValueError(f"{where}: unknown GGUF value type {kind}")
