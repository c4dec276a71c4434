"""Reading and writing SentencePiece ``.model`` files (the ``ModelProto`` protobuf).

The protobuf wire format is parsed here by hand, so tokenforge needs no ``protobuf``
package at run time.  Only the messages a model file holds are described
(``ModelProto``, ``ModelProto.SentencePiece``, ``TrainerSpec``, ``NormalizerSpec``);
fields this schema does not name are kept as raw bytes and written back after the known
ones, which is where protobuf's C++ serializer puts them.  A file written by protobuf and
read here therefore serializes back byte for byte.

What this module leaves to others: turning a model into a tokenizer
(:mod:`tokenforge.sentencepiece.processor`) and training one (the trainer).

Example:
    >>> m = ModelProto()
    >>> m.pieces.append(SentencePiece(piece="<unk>", score=0.0, type=PieceType.UNKNOWN))
    >>> m.trainer_spec.model_type = ModelType.BPE
    >>> data = m.to_bytes()
    >>> again = ModelProto.from_bytes(data)
    >>> again.pieces[0].piece, again.trainer_spec.model_type, again.to_bytes() == data
    ('<unk>', 2, True)
"""

from __future__ import annotations

import enum
import struct
from typing import Any, ClassVar

__all__ = ["ModelProto", "ModelType", "NormalizerSpec", "PieceType", "SentencePiece", "TrainerSpec"]


class PieceType(enum.IntEnum):
    """``ModelProto.SentencePiece.Type``."""

    NORMAL = 1
    UNKNOWN = 2
    CONTROL = 3
    USER_DEFINED = 4
    UNUSED = 5
    BYTE = 6


class ModelType(enum.IntEnum):
    """``TrainerSpec.ModelType``."""

    UNIGRAM = 1
    BPE = 2
    WORD = 3
    CHAR = 4


# Wire types.
_VARINT, _I64, _LEN, _I32 = 0, 1, 2, 5
# Field kinds: how a value is encoded and decoded.
_KIND_WIRE = {"string": _LEN, "bytes": _LEN, "float": _I32, "int32": _VARINT, "uint64": _VARINT, "bool": _VARINT,
              "enum": _VARINT, "message": _LEN}
_MAX_DEPTH = 8


def _read_varint(buf: bytes, pos: int, end: int) -> tuple[int, int]:
    """Reads a base-128 varint at ``pos``; returns (value, next position)."""
    value = shift = 0
    while True:
        if pos >= end:
            raise ValueError("truncated varint in model file")
        b = buf[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        if b < 0x80:
            return value, pos
        shift += 7
        if shift >= 70:
            raise ValueError("varint longer than 10 bytes in model file")


def _write_varint(out: bytearray, value: int) -> None:
    value &= 0xFFFFFFFFFFFFFFFF  # negative int32/int64 are written as 10-byte two's complement
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)


def _skip(buf: bytes, pos: int, end: int, wire: int) -> int:
    """Returns the position after a field's payload of the given wire type."""
    if wire == _VARINT:
        return _read_varint(buf, pos, end)[1]
    if wire == _I64:
        size = 8
    elif wire == _I32:
        size = 4
    elif wire == _LEN:
        size, pos = _read_varint(buf, pos, end)
    else:
        raise ValueError(f"unsupported protobuf wire type {wire} in model file")
    if size > end - pos:
        raise ValueError("field extends past the end of the model file (truncated?)")
    return pos + size


class Message:
    """A protobuf message with a fixed schema; unknown fields are kept verbatim.

    Subclasses list ``FIELDS``: field number -> (name, kind, default, repeated).
    Singular fields have presence: reading one that was never set gives its default,
    and only fields that were set (or read from a file) are written.
    """

    FIELDS: ClassVar[dict[int, tuple[str, str, Any, bool]]] = {}
    MESSAGES: ClassVar[dict[str, type[Message]]] = {}  # field name -> message class
    _BY_NAME: ClassVar[dict[str, int]] = {}

    def __init_subclass__(cls) -> None:
        cls._BY_NAME = {spec[0]: num for num, spec in cls.FIELDS.items()}
        for name, _kind, default, _repeated in cls.FIELDS.values():
            setattr(cls, name, _field_property(name, default))

    def __init__(self, **values: Any) -> None:
        object.__setattr__(self, "_values", {})  # field name -> value, for fields that are set
        object.__setattr__(self, "_unknown", [])  # raw bytes of fields not in the schema, in order
        for num, (name, kind, _default, repeated) in self.FIELDS.items():
            if repeated:
                self._values[name] = []
            elif kind == "message":
                self._values[name] = self.MESSAGES[name]()
                self._values[name]._present = False
        object.__setattr__(self, "_present", True)
        for k, v in values.items():
            setattr(self, k, v)

    def __setattr__(self, name: str, value: Any) -> None:
        if not name.startswith("_") and name not in type(self)._BY_NAME:
            raise AttributeError(f"{type(self).__name__} has no field {name!r}")
        object.__setattr__(self, name, value)

    def has(self, name: str) -> bool:
        """Whether a singular field was set (or read from the file).

        >>> NormalizerSpec().has("add_dummy_prefix"), NormalizerSpec(add_dummy_prefix=True).has("add_dummy_prefix")
        (False, True)
        """
        v = self._values.get(name)
        if isinstance(v, Message):
            return v._present
        return name in self._values

    def clear(self, name: str) -> None:
        """Unsets a singular field, so it reads as its default and is not written."""
        self._values.pop(name, None)

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and self.to_bytes() == other.to_bytes()  # type: ignore[union-attr]

    def __repr__(self) -> str:
        shown = {k: v for k, v in self._values.items() if not (isinstance(v, (list, Message)) and not v)}
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in shown.items())})"

    def __bool__(self) -> bool:
        return True

    # ---- decoding ----

    @classmethod
    def from_bytes(cls, data: bytes, _depth: int = 0) -> Message:
        """Parses the wire format.

        Raises:
            ValueError: truncated data, an invalid wire type, or a string that is not
                UTF-8 (a known field with another valid wire type is kept as unknown,
                as protobuf keeps it).
        """
        msg = cls()
        data = bytes(data)
        msg._parse(data, 0, len(data), _depth)
        return msg

    def _parse(self, buf: bytes, pos: int, end: int, depth: int) -> None:
        if depth > _MAX_DEPTH:
            raise ValueError("model file nests messages too deeply")
        while pos < end:
            start = pos
            key, pos = _read_varint(buf, pos, end)
            num, wire = key >> 3, key & 7
            if num == 0 or num >= 1 << 29:  # protobuf's field numbers are 1 .. 2^29 - 1
                raise ValueError(f"field number {num} in model file is out of range")
            spec = self.FIELDS.get(num)
            if spec is None or wire != _KIND_WIRE[spec[1]]:
                # Not in the schema, or with another wire type than the schema's: kept as an
                # unknown field, as protobuf does (sentencepiece loads such files).
                pos = _skip(buf, pos, end, wire)
                self._unknown.append(buf[start:pos])
                continue
            name, kind, _default, repeated = spec
            if wire == _VARINT:
                raw, pos = _read_varint(buf, pos, end)
                value: Any = _decode_int(kind, raw)
            elif wire == _I32:
                if end - pos < 4:
                    raise ValueError(f"truncated float field {name}")
                value = struct.unpack_from("<f", buf, pos)[0]
                pos += 4
            else:
                size, pos = _read_varint(buf, pos, end)
                if size > end - pos:
                    raise ValueError(f"field {type(self).__name__}.{name} extends past the end of the data (truncated?)")
                payload = buf[pos:pos + size]
                if kind == "message" and self.MESSAGES[name] is SentencePiece:
                    value = _parse_piece(buf, pos, pos + size)
                elif kind == "message":
                    sub = self._values[name] if not repeated else self.MESSAGES[name]()
                    sub._parse(buf, pos, pos + size, depth + 1)  # a repeated singular message merges, as protobuf does
                    sub._present = True
                    value = sub
                elif kind == "string":
                    try:
                        value = payload.decode("utf-8")
                    except UnicodeDecodeError:
                        raise ValueError(f"field {type(self).__name__}.{name} is not valid UTF-8") from None
                else:
                    value = payload
                pos += size
            if repeated:
                self._values[name].append(value)
            else:
                self._values[name] = value

    # ---- encoding ----

    def to_bytes(self) -> bytes:
        """Serializes in field-number order, then the unknown fields, as protobuf C++ does."""
        out = bytearray()
        self._write(out)
        return bytes(out)

    def _write(self, out: bytearray) -> None:
        for num in sorted(self.FIELDS):
            name, kind, _default, repeated = self.FIELDS[num]
            if name not in self._values:
                continue
            values = self._values[name] if repeated else [self._values[name]]
            for v in values:
                if kind == "message" and not v._present:
                    continue
                _write_varint(out, (num << 3) | _KIND_WIRE[kind])
                if kind == "float":
                    out += struct.pack("<f", v)
                elif kind in ("int32", "uint64", "enum"):
                    _write_varint(out, int(v))
                elif kind == "bool":
                    out.append(1 if v else 0)
                elif kind == "message":
                    body = v.to_bytes()
                    _write_varint(out, len(body))
                    out += body
                else:
                    body = v.encode("utf-8") if kind == "string" else bytes(v)
                    _write_varint(out, len(body))
                    out += body
        for raw in self._unknown:
            out += raw


def _field_property(name: str, default: Any) -> property:
    """A field as a property: its value if set, else its default; setting marks presence."""

    def get(self: Message) -> Any:
        return self._values.get(name, default)

    def put(self: Message, value: Any) -> None:
        self._values[name] = value
        object.__setattr__(self, "_present", True)  # setting a field makes a sub-message present
        if isinstance(value, Message):
            value._present = True

    return property(get, put, doc=f"The ``{name}`` field.")


def _decode_int(kind: str, raw: int) -> int | bool:
    if kind == "bool":
        return raw != 0
    if kind in ("int32", "enum"):
        raw &= 0xFFFFFFFF  # protobuf truncates a 64-bit varint to 32 bits
        return raw - (1 << 32) if raw >= 1 << 31 else raw
    return raw


_FLOAT = struct.Struct("<f")


class SentencePiece(Message):
    """One vocabulary entry: ``piece`` (text), ``score`` and ``type`` (:class:`PieceType`)."""

    FIELDS = {1: ("piece", "string", "", False), 2: ("score", "float", 0.0, False), 3: ("type", "enum", 1, False)}

    @classmethod
    def of(cls, piece: str, score: float, type: int | None = None) -> SentencePiece:  # noqa: A002
        """A piece with these fields set (``type`` left unset when None), made without the
        per-field checks of the keyword constructor (trainers make tens of thousands).

        >>> SentencePiece.of("ab", -1.0).to_bytes() == SentencePiece(piece="ab", score=-1.0).to_bytes()
        True
        """
        values: dict[str, Any] = {"piece": piece, "score": score}
        if type is not None:
            values["type"] = type
        return _piece_with(values)

    def to_bytes(self) -> bytes:
        values = self._values
        if len(values) == 2 and not self._unknown:
            piece, score = values.get("piece"), values.get("score")
            if piece is not None and score is not None:
                body = piece.encode("utf-8")
                if len(body) < 0x80:  # a one-byte length: the usual learned piece
                    return b"\x0a%c%b\x15%b" % (len(body), body, _FLOAT.pack(score))
        return super().to_bytes()

    def _write(self, out: bytearray) -> None:
        values = self._values
        if self._unknown or not values.keys() <= _PIECE_FIELDS:
            super()._write(out)
            return
        # The usual shape, written as the generic writer writes it (field order 1, 2, 3).
        piece = values.get("piece")
        if piece is not None:
            body = piece.encode("utf-8")
            out.append(0x0A)
            _write_varint(out, len(body))
            out += body
        score = values.get("score")
        if score is not None:
            out.append(0x15)
            out += _FLOAT.pack(score)
        kind = values.get("type")
        if kind is not None:
            out.append(0x18)
            _write_varint(out, int(kind))


_PIECE_FIELDS = frozenset(("piece", "score", "type"))


def _piece_with(values: dict[str, Any]) -> SentencePiece:
    piece = SentencePiece.__new__(SentencePiece)
    object.__setattr__(piece, "_values", values)
    object.__setattr__(piece, "_unknown", [])
    object.__setattr__(piece, "_present", True)
    return piece


def _parse_piece(buf: bytes, pos: int, end: int) -> SentencePiece:
    """Parses one SentencePiece, fast for the usual shape (piece, score, type in one-byte
    keys and lengths); anything else goes through the generic parser."""
    start, values = pos, {}
    try:
        while pos < end:
            key = buf[pos]
            if key == 0x0A and buf[pos + 1] < 0x80 and pos + 2 + buf[pos + 1] <= end:  # piece, short
                values["piece"] = buf[pos + 2:pos + 2 + buf[pos + 1]].decode("utf-8")
                pos += 2 + buf[pos + 1]
            elif key == 0x15 and pos + 5 <= end:  # score
                values["score"] = _FLOAT.unpack_from(buf, pos + 1)[0]
                pos += 5
            elif key == 0x18 and buf[pos + 1] < 0x80 and pos + 2 <= end:  # type, one byte
                values["type"] = buf[pos + 1]
                pos += 2
            else:
                raise ValueError
    except (ValueError, IndexError):
        piece = SentencePiece()
        piece._parse(buf, start, end, 1)
        return piece
    return _piece_with(values)


class NormalizerSpec(Message):
    """How text is normalized before encoding (see :mod:`tokenforge.sentencepiece.normalizer`)."""

    FIELDS = {
        1: ("name", "string", "", False),
        2: ("precompiled_charsmap", "bytes", b"", False),
        3: ("add_dummy_prefix", "bool", True, False),
        4: ("remove_extra_whitespaces", "bool", True, False),
        5: ("escape_whitespaces", "bool", True, False),
        6: ("normalization_rule_tsv", "string", "", False),
    }


class TrainerSpec(Message):
    """The options the model was trained with; encoding reads the model type and special pieces."""

    FIELDS = {
        1: ("input", "string", None, True),
        2: ("model_prefix", "string", "", False),
        3: ("model_type", "enum", 1, False),
        4: ("vocab_size", "int32", 8000, False),
        5: ("accept_language", "string", None, True),
        6: ("self_test_sample_size", "int32", 0, False),
        7: ("input_format", "string", "", False),
        10: ("character_coverage", "float", 0.9995, False),
        11: ("input_sentence_size", "uint64", 0, False),
        12: ("mining_sentence_size", "int32", 0, False),
        13: ("training_sentence_size", "int32", 0, False),
        14: ("seed_sentencepiece_size", "int32", 1000000, False),
        15: ("shrinking_factor", "float", 0.75, False),
        16: ("num_threads", "int32", 16, False),
        17: ("num_sub_iterations", "int32", 2, False),
        18: ("max_sentence_length", "int32", 4192, False),
        19: ("shuffle_input_sentence", "bool", True, False),
        20: ("max_sentencepiece_length", "int32", 16, False),
        21: ("split_by_unicode_script", "bool", True, False),
        22: ("split_by_whitespace", "bool", True, False),
        23: ("split_by_number", "bool", True, False),
        24: ("treat_whitespace_as_suffix", "bool", False, False),
        25: ("split_digits", "bool", False, False),
        26: ("allow_whitespace_only_pieces", "bool", False, False),
        30: ("control_symbols", "string", None, True),
        31: ("user_defined_symbols", "string", None, True),
        32: ("vocabulary_output_piece_score", "bool", True, False),
        33: ("hard_vocab_limit", "bool", True, False),
        34: ("use_all_vocab", "bool", False, False),
        35: ("byte_fallback", "bool", False, False),
        36: ("required_chars", "string", "", False),
        40: ("unk_id", "int32", 0, False),
        41: ("bos_id", "int32", 1, False),
        42: ("eos_id", "int32", 2, False),
        43: ("pad_id", "int32", -1, False),
        44: ("unk_surface", "string", " \u2047 ", False),
        45: ("unk_piece", "string", "<unk>", False),
        46: ("bos_piece", "string", "<s>", False),
        47: ("eos_piece", "string", "</s>", False),
        48: ("pad_piece", "string", "<pad>", False),
        49: ("train_extremely_large_corpus", "bool", False, False),
        50: ("enable_differential_privacy", "bool", False, False),
        51: ("differential_privacy_noise_level", "float", 0.0, False),
        52: ("differential_privacy_clipping_threshold", "uint64", 0, False),
        53: ("pretokenization_delimiter", "string", "", False),
        54: ("seed_sentencepieces_file", "string", "", False),
        55: ("auto_character_coverage", "bool", False, False),
    }


class ModelProto(Message):
    """A whole ``.model`` file: the pieces, the trainer and normalizer specs, an optional denormalizer."""

    FIELDS = {
        1: ("pieces", "message", None, True),
        2: ("trainer_spec", "message", None, False),
        3: ("normalizer_spec", "message", None, False),
        5: ("denormalizer_spec", "message", None, False),
    }
    MESSAGES = {"pieces": SentencePiece, "trainer_spec": TrainerSpec, "normalizer_spec": NormalizerSpec,
                "denormalizer_spec": NormalizerSpec}

    @classmethod
    def load(cls, path: str | bytes) -> ModelProto:
        """Reads a ``.model`` file.

        Raises:
            OSError: the file cannot be read.
            ValueError: the file is not a valid ModelProto.
        """
        with open(path, "rb") as f:
            return cls.from_bytes(f.read())  # type: ignore[return-value]

    def save(self, path: str) -> None:
        """Writes the model to ``path`` atomically (a temporary file, then a rename)."""
        from tokenforge._files import write_atomic

        write_atomic(path, self.to_bytes())
