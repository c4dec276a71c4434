"""Byte-level BPE encoding in plain Python: the teaching text of tokenforge's encoder.

Three steps, as in tiktoken:

1. Special tokens that are allowed cut the text into ordinary segments.
2. The split pattern (run by the `regex` module) cuts each segment into pieces.
3. Each piece, as UTF-8 bytes, starts as single bytes; the adjacent pair whose joined bytes
   have the lowest rank is merged (the leftmost on ties) until no pair is a token.

It leaves out everything that makes the native path fast (hand-written scanners, hash
tables, caches, the merge strategies for long and non-ASCII pieces): each of those has a
plain-Python oracle in :mod:`tokenforge.reference.fast_paths`, which the property tests
check against `bpe_merge` here.

Example:
    >>> ranks = {bytes([b]): b for b in range(256)} | {b"ab": 256, b"abc": 257}
    >>> bpe_merge(b"abcab", ranks)
    [257, 256]
"""

from __future__ import annotations

import regex


def bpe_merge(piece: bytes, ranks: dict[bytes, int]) -> list[int]:
    """Merges one piece by rank; returns its token ids.

    Example: piece=b"aab", ranks with b"aa"=256 and b"ab"=257 -> [256, 98] (b"aa" has the lower rank).

    >>> bpe_merge(b"aab", {b"a": 97, b"b": 98, b"aa": 256, b"ab": 257})
    [256, 98]
    """
    return merge_parts([piece[i:i + 1] for i in range(len(piece))], ranks)


def merge_parts(parts: list[bytes], ranks: dict[bytes, int]) -> list[int]:
    """tiktoken's merge loop from the given parts: join the adjacent pair whose bytes are the
    token of lowest rank (the leftmost on ties) until no pair is a token; the parts' ids."""
    while len(parts) > 1:
        best_rank, best_at = None, None
        for i in range(len(parts) - 1):
            rank = ranks.get(parts[i] + parts[i + 1])
            if rank is not None and (best_rank is None or rank < best_rank):
                best_rank, best_at = rank, i
        if best_at is None:
            break
        parts[best_at:best_at + 2] = [parts[best_at] + parts[best_at + 1]]
    return [ranks[p] for p in parts]


def encode_ordinary(text: str, pat_str: str, ranks: dict[bytes, int]) -> list[int]:
    """Splits `text` with `pat_str` and merges every piece.

    >>> encode_ordinary("ab ab", r" ?\\w+", {bytes([b]): b for b in range(256)} | {b"ab": 256})
    [256, 32, 256]
    """
    ids: list[int] = []
    for match in regex.finditer(pat_str, text):  # whole matches, whatever groups the pattern has
        ids.extend(bpe_merge(match.group().encode("utf-8"), ranks))
    return ids


def encode(text: str, pat_str: str, ranks: dict[bytes, int], allowed_special: dict[str, int]) -> list[int]:
    """Like `encode_ordinary`, but emits the id of each allowed special token found in the
    text (the longest one where several start at the same place).

    >>> encode("x<s>y", r"\\w+", {bytes([b]): b for b in range(256)}, {"<s>": 999})
    [120, 999, 121]
    """
    if not allowed_special:
        return encode_ordinary(text, pat_str, ranks)
    alternatives = "|".join(regex.escape(s) for s in sorted(allowed_special, key=len, reverse=True))
    ids: list[int] = []
    start = 0
    for match in regex.finditer(alternatives, text):
        ids.extend(encode_ordinary(text[start:match.start()], pat_str, ranks))
        ids.append(allowed_special[match.group()])
        start = match.end()
    ids.extend(encode_ordinary(text[start:], pat_str, ranks))
    return ids


def decode_bytes(ids: list[int], ranks: dict[bytes, int], special_tokens: dict[str, int]) -> bytes:
    """Concatenates the bytes of each id.

    >>> decode_bytes([104, 105], {bytes([b]): b for b in range(256)}, {})
    b'hi'
    """
    # Special strings sharing an id decode to the first of them: reversed, the first is written last.
    specials = {v: k.encode("utf-8") for k, v in reversed(special_tokens.items())}
    by_id = {v: k for k, v in ranks.items()} | specials
    return b"".join(by_id[i] for i in ids)
