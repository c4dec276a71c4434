"""GPT-2's map between bytes and printable characters (``bytes_to_unicode``), used by
every format that stores byte-level tokens as text: GPT-2's encoder.json / vocab.bpe,
HF tokenizers' ByteLevel `tokenizer.json`, llama.cpp's GGUF `gpt2` vocabularies.

The 188 printable Latin-1 bytes (``!``..``~``, ``¡``..``¬``, ``®``..``ÿ``) stand for
themselves; the other 68 bytes, in increasing order, get U+0100 upwards.  The same order
(printable bytes first) numbers the single-byte tokens 0..255 in GPT-2 and in HF's
byte-level trainer.

Example:
    >>> BYTE_TO_CHAR[ord("a")], BYTE_TO_CHAR[ord(" ")], BYTE_TO_CHAR[0]
    ('a', 'Ġ', 'Ā')
    >>> to_text(b"hi there"), to_bytes("hiĠthere")
    ('hiĠthere', b'hi there')
"""

from __future__ import annotations

_PRINTABLE = [b for b in range(256) if 33 <= b <= 126 or 161 <= b <= 172 or 174 <= b <= 255]

BYTE_ORDER: list[int] = _PRINTABLE + [b for b in range(256) if b not in _PRINTABLE]
"""The byte that gets each id 0..255 (printable bytes first)."""

BYTE_TO_CHAR: dict[int, str] = {b: chr(b) for b in _PRINTABLE} | {
    b: chr(256 + n) for n, b in enumerate(b for b in range(256) if b not in _PRINTABLE)
}
CHAR_TO_BYTE: dict[str, int] = {c: b for b, c in BYTE_TO_CHAR.items()}


def to_text(data: bytes) -> str:
    """The stand-in characters of `data`."""
    return "".join(BYTE_TO_CHAR[b] for b in data)


def to_bytes(text: str, where: str = "text") -> bytes:
    """The bytes that the stand-in characters of `text` spell.

    Raises:
        ValueError: a character is not one of the 256 stand-ins (`where` names the place).
    """
    try:
        return bytes(CHAR_TO_BYTE[c] for c in text)
    except KeyError as e:
        raise ValueError(f"{where}: character {e.args[0]!r} is not a GPT-2 byte character") from None
