"""GPT-2's original vocabulary files ("data gym": encoder.json + vocab.bpe) as tiktoken ranks.

The pair describes the r50k vocabulary with printable stand-ins for bytes
(:mod:`.byte_map`) and an explicit merge list; ranks 0-255 are the single bytes in GPT-2's
byte order, then one rank per merge.

What this module leaves out: writing these files (tokenforge writes `.tiktoken` and
`tokenizer.json` instead).
"""

from __future__ import annotations

import json
import os

from tokenforge._files import read_checked
from tokenforge.formats.byte_map import BYTE_ORDER, to_bytes


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
    ranks = {bytes([b]): i for i, b in enumerate(BYTE_ORDER)}
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
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ValueError(f"{os.fspath(encoder_json_path)}: not JSON ({e})") from None
    if not isinstance(encoder, dict):
        raise ValueError(f"{os.fspath(encoder_json_path)}: expected a JSON object of token -> id, "
                         f"got {type(encoder).__name__}")
    from_json = {}
    for k, v in encoder.items():
        if k in ("<|endoftext|>", "<|startoftext|>"):
            continue
        from_json[to_bytes(k, os.fspath(encoder_json_path))] = v
    if from_json != ranks:
        raise ValueError("encoder.json and vocab.bpe describe different vocabularies")
    return ranks
