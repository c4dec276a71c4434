"""A bounds check of a GGUF file's header and key/value section, run before `gguf`'s reader.

``gguf.GGUFReader`` trusts the counts it reads: a corrupted array length makes it loop (and
allocate) far past the end of the file instead of failing.  :func:`check_layout` walks the
same structure -- magic, version, tensor and key/value counts, then each key, type and value
-- checking only that every length fits in the bytes left, and raises a ``ValueError``
naming the first thing that does not.  It decodes no values: reading stays the `gguf`
package's job.  Layout facts from the GGUF specification (llama.cpp's ``docs/gguf.md``):
little-endian; strings are a ``uint64`` length and UTF-8 bytes; arrays are an item type, a
``uint64`` count and the items.

What this module leaves out: the tensor-info section (a tokenizer needs none) and big-endian
files (their version field reads as a huge number and is refused).

Example:
    >>> check_layout(b"GGUF" + (3).to_bytes(4, "little") + (0).to_bytes(8, "little") + (5).to_bytes(8, "little"))
    Traceback (most recent call last):
    ...
    ValueError: key 0 of 5: truncated (needs 8 bytes at offset 24, the file has 24)
"""

from __future__ import annotations

import struct

# GGUF value type -> size in bytes (fixed-size types only).
_FIXED = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}
_STRING, _ARRAY = 8, 9
_U32, _U64 = struct.Struct("<I"), struct.Struct("<Q")


def check_layout(data: bytes | memoryview) -> None:
    """Checks that the header and every key/value of a GGUF file lie inside `data`.

    Raises:
        ValueError: bad magic or version, or a length that runs past the end.
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
    for k in range(n_kv):
        where = f"key {k} of {n_kv}"
        need(8, where)
        size = _U64.unpack_from(data, pos)[0]
        pos += 8
        need(size + 4, where)
        pos += size
        kind = _U32.unpack_from(data, pos)[0]
        pos += 4
        pos = _skip_value(data, pos, end, kind, where)


def _skip_value(data, pos: int, end: int, kind: int, where: str) -> int:
    if kind in _FIXED:
        if _FIXED[kind] > end - pos:
            raise ValueError(f"{where}: truncated value at offset {pos}")
        return pos + _FIXED[kind]
    if kind == _STRING:
        if 8 > end - pos:
            raise ValueError(f"{where}: truncated string at offset {pos}")
        size = _U64.unpack_from(data, pos)[0]
        if size > end - pos - 8:
            raise ValueError(f"{where}: a string of {size} bytes at offset {pos} runs past the end of the file")
        return pos + 8 + size
    if kind == _ARRAY:
        if 12 > end - pos:
            raise ValueError(f"{where}: truncated array at offset {pos}")
        item = _U32.unpack_from(data, pos)[0]
        count = _U64.unpack_from(data, pos + 4)[0]
        pos += 12
        if item in _FIXED:
            if count * _FIXED[item] > end - pos:
                raise ValueError(f"{where}: an array of {count} items at offset {pos} runs past the end of the file")
            return pos + count * _FIXED[item]
        if item == _STRING:
            if count * 8 > end - pos:
                raise ValueError(f"{where}: an array of {count} strings at offset {pos} runs past the end of the file")
            for _ in range(count):
                pos = _skip_value(data, pos, end, _STRING, where)
            return pos
        if item == _ARRAY:  # nested arrays: each at least an item type and a count
            if count * 12 > end - pos:
                raise ValueError(f"{where}: an array of {count} arrays at offset {pos} runs past the end of the file")
            for _ in range(count):
                pos = _skip_value(data, pos, end, _ARRAY, where)
            return pos
        raise ValueError(f"{where}: unknown GGUF array item type {item}")
    raise ValueError(f"{where}: unknown GGUF value type {kind}")
