"""encode_with_unstable: the ids of a text whose end may still change, as tiktoken gives them.

A prompt's last tokens are unstable: text appended to it may merge with them.  The ids are
split into a stable part and the unstable bytes at the end (the tokens of the last piece,
and before them any tokens made only of spaces, tabs and newlines, since a split between
whitespace can vanish when text follows).  The completions are every token sequence that
encoding the unstable bytes followed by more text could begin with, up to the length of
those bytes, found as tiktoken finds them:

- every token that starts with the unstable bytes;
- for each cut of the unstable bytes into a prefix and a suffix, every token that starts
  with the suffix, appended to the prefix and encoded (as text, or as one piece when the
  bytes are not UTF-8), up to the first token that reaches the end of the unstable bytes;
- if the bytes end with a whitespace character, the bytes before it and that character
  merged apart.

The work is in the number of tokens that start with short suffixes, as in tiktoken; meant
for prompts, not corpora.
"""

from __future__ import annotations

import bisect
from typing import TYPE_CHECKING

from tokenforge import _native

if TYPE_CHECKING:
    from tokenforge.core import Encoding

_SPACE_BYTES = frozenset(b" \n\t")
# Characters Python's isspace() counts that are not Unicode White_Space (which tiktoken tests).
_NOT_WHITE_SPACE = frozenset("\x1c\x1d\x1e\x1f")


def encode_with_unstable(enc: Encoding, text: str, allowed: _native.SpecialSet,
                         allowed_ids: frozenset[int]) -> tuple[list[int], list[list[int]]]:
    """(stable ids, completions) of text, whose allowed specials are already checked."""
    tokens = enc._encode_checked(text, allowed)
    unstable = _last_piece_token_count(enc, tokens, allowed_ids)
    unstable = _with_whitespace_before(enc, tokens, unstable)
    if unstable == 0:
        return tokens, []
    tail = enc.decode_bytes(tokens[len(tokens) - unstable:])
    del tokens[len(tokens) - unstable:]
    ordered, ids = enc._sorted_token_bytes, enc._sorted_token_ids
    lo, hi = _prefix_range(ordered, tail)
    completions = dict.fromkeys((t,) for t in ids[lo:hi])  # a set that keeps the order found
    texts, pieces = [], []  # what each cut and token make: as text if UTF-8, else as one piece
    for cut in range(1, len(tail)):
        prefix = tail[:cut]
        lo, hi = _prefix_range(ordered, tail[cut:])
        for token in ordered[lo:hi]:
            joined = prefix + token
            try:
                texts.append(joined.decode("utf-8"))
            except UnicodeDecodeError:
                pieces.append(joined)
    encoded = enc.encode_ordinary_batch(texts, num_threads=1) + [enc._encode_single_piece(p) for p in pieces]
    lengths = enc._token_byte_lengths
    for seq in encoded:
        completions[_up_to_length(lengths, seq, len(tail))] = None
    if len(tail) > 1:
        last = _last_character(tail)
        if last is not None and last.isspace() and last not in _NOT_WHITE_SPACE:
            split = len(tail) - len(last.encode("utf-8"))
            if split > 0:
                completions[tuple(enc._encode_single_piece(tail[:split]) + enc._encode_single_piece(tail[split:]))] = None
    return tokens, [list(c) for c in completions]


def encode_bytes(enc: Encoding, data: bytes) -> list[int]:
    """The ids of bytes that may end in invalid UTF-8, as tiktoken's ``_encode_bytes``: the
    valid UTF-8 before the first invalid byte is encoded as text, then its last piece (with
    the whitespace tokens before it) and the bytes from the invalid one on are merged as one
    piece."""
    try:
        return enc.encode_ordinary(data.decode("utf-8"))
    except UnicodeDecodeError as e:
        valid = e.start
    tokens = enc.encode_ordinary(data[:valid].decode("utf-8"))
    unstable = _with_whitespace_before(enc, tokens, _last_piece_token_count(enc, tokens, frozenset()))
    rest = data[valid:]
    if unstable > 0:
        rest = enc.decode_bytes(tokens[len(tokens) - unstable:]) + rest
        del tokens[len(tokens) - unstable:]
    return tokens + enc._encode_single_piece(rest)


def _last_piece_token_count(enc: Encoding, tokens: list[int], allowed_ids: frozenset[int]) -> int:
    """How many of the ids are those of the text's last piece (0 if it ends with a special)."""
    start = len(tokens)
    while start > 0 and tokens[start - 1] not in allowed_ids:
        start -= 1
    if start == len(tokens):
        return 0
    segment = enc.decode_bytes(tokens[start:])  # the text after the last special
    last = _last_piece(enc, segment)
    return len(enc._encode_single_piece(last))


def _last_piece(enc: Encoding, segment: bytes) -> bytes:
    scanner = enc._scanner
    if scanner is None:
        return [m.group() for m in enc._regex.finditer(segment.decode("utf-8"))][-1].encode("utf-8")
    ends, _ = _native._split(scanner, segment)
    return segment[ends[-2] if len(ends) > 1 else 0:ends[-1]]


def _with_whitespace_before(enc: Encoding, tokens: list[int], count: int) -> int:
    """count, grown over the ordinary tokens of only spaces, tabs and newlines before the
    last piece when that piece starts with one."""
    def all_space(token: int) -> bool:
        if token in enc._special_token_values:
            return False
        return all(b in _SPACE_BYTES for b in enc.decode_single_token_bytes(token))

    if count > 0 and all_space(tokens[len(tokens) - count]):
        while count < len(tokens) and all_space(tokens[len(tokens) - count - 1]):
            count += 1
    return count


def _prefix_range(ordered: tuple[bytes, ...], prefix: bytes) -> tuple[int, int]:
    """[lo, hi): the tokens of the bytewise-sorted vocabulary that start with prefix, which
    sort from prefix up to (not including) the next string that does not start with it."""
    lo = bisect.bisect_left(ordered, prefix)
    stem = prefix.rstrip(b"\xff")
    if not stem:
        return lo, len(ordered)
    return lo, bisect.bisect_left(ordered, stem[:-1] + bytes([stem[-1] + 1]), lo)


def _up_to_length(lengths: list[int], ids: list[int], length: int) -> tuple[int, ...]:
    """The leading ids of `ids` up to the first whose bytes reach `length` bytes."""
    total = 0
    for k, token in enumerate(ids):
        total += lengths[token]
        if total >= length:
            return tuple(ids[:k + 1])
    return tuple(ids)


def _last_character(data: bytes) -> str | None:
    """The character the bytes end with, or None if they end inside or after invalid UTF-8."""
    start = len(data) - 1
    while start > 0 and len(data) - start < 4 and 0x80 <= data[start] < 0xC0:
        start -= 1
    try:
        last = data[start:].decode("utf-8")
    except UnicodeDecodeError:
        return None
    return last if len(last) == 1 else None
