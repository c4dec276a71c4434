"""tiktoken's BPE rank files (`.tiktoken`): reading and writing.

A `.tiktoken` file has one token a line: ``base64(token bytes) SPACE rank``.

What this module leaves out: downloading (see :mod:`tokenforge.registry`), GPT-2's
encoder.json / vocab.bpe (:mod:`.data_gym`) and the special tokens, which are not stored
in these files.

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
            # Not validated, as tiktoken reads it: characters outside the alphabet are skipped
            # (Whisper's file writes its empty token as "=").
            token = base64.b64decode(fields[0])
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
