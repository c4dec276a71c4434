"""SentencePiece's ``SentencePieceText`` and ``NBestSentencePieceText`` messages (its
``sentencepiece.proto``): an encoding with its alignment, as bytes.  These are what
sentencepiece's ``encode(..., out_type="serialized_proto")`` and ``decode(...,
out_type="serialized_proto")`` return::

    message SentencePieceText {
      optional string text = 1;                  // the input (encode) or the output (decode)
      message SentencePiece {
        optional string piece = 1;  optional uint32 id = 2;
        optional string surface = 3;             // the text this piece stands for
        optional uint32 begin = 4;  optional uint32 end = 5;   // byte span of surface in text
      }
      repeated SentencePiece pieces = 2;
      optional float score = 3;                  // set on n-best and scored samples only
    }
    message NBestSentencePieceText { repeated SentencePieceText nbests = 1; }

Written as protobuf's C++ serializer writes what sentencepiece sets: fields in number
order, each only when set.  sentencepiece sets every field of a piece except the surface of
a byte piece that is not the last of its character (in an encoding); a piece is a tuple
``(piece, id, surface or None, begin, end)`` with ``piece`` and ``surface`` as UTF-8 bytes.

What it leaves out: extensions (field numbers 200 and up, which sentencepiece never sets);
the objects built from these tuples are :mod:`tokenforge.sentencepiece.proto`'s.

Example:
    >>> data = write_text(b"ab", [(b"\\xe2\\x96\\x81ab", 7, b"ab", 0, 2)])
    >>> data
    b'\\n\\x02ab\\x12\\x11\\n\\x05\\xe2\\x96\\x81ab\\x10\\x07\\x1a\\x02ab \\x00(\\x02'
    >>> read_text(data)
    (b'ab', [(b'\\xe2\\x96\\x81ab', 7, b'ab', 0, 2)], None)
"""

from __future__ import annotations

import struct
from collections.abc import Iterable

from tokenforge.formats.sentencepiece_model import _read_varint, _skip, _write_varint

__all__ = ["PieceTuple", "read_nbest", "read_text", "write_nbest", "write_piece", "write_text"]

PieceTuple = tuple[bytes, int, "bytes | None", int, int]  # (piece, id, surface or None, begin, end)
_FLOAT = struct.Struct("<f")


def _put_bytes(out: bytearray, key: int, value: bytes) -> None:
    out.append(key)
    _write_varint(out, len(value))
    out += value


def write_piece(piece: bytes, id: int, surface: bytes | None, begin: int, end: int) -> bytes:
    """One ``SentencePieceText.SentencePiece`` message.

    >>> write_piece(b"a", 5, None, 3, 3)
    b'\\n\\x01a\\x10\\x05 \\x03(\\x03'
    """
    out = bytearray()
    _put_bytes(out, 0x0A, piece)
    out.append(0x10)
    _write_varint(out, id & 0xFFFFFFFF)  # uint32: protobuf writes -1 as 2^32 - 1
    if surface is not None:
        _put_bytes(out, 0x1A, surface)
    out.append(0x20)
    _write_varint(out, begin)
    out.append(0x28)
    _write_varint(out, end)
    return bytes(out)


def write_text(text: bytes, pieces: Iterable[PieceTuple | bytes], score: float | None = None) -> bytes:
    """A ``SentencePieceText``: the text, its pieces (tuples, or messages from
    :func:`write_piece`) and, when not None, the score (a float32).

    >>> write_text(b"", [])
    b'\\n\\x00'
    """
    out = bytearray()
    _put_bytes(out, 0x0A, text)
    for p in pieces:
        _put_bytes(out, 0x12, p if isinstance(p, bytes) else write_piece(*p))
    if score is not None:
        out.append(0x1D)
        out += _FLOAT.pack(score)
    return bytes(out)


def write_nbest(texts: Iterable[bytes]) -> bytes:
    """A ``NBestSentencePieceText`` of serialized ``SentencePieceText`` messages.

    >>> write_nbest([write_text(b"", [], 0.5)])
    b'\\n\\x07\\n\\x00\\x1d\\x00\\x00\\x00?'
    """
    out = bytearray()
    for t in texts:
        _put_bytes(out, 0x0A, t)
    return bytes(out)


def _fields(data: bytes) -> Iterable[tuple[int, int, object]]:
    """(field number, wire type, value) of each field: an int, or bytes for wire types 2 and 5."""
    pos, end = 0, len(data)
    while pos < end:
        key, pos = _read_varint(data, pos, end)
        num, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = _read_varint(data, pos, end)
            yield num, wire, value
        elif wire == 2:
            size, pos = _read_varint(data, pos, end)
            if size > end - pos:
                raise ValueError("SentencePieceText field extends past the end of the data (truncated?)")
            yield num, wire, data[pos:pos + size]
            pos += size
        elif wire == 5 and end - pos >= 4:
            yield num, wire, data[pos:pos + 4]
            pos += 4
        else:
            pos = _skip(data, pos, end, wire)  # raises ValueError on a bad wire type or truncation


def read_text(data: bytes) -> tuple[bytes, list[PieceTuple], float | None]:
    """Parses a ``SentencePieceText``: (text, pieces, score or None); unknown fields are skipped.

    Raises:
        ValueError: truncated data or an invalid wire type.
    """
    text, pieces, score = b"", [], None
    for num, wire, value in _fields(bytes(data)):
        if num == 1 and wire == 2:
            text = value  # type: ignore[assignment]
        elif num == 2 and wire == 2:
            p: list = [b"", 0, None, 0, 0]
            for n, w, v in _fields(value):  # type: ignore[arg-type]
                if n in (1, 3) and w == 2:
                    p[n - 1] = v
                elif n in (2, 4, 5) and w == 0:
                    p[n - 1] = v & 0xFFFFFFFF  # type: ignore[operator]
            pieces.append(tuple(p))
        elif num == 3 and wire == 5:
            score = _FLOAT.unpack(value)[0]  # type: ignore[arg-type]
    return text, pieces, score  # type: ignore[return-value]


def read_nbest(data: bytes) -> list[bytes]:
    """The serialized ``SentencePieceText`` messages of a ``NBestSentencePieceText``.

    >>> [read_text(t) for t in read_nbest(write_nbest([write_text(b"x", [])]))]
    [(b'x', [], None)]
    """
    return [v for n, w, v in _fields(bytes(data)) if n == 1 and w == 2]  # type: ignore[misc]
