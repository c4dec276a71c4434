"""Reading and writing tiktoken's BPE rank files and GPT-2's encoder.json / vocab.bpe.

A `.tiktoken` file has one token a line: ``base64(token bytes) SPACE rank``.  The GPT-2
"data gym" pair (encoder.json + vocab.bpe) describes the same r50k vocabulary with
printable stand-ins for bytes and an explicit merge list; it converts to ranks.

What this module leaves out: downloading (see :mod:`tokenforge.registry`) and the special
tokens, which are not stored in these files.

Example:
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "tiny.tiktoken")
    >>> dump_tiktoken_bpe({b"a": 0, b"b": 1, b"ab": 2}, path)
    >>> load_tiktoken_bpe(path)
    {b'a': 0, b'b': 1, b'ab': 2}
"""

from __future__ import annotations

import base64
import binascii
import json
import os

from tokenforge._files import read_checked, write_atomic


def parse_tiktoken_bpe(contents: bytes, source: str = "<bytes>") -> dict[bytes, int]:
    """Parses the text of a `.tiktoken` file.

    Raises:
        ValueError: a line is not ``base64 rank``, has bad base64, or repeats a token or a rank;
            the message names the line.
    """
    ranks: dict[bytes, int] = {}
    seen_ranks: set[int] = set()
    for lineno, line in enumerate(contents.splitlines(), start=1):
        if not line.strip():
            continue
        fields = line.split()
        if len(fields) != 2:
            raise ValueError(f"{source}:{lineno}: expected 'base64 rank', got {line[:80]!r}")
        try:
            token = base64.b64decode(fields[0], validate=True)
        except binascii.Error as e:
            raise ValueError(f"{source}:{lineno}: bad base64 {fields[0][:80].decode('latin-1')!r} ({e})") from None
        try:
            rank = int(fields[1])
        except ValueError:
            raise ValueError(f"{source}:{lineno}: rank {fields[1][:40].decode('latin-1')!r} is not an integer") from None
        if rank < 0 or rank >= 2**32 - 1:
            raise ValueError(f"{source}:{lineno}: rank {rank} out of range")
        if token in ranks:
            raise ValueError(f"{source}:{lineno}: token {token!r} appears twice")
        if rank in seen_ranks:
            raise ValueError(f"{source}:{lineno}: rank {rank} appears twice")
        ranks[token] = rank
        seen_ranks.add(rank)
    return ranks


def load_tiktoken_bpe(path: str | os.PathLike[str], expected_hash: str | None = None) -> dict[bytes, int]:
    """Loads a `.tiktoken` rank file from a local path.

    Args:
        path: the file.
        expected_hash: optional sha256 (hex) the file must have.

    Returns:
        token bytes -> rank.

    Raises:
        OSError: the file cannot be read.
        ValueError: the hash differs or the file is malformed (the message names the line).
    """
    return parse_tiktoken_bpe(read_checked(path, expected_hash), os.fspath(path))


def dump_tiktoken_bpe(bpe_ranks: dict[bytes, int], path: str | os.PathLike[str]) -> None:
    """Writes ranks as a `.tiktoken` file (sorted by rank), atomically."""
    lines = [base64.b64encode(token) + b" " + str(rank).encode() for token, rank in sorted(bpe_ranks.items(), key=lambda kv: kv[1])]
    write_atomic(path, b"\n".join(lines) + b"\n")


def _data_gym_byte_map() -> dict[str, int]:
    """GPT-2's printable stand-in character for each byte (bytes_to_unicode)."""
    printable = [b for b in range(256) if chr(b).isprintable() and chr(b) != " "]
    mapping = {chr(b): b for b in printable}
    n = 0
    for b in range(256):
        if b not in printable:
            mapping[chr(256 + n)] = b
            n += 1
    return mapping


def data_gym_to_mergeable_bpe_ranks(
    vocab_bpe_path: str | os.PathLike[str],
    encoder_json_path: str | os.PathLike[str],
    vocab_bpe_hash: str | None = None,
    encoder_json_hash: str | None = None,
) -> dict[bytes, int]:
    """Converts GPT-2's ``vocab.bpe`` + ``encoder.json`` to tiktoken ranks.

    Ranks 0-255 are the single bytes in the data gym order, then one rank per merge.  The
    result is checked against encoder.json (minus its special tokens).

    Raises:
        OSError: a file cannot be read.
        ValueError: a file is malformed or the two files disagree.
    """
    byte_of = _data_gym_byte_map()

    def to_bytes(s: str, where: str) -> bytes:
        try:
            return bytes(byte_of[c] for c in s)
        except KeyError as e:
            raise ValueError(f"{where}: character {e.args[0]!r} is not a data gym byte") from None

    ranks = {bytes([byte_of[c]]): i for i, c in enumerate(byte_of)}
    text = read_checked(vocab_bpe_path, vocab_bpe_hash).decode("utf-8")
    lines = text.split("\n")
    start = 1 if lines and lines[0].startswith("#version") else 0
    n = len(ranks)
    for lineno, line in enumerate(lines[start:], start=start + 1):
        if not line:
            continue
        parts = line.split(" ")
        if len(parts) != 2:
            raise ValueError(f"{os.fspath(vocab_bpe_path)}:{lineno}: expected two symbols, got {line[:80]!r}")
        where = f"{os.fspath(vocab_bpe_path)}:{lineno}"
        merged = to_bytes(parts[0], where) + to_bytes(parts[1], where)
        if merged not in ranks:
            ranks[merged] = n
            n += 1
    try:
        encoder = json.loads(read_checked(encoder_json_path, encoder_json_hash))
    except json.JSONDecodeError as e:
        raise ValueError(f"{os.fspath(encoder_json_path)}: not JSON ({e})") from None
    from_json = {}
    for k, v in encoder.items():
        if k in ("<|endoftext|>", "<|startoftext|>"):
            continue
        from_json[to_bytes(k, os.fspath(encoder_json_path))] = v
    if from_json != ranks:
        raise ValueError("encoder.json and vocab.bpe describe different vocabularies")
    return ranks
