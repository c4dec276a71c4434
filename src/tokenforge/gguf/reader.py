"""Reading the tokenizer metadata of a GGUF file.

:func:`read_vocab` reads the ``tokenizer.*`` key/values of a GGUF file into a
:class:`~tokenforge.gguf.vocab.GGUFVocab`, by default through ``gguf.GGUFReader``
(llama.cpp's own reader, the `gguf` extra; :func:`read_vocab_with_gguf`), after checking
every length of the file's layout (:mod:`.layout`), which that reader trusts.  With
``reader="tokenforge"`` the same bounds-checked walk decodes the values itself: no tensor
infos are read and no per-element objects are made, many times faster than ``GGUFReader``
(``benchmarks/bench_gguf_load.py``) and with no extra needed; the tests check that the two
readers agree on every file.  Every
failure -- not a GGUF file, a truncated one, a key of the wrong type, no tokenizer at all --
becomes a ``ValueError`` that names the file and the problem.

What this module leaves out: tensors (a tokenizer needs none) and keys outside
``tokenizer.*`` other than ``general.architecture`` and ``general.name``.

Example:
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "not.gguf")
    >>> _ = open(path, "wb").write(b"hello")
    >>> read_vocab(path, reader="tokenforge")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: ...not.gguf: not a GGUF file (it does not start with b'GGUF')
"""

from __future__ import annotations

import mmap
import os
from typing import Any

from tokenforge.gguf.layout import ARRAY, STRING, KeyValues, read_key_values
from tokenforge.gguf.vocab import ARRAY_KEYS, FLAG_KEYS, PREFIX, SPECIAL_KEYS, GGUFVocab

_MAGIC = b"GGUF"
_GENERAL = ("general.architecture", "general.name")
_TYPE_NAMES = {0: "UINT8", 1: "INT8", 2: "UINT16", 3: "INT16", 4: "UINT32", 5: "INT32", 6: "FLOAT32", 7: "BOOL",
               8: "STRING", 9: "ARRAY", 10: "UINT64", 11: "INT64", 12: "FLOAT64"}


def _wanted(key: str) -> bool:
    return key.startswith("tokenizer.") or key in _GENERAL


def import_gguf() -> Any:
    """The `gguf` package, or an ImportError saying how to install it."""
    try:
        import gguf
    except ImportError:
        raise ImportError("reading and writing GGUF files needs the `gguf` package: pip install 'tokenforge[gguf]'"
                          " (or pip install gguf)") from None
    return gguf


def read_vocab(path: str | os.PathLike[str], *, reader: str = "gguf") -> GGUFVocab:
    """Reads the tokenizer metadata of a GGUF file.

    Args:
        path: a ``.gguf`` file (a whole model or a vocabulary-only file).
        reader: ``"gguf"`` (``gguf.GGUFReader``, the `gguf` extra) or ``"tokenforge"``
            (tokenforge's own walk of the key/values; the same values, many times faster).

    Returns:
        A :class:`GGUFVocab` with the file's values (None for absent keys).

    Raises:
        OSError: the file cannot be opened.
        ValueError: the file is not GGUF, is truncated or malformed, or holds no tokenizer
            (no ``tokenizer.ggml.model`` or ``tokenizer.ggml.tokens``); an unknown `reader`.
        ImportError: `reader` is ``"gguf"`` and the `gguf` package is missing.
    """
    if reader == "gguf":
        return read_vocab_with_gguf(path)
    if reader != "tokenforge":
        raise ValueError(f"reader must be 'gguf' or 'tokenforge', not {reader!r}")
    where = os.fspath(path)
    return _vocab_of(_walk(path, where, _wanted), where)


def _walk(path: str | os.PathLike[str], where: str, wanted) -> KeyValues:
    """The wanted key/values of the file, after checking its magic and layout."""
    with open(path, "rb") as f:
        if f.read(4) != _MAGIC:
            raise ValueError(f"{where}: not a GGUF file (it does not start with {_MAGIC!r})")
        f.seek(0)
        with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
            try:
                return read_key_values(data, wanted)
            except ValueError as e:
                raise ValueError(f"{where}: malformed GGUF file: {e}") from None


def read_vocab_with_gguf(path: str | os.PathLike[str]) -> GGUFVocab:
    """:func:`read_vocab` through ``gguf.GGUFReader`` (its default reader).

    Raises:
        ImportError: the `gguf` package is missing.
        OSError, ValueError: as :func:`read_vocab`.
    """
    gguf = import_gguf()
    where = os.fspath(path)
    _walk(path, where, lambda key: False)  # the layout check: GGUFReader trusts its counts
    try:
        reader = gguf.GGUFReader(path, "r")
    except (ValueError, IndexError, KeyError, TypeError, OverflowError, MemoryError) as e:
        raise ValueError(f"{where}: not a readable GGUF file (truncated or malformed: {type(e).__name__}: {e})") from None
    values: KeyValues = {}
    for key, field in reader.fields.items():
        if _wanted(key):
            item = int(field.types[1]) if len(field.types) > 1 else None
            values[key] = (_field_value(field, gguf.GGUFValueType, where), int(field.types[0]), item)
    return _vocab_of(values, where)


def _vocab_of(fields: KeyValues, where: str) -> GGUFVocab:
    """The GGUFVocab of the decoded key/values, checking each value's type."""
    if PREFIX + "model" not in fields:
        raise ValueError(f"{where}: the GGUF file has no tokenizer (no {PREFIX}model key)")
    if PREFIX + "tokens" not in fields:
        raise ValueError(f"{where}: the GGUF file has no {PREFIX}tokens")
    values = {key[len(PREFIX):]: triple for key, triple in fields.items() if key.startswith(PREFIX)}
    vocab = GGUFVocab(model=_want_str(values.pop("model"), where, "model"),
                      tokens=_want_str_list(values.pop("tokens"), where, "tokens"))
    if "pre" in values:
        vocab.pre = _want_str(values.pop("pre"), where, "pre")
    for attr, key in ARRAY_KEYS.items():
        if key in values and attr != "tokens":
            triple = values.pop(key)
            if attr == "merges":
                vocab.merges = _want_str_list(triple, where, key)
            elif attr == "precompiled_charsmap":
                vocab.precompiled_charsmap = _want_bytes(triple, where, key)
            elif attr == "scores":
                vocab.scores = [float(x) for x in _want_numbers(triple, where, key)]
            else:
                vocab.token_types = [int(x) for x in _want_numbers(triple, where, key)]
    for attr, key in FLAG_KEYS.items():
        if key in values:
            value, kind, _ = values.pop(key)
            if not isinstance(value, (bool, int)) or kind == ARRAY:
                raise ValueError(f"{where}: {PREFIX}{key} should be a bool, not {_TYPE_NAMES.get(kind, kind)}")
            setattr(vocab, attr, bool(value))
    for short, key in SPECIAL_KEYS.items():
        if key in values:
            value, kind, _ = values.pop(key)
            if isinstance(value, bool) or not isinstance(value, int):
                raise ValueError(f"{where}: {PREFIX}{key} should be an integer, not {_TYPE_NAMES.get(kind, kind)}")
            vocab.special_ids[short] = value
    for key, triple in values.items():  # other tokenizer.ggml.* keys
        vocab.extra[PREFIX + key] = triple
    for key, triple in fields.items():
        if key.startswith("tokenizer.") and not key.startswith(PREFIX):
            vocab.extra[key] = triple
    for key, attr in (("general.architecture", "architecture"), ("general.name", "name")):
        if key in fields:
            value = fields[key][0]
            setattr(vocab, attr, value if isinstance(value, str) else None)
    vocab.check()
    return vocab


def _field_value(field: Any, types: Any, where: str) -> Any:
    """A GGUFReader field's Python value: str, int, float, bool, or a list of them."""
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
            if item == types.ARRAY:
                return None
            return [field.parts[i][0].item() for i in field.data]
        return field.parts[field.data[0]][0].item()
    except (IndexError, TypeError) as e:
        raise ValueError(f"{where}: malformed value for {field.name} ({e})") from None


def _utf8(raw: bytes, where: str, key: str) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(f"{where}: {key} holds a string that is not UTF-8 ({e})") from None


def _want_str(triple: tuple[Any, int, Any], where: str, key: str) -> str:
    value, kind, _ = triple
    if not isinstance(value, str):
        raise ValueError(f"{where}: {PREFIX}{key} should be a string, not {_TYPE_NAMES.get(kind, kind)}")
    return value


def _want_str_list(triple: tuple[Any, int, Any], where: str, key: str) -> list[str]:
    value, kind, item = triple
    if kind != ARRAY or not isinstance(value, list) or (value and item != STRING):
        raise ValueError(f"{where}: {PREFIX}{key} should be an array of strings")
    return value


def _want_numbers(triple: tuple[Any, int, Any], where: str, key: str) -> list:
    value, kind, item = triple
    if kind != ARRAY or not isinstance(value, list) or (value and item == STRING):
        raise ValueError(f"{where}: {PREFIX}{key} should be an array of numbers")
    return value


def _want_bytes(triple: tuple[Any, int, Any], where: str, key: str) -> bytes:
    value, kind, item = triple
    if kind != ARRAY or not isinstance(value, list) or (value and item not in (0, 1)):
        raise ValueError(f"{where}: {PREFIX}{key} should be an array of bytes")
    return bytes(v & 0xFF for v in value) if item == 1 else bytes(value)
