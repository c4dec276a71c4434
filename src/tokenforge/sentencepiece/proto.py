"""Encodings with alignment as objects: sentencepiece's ``ImmutableSentencePieceText``.

``encode(..., out_type="immutable_proto")`` (sentencepiece 0.2.0/0.2.1's name) and
``out_type="proto"`` (0.2.3's, where it is a protobuf message) return a
:class:`ImmutableSentencePieceText`; n-best and scored samples return a
:class:`ImmutableNBestSentencePieceText`.  They read like both: ``text``, ``pieces``,
``score``, and per piece ``piece``, ``id``, ``surface``, ``begin``, ``end`` (plus the
``*_as_bytes`` forms); ``SerializeAsString()`` / ``SerializeToString()`` give the wire
bytes of :mod:`tokenforge.formats.sentencepiece_text`, and equality and hashing go by them.

Spans: ``begin``/``end`` are byte offsets into ``text_as_bytes``, as sentencepiece's protos
hold them; :func:`to_unicode_spans` turns them into character offsets into ``text``, which
is what 0.2.0/0.2.1's immutable protos hold (the processor applies it for
``"immutable_proto"``).

What it leaves out: building these from a model (:mod:`.processor`); protobuf's reflection
API (``ListFields``, ``HasField``, ...).

Example:
    >>> t = ImmutableSentencePieceText(b"ab", [ImmutableSentencePiece(b"\\xe2\\x96\\x81ab", 7, b"ab", 0, 2)])
    >>> t.text, [(p.piece, p.id, p.surface, p.begin, p.end) for p in t.pieces]
    ('ab', [('▁ab', 7, 'ab', 0, 2)])
    >>> ImmutableSentencePieceText.FromString(t.SerializeAsString()) == t
    True
"""

from __future__ import annotations

import functools
import itertools
import operator
from collections.abc import Iterable, Sequence
from typing import Any

from tokenforge.formats.sentencepiece_text import read_nbest, read_text, write_nbest, write_piece, write_text

__all__ = ["ImmutableNBestSentencePieceText", "ImmutableSentencePiece", "ImmutableSentencePieceText", "finish",
           "from_offsets", "pieces_of", "to_unicode_spans"]


def _str(b: bytes) -> str:
    return b.decode("utf-8", "surrogateescape")


class _Serialized:
    """Equality, hashing and the protobuf-style serializers, by the wire bytes (made once)."""

    __slots__ = ()

    def _wire(self) -> bytes:
        raise NotImplementedError  # each message class writes its own fields

    def SerializeAsString(self) -> bytes:  # noqa: N802 (sentencepiece's name)
        """The message in protobuf's wire format."""
        wire = self._cache
        if wire is None:
            wire = self._cache = self._wire()
        return wire

    SerializeToString = SerializeAsString

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, _Serialized):
            return NotImplemented
        return type(self) is type(other) and self.SerializeAsString() == other.SerializeAsString()

    def __hash__(self) -> int:
        return hash(self.SerializeAsString())

    def __repr__(self) -> str:
        return self.__str__()


class ImmutableSentencePiece(tuple):
    """One piece: its text, id, the text it stands for (``surface``) and that text's span.

    A tuple ``(piece, id, surface or None, begin, end)`` underneath (texts as UTF-8 bytes),
    so a piece costs one object; equal pieces are equal fields, as their wire bytes are.
    """

    __slots__ = ()

    def __new__(cls, piece: bytes, id: int, surface: bytes | None, begin: int, end: int) -> ImmutableSentencePiece:
        return tuple.__new__(cls, (piece, id & 0xFFFFFFFF, surface, begin, end))

    piece = property(lambda self: _str(self[0]), doc="The piece (str).")
    piece_as_bytes = property(operator.itemgetter(0), doc="The piece as UTF-8 bytes.")
    id = property(operator.itemgetter(1), doc="The piece's id.")
    surface = property(lambda self: _str(self[2] or b""), doc="The text the piece stands for ('' if unset).")
    surface_as_bytes = property(lambda self: self[2] or b"", doc="``surface`` as UTF-8 bytes.")
    begin = property(operator.itemgetter(3), doc="Where ``surface`` starts in the text.")
    end = property(operator.itemgetter(4), doc="Where ``surface`` ends in the text.")

    def SerializeAsString(self) -> bytes:  # noqa: N802 (sentencepiece's name)
        """The piece message in protobuf's wire format."""
        return write_piece(*self)

    SerializeToString = SerializeAsString

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and tuple.__eq__(self, other)  # type: ignore[arg-type]

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = tuple.__hash__

    def __str__(self) -> str:
        return (f'piece: "{self.piece}"\nid: {self.id}\nsurface: "{self.surface}"\n'
                f"begin: {self.begin}\nend: {self.end}\n")

    __repr__ = __str__


# Makes a piece from a native (piece, id, surface, begin, end) tuple, whose id is already a uint32.
_piece_of = functools.partial(tuple.__new__, ImmutableSentencePiece)


class _Items(Sequence):
    """A read-only list of messages: indexing, slicing (to a list), len, iteration, ==."""

    __slots__ = ("_items", "_label")

    def __init__(self, items: list, label: str) -> None:
        self._items, self._label = items, label

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return self._items[index]
        try:
            return self._items[index]
        except IndexError:
            raise IndexError(f"{self._label} index is out of range") from None

    def __len__(self) -> int:
        return len(self._items)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (_Items, list, tuple)):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # a view, like a list

    def __str__(self) -> str:
        return "\n".join(f"{self._label} {{\n{x}}}" for x in self._items)

    __repr__ = __str__


class ImmutableSentencePieceText(_Serialized):
    """An encoding (or decoding) with alignment: ``text``, ``pieces`` and ``score``."""

    __slots__ = ("_text", "_pieces", "_score", "_cache")

    def __init__(self, text: bytes, pieces: Iterable[ImmutableSentencePiece] = (), score: float | None = None) -> None:
        self._text, self._pieces, self._score, self._cache = text, list(pieces), score, None

    @classmethod
    def FromString(cls, data: bytes) -> ImmutableSentencePieceText:  # noqa: N802 (protobuf's name)
        """Parses serialized bytes (``encode(..., out_type="serialized_proto")``).

        Raises:
            ValueError: the bytes are not a SentencePieceText.
        """
        text, pieces, score = read_text(data)
        return cls(text, [_piece_of(p) for p in pieces], score)

    text = property(lambda self: _str(self._text), doc="The text (str).")
    text_as_bytes = property(lambda self: self._text, doc="The text as UTF-8 bytes.")
    score = property(lambda self: self._score or 0.0, doc="The score (n-best and scored samples; else 0).")
    pieces = property(lambda self: _Items(self._pieces, "pieces"), doc="The pieces, a read-only list.")

    def __len__(self) -> int:
        return len(self._pieces)

    def __getitem__(self, index: Any) -> Any:
        return self.pieces[index]

    def _wire(self) -> bytes:
        return write_text(self._text, self._pieces, self._score)

    def __str__(self) -> str:
        body = "".join(f"pieces {{\n{p}}}\n" for p in self._pieces)
        score = f"score: {self._score}\n" if self._score is not None else ""
        return f'text: "{self.text}"\n{body}{score}'


class ImmutableNBestSentencePieceText(_Serialized):
    """Several encodings of one text, each with its score: ``nbests``."""

    __slots__ = ("_nbests", "_cache")

    def __init__(self, nbests: Iterable[ImmutableSentencePieceText] = ()) -> None:
        self._nbests, self._cache = list(nbests), None

    @classmethod
    def FromString(cls, data: bytes) -> ImmutableNBestSentencePieceText:  # noqa: N802 (protobuf's name)
        """Parses serialized bytes (``nbest_encode(..., out_type="serialized_proto")``)."""
        return cls(ImmutableSentencePieceText.FromString(t) for t in read_nbest(data))

    nbests = property(lambda self: _Items(self._nbests, "nbests"), doc="The encodings, a read-only list.")

    def __len__(self) -> int:
        return len(self._nbests)

    def __getitem__(self, index: Any) -> Any:
        return self.nbests[index]

    def _wire(self) -> bytes:
        return write_nbest(t.SerializeAsString() for t in self._nbests)

    def __str__(self) -> str:
        return "".join(f"nbests {{\n{t}}}\n" for t in self._nbests)


# 1 for a byte that starts a character (ASCII or a lead byte), 0 for a continuation byte.
_STARTS = bytes(0 if 0x80 <= b < 0xC0 else 1 for b in range(256))


def _char_index(data: bytes) -> list[int]:
    """For each byte offset of `data` and its end, the index of the character it is in (the
    character count at the end), as sentencepiece's ConvertToUnicodeSpans maps them."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:  # sentencepiece's OneCharLen steps: a lead byte claims its length
        starts = bytearray(len(data))
        pos = 0
        while pos < len(data):
            starts[pos] = 1
            pos += (1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4)[data[pos] >> 4]
    else:
        starts = data.translate(_STARTS)
    counts = list(itertools.accumulate(starts))  # counts[i]: characters started in data[:i + 1]
    return [c - 1 for c in counts] + [counts[-1] if counts else 0]


def to_unicode_spans(t: Any) -> Any:
    """The same text(s) with each piece's byte span turned into a character span of ``text``
    (sentencepiece's ConvertToUnicodeSpans); offsets past the end are clipped to it.

    >>> t = ImmutableSentencePieceText("é!".encode(), [ImmutableSentencePiece(b"x", 1, "!".encode(), 2, 3)])
    >>> [(p.begin, p.end) for p in to_unicode_spans(t).pieces]
    [(1, 2)]
    """
    if isinstance(t, ImmutableNBestSentencePieceText):
        return ImmutableNBestSentencePieceText(to_unicode_spans(x) for x in t._nbests)
    if not t._text:
        return t
    char_at = _char_index(t._text)
    last = len(t._text)
    pieces = [_piece_of((p[0], p[1], p[2], char_at[min(max(p[3], 0), last)], char_at[min(max(p[4], 0), last)]))
              for p in t._pieces]
    return ImmutableSentencePieceText(t._text, pieces, t._score)


def from_offsets(raw: list, data: bytes, score: float | None = None, unicode: bool = False) -> ImmutableSentencePieceText:
    """The encoding of ``data`` from the native core's ``[(id, piece, begin, end, partial)]``
    (byte spans; a partial byte piece, not the last of its character, has no surface); with
    ``unicode``, the spans become character spans as :func:`to_unicode_spans` makes them."""
    if unicode and data:
        at = _char_index(data)  # the native spans lie within the text
        pieces = [ImmutableSentencePiece(p.encode("utf-8", "surrogateescape"), i, None if partial else data[b:e],
                                         at[b], at[e]) for i, p, b, e, partial in raw]
    else:
        pieces = [ImmutableSentencePiece(p.encode("utf-8", "surrogateescape"), i, None if partial else data[b:e],
                                         b, e) for i, p, b, e, partial in raw]
    return ImmutableSentencePieceText(data, pieces, score)


def pieces_of(raw: list) -> list:
    """Pieces from the native core's ``[(piece, id, surface or None, begin, end)]``."""
    return list(map(_piece_of, raw))


def finish(t: Any, kind: str) -> Any:
    """An encoding in the form ``out_type`` asks: ``"serialized_proto"`` (bytes),
    ``"immutable_proto"`` (character spans, as 0.2.0/0.2.1) or ``"proto"`` (byte spans, as 0.2.3)."""
    if kind == "serialized_proto":
        return t.SerializeAsString()
    if kind == "immutable_proto":
        return to_unicode_spans(t)
    return t
