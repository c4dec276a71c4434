"""Reading the tokenizer metadata of a GGUF file with the `gguf` package (llama.cpp's own reader).

:func:`read_vocab` opens the file with ``gguf.GGUFReader`` and copies the ``tokenizer.*``
key/values into a :class:`~tokenforge.gguf.vocab.GGUFVocab`.  Every failure -- not a GGUF
file, a truncated one, a key of the wrong type, no tokenizer at all -- becomes a
``ValueError`` that names the file and the problem; :mod:`.layout` checks every length
before ``gguf``'s reader (which trusts them) runs.

What this module leaves out: tensors (a tokenizer needs none) and keys outside
``tokenizer.*`` other than ``general.architecture`` and ``general.name``.

Example:
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "not.gguf")
    >>> _ = open(path, "wb").write(b"hello")
    >>> read_vocab(path)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: ...not.gguf: not a GGUF file (it does not start with b'GGUF')
"""

from __future__ import annotations

import mmap
import os
from typing import Any

from tokenforge.gguf.layout import check_layout
from tokenforge.gguf.vocab import ARRAY_KEYS, FLAG_KEYS, PREFIX, SPECIAL_KEYS, GGUFVocab

_MAGIC = b"GGUF"


def import_gguf() -> Any:
    """The `gguf` package, or an ImportError saying how to install it."""
    try:
        import gguf
    except ImportError:
        raise ImportError("reading and writing GGUF files needs the `gguf` package: pip install 'tokenforge[gguf]'"
                          " (or pip install gguf)") from None
    return gguf


def read_vocab(path: str | os.PathLike[str]) -> GGUFVocab:
    """Reads the tokenizer metadata of a GGUF file.

    Args:
        path: a ``.gguf`` file (a whole model or a vocabulary-only file).

    Returns:
        A :class:`GGUFVocab` with the file's values (None for absent keys).

    Raises:
        OSError: the file cannot be opened.
        ValueError: the file is not GGUF, is truncated or malformed, or holds no tokenizer
            (no ``tokenizer.ggml.model`` or ``tokenizer.ggml.tokens``).
        ImportError: the `gguf` package is missing.
    """
    gguf = import_gguf()
    where = os.fspath(path)
    with open(path, "rb") as f:
        if f.read(4) != _MAGIC:
            raise ValueError(f"{where}: not a GGUF file (it does not start with {_MAGIC!r})")
        f.seek(0)
        with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
            try:
                check_layout(data)
            except ValueError as e:
                raise ValueError(f"{where}: malformed GGUF file: {e}") from None
    try:
        reader = gguf.GGUFReader(path, "r")
    except (ValueError, IndexError, KeyError, TypeError, OverflowError, MemoryError) as e:
        raise ValueError(f"{where}: not a readable GGUF file (truncated or malformed: {type(e).__name__}: {e})") from None
    fields = reader.fields
    if PREFIX + "model" not in fields:
        raise ValueError(f"{where}: the GGUF file has no tokenizer (no {PREFIX}model key)")
    if PREFIX + "tokens" not in fields:
        raise ValueError(f"{where}: the GGUF file has no {PREFIX}tokens")
    types = gguf.GGUFValueType
    values: dict[str, Any] = {}
    for key, field in fields.items():
        if key.startswith(PREFIX):
            values[key[len(PREFIX):]] = (field, _value(field, types, where))
    vocab = GGUFVocab(model=_want_str(values.pop("model"), where, "model"),
                      tokens=_want_str_list(values.pop("tokens"), where, "tokens"))
    if "pre" in values:
        vocab.pre = _want_str(values.pop("pre"), where, "pre")
    for attr, key in ARRAY_KEYS.items():
        if key in values and attr != "tokens":
            field, value = values.pop(key)
            if attr == "merges":
                vocab.merges = _want_str_list((field, value), where, key)
            elif attr == "precompiled_charsmap":
                vocab.precompiled_charsmap = _want_bytes(field, types, where, key)
            elif attr == "scores":
                vocab.scores = [float(x) for x in _want_numbers(field, value, types, where, key)]
            else:
                vocab.token_types = [int(x) for x in _want_numbers(field, value, types, where, key)]
    for attr, key in FLAG_KEYS.items():
        if key in values:
            field, value = values.pop(key)
            if not isinstance(value, (bool, int)) or field.types[0] == types.ARRAY:
                raise ValueError(f"{where}: {PREFIX}{key} should be a bool, not {field.types[0].name}")
            setattr(vocab, attr, bool(value))
    for short, key in SPECIAL_KEYS.items():
        if key in values:
            field, value = values.pop(key)
            if isinstance(value, bool) or not isinstance(value, int):
                raise ValueError(f"{where}: {PREFIX}{key} should be an integer, not {field.types[0].name}")
            vocab.special_ids[short] = value
    for key, (field, value) in values.items():  # other tokenizer.ggml.* keys
        vocab.extra[PREFIX + key] = _typed(field, value)
    for key, field in fields.items():
        if key.startswith("tokenizer.") and not key.startswith(PREFIX):
            vocab.extra[key] = _typed(field, _value(field, types, where))
    for key, attr in (("general.architecture", "architecture"), ("general.name", "name")):
        if key in fields:
            value = _value(fields[key], types, where)
            setattr(vocab, attr, value if isinstance(value, str) else None)
    vocab.check()
    return vocab


def _value(field: Any, types: Any, where: str) -> Any:
    """A field's Python value: str, int, float, bool, or a list of them."""
    try:
        kind = field.types[0]
        if kind == types.STRING:
            return _utf8(bytes(field.parts[field.data[0]]), where, field.name)
        if kind == types.ARRAY:
            item = field.types[1] if len(field.types) > 1 else None
            if item == types.STRING:
                return [_utf8(bytes(field.parts[i]), where, field.name) for i in field.data]
            if item is None:  # an empty array
                return []
            return [field.parts[i][0].item() for i in field.data]
        return field.parts[field.data[0]][0].item()
    except (IndexError, TypeError) as e:
        raise ValueError(f"{where}: malformed value for {field.name} ({e})") from None


def _utf8(raw: bytes, where: str, key: str) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(f"{where}: {key} holds a string that is not UTF-8 ({e})") from None


def _typed(field: Any, value: Any) -> tuple[Any, Any, Any]:
    return value, field.types[0], field.types[1] if len(field.types) > 1 else None


def _want_str(pair: tuple[Any, Any], where: str, key: str) -> str:
    field, value = pair
    if not isinstance(value, str):
        raise ValueError(f"{where}: {PREFIX}{key} should be a string, not {field.types[0].name}")
    return value


def _want_str_list(pair: tuple[Any, Any], where: str, key: str) -> list[str]:
    field, value = pair
    if not isinstance(value, list) or (value and not isinstance(value[0], str)):
        raise ValueError(f"{where}: {PREFIX}{key} should be an array of strings")
    return value


def _want_numbers(field: Any, value: Any, types: Any, where: str, key: str) -> list:
    if not isinstance(value, list) or (value and isinstance(value[0], str)):
        raise ValueError(f"{where}: {PREFIX}{key} should be an array of numbers")
    return value


def _want_bytes(field: Any, types: Any, where: str, key: str) -> bytes:
    if field.types[0] != types.ARRAY or (len(field.types) > 1 and field.types[1] not in (types.UINT8, types.INT8)):
        raise ValueError(f"{where}: {PREFIX}{key} should be an array of bytes")
    return b"".join(bytes(field.parts[i]) for i in field.data) if field.data else b""
