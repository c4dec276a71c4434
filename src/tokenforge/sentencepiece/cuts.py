"""Where a long normalized text may be cut so that its parts, encoded alone, give the
encoding of the whole: the readable reference of the native ``SpmCutRule``
(cpp/models/sentencepiece/spm_cuts.h), and the oracle of its tests.

Both SentencePiece models lay pieces of the vocabulary over the normalized text: BPE merges
two adjacent symbols only into a piece, and a Unigram lattice edge is a piece or a single
character.  So at a point where the character before it and the character at it are
consecutive in no matchable piece (NORMAL, USER_DEFINED and UNUSED), no piece crosses the
point, and each side is segmented as it is inside the whole text.  For most models that is
before every ``▁`` that follows a letter; not inside a run of spaces where pieces such as
``▁▁▁▁`` exist (Llama 2); around a newline that no piece contains (byte-fallback models,
where the newline is a byte piece of its own); and between most pairs of CJK characters.

That cut is made in the *normalized* text, so what normalization does to whitespace
(collapsing runs, mapping U+3000 or tabs to spaces), the dummy prefix at the start (or the
suffix with treat_whitespace_as_suffix) and the trimming of the ends are already done.

The normalization itself is cut too, by a stricter rule on the input (`input_cut_points`):
the normalizer rewrites the input one match at a time (a USER_DEFINED piece, a charsmap key
or one character) and remembers only whether its last output ended in a space.  So a cut
before input byte `at` is allowed where the bytes at-1 and at are ASCII and consecutive in
no charsmap key or USER_DEFINED piece (no match crosses), the bytes at-2 and at-1 are not
either (the match ending at the cut is the single character at-1), and that character's
own output is not empty and holds no space.  Then the next part starts in the state "no
space just put", the left part ends in a non-space, and only the first part gets the
leading-space handling and the dummy prefix, only the last the trailing ones.

What it leaves out: the model-specific conditions (BPE: no cutting when UNUSED pieces make
sentencepiece resegment; Unigram: the float total it carries from the start of the text,
which the native code settles part by part in text order) and sampling, which stays on one
thread.

Characters are stepped as sentencepiece steps them, by the length the lead byte announces,
over the UTF-8 bytes; offsets are byte offsets.

Example:
    >>> pairs = piece_pairs(["▁the", "▁▁", "re", "▁a"])
    >>> text = "▁the▁▁re▁a".encode()
    >>> [text[:c].decode() for c in cut_points(text, 3, pairs)]  # no piece holds "▁r"
    ['▁the', '▁the▁▁']
    >>> can_cut(text, len("▁the▁".encode()), pairs)  # inside "▁▁"
    False
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable

__all__ = ["can_cut", "char_len", "charsmap_pairs", "cut_points", "input_cut_points", "piece_pairs"]


def char_len(lead: int) -> int:
    """The length sentencepiece gives the character starting with byte `lead`.

    >>> char_len(ord("a")), char_len(0xE2), char_len(0x80)
    (1, 3, 1)
    """
    if lead < 0xC0:
        return 1
    if lead < 0xE0:
        return 2
    if lead < 0xF0:
        return 3
    return 4


def _chars(data: bytes) -> list[bytes]:
    out, i = [], 0
    while i < len(data):
        n = min(char_len(data[i]), len(data) - i)
        out.append(data[i:i + n])
        i += n
    return out


def piece_pairs(pieces: Iterable[str]) -> set[tuple[bytes, bytes]]:
    """Every pair of consecutive characters in the pieces (pass the matchable ones).

    >>> sorted(piece_pairs(["ab", "▁c"]))
    [(b'a', b'b'), (b'\\xe2\\x96\\x81', b'c')]
    """
    pairs = set()
    for piece in pieces:
        chars = _chars(piece.encode("utf-8"))
        pairs.update(zip(chars, chars[1:]))
    return pairs


def can_cut(text: bytes, at: int, pairs: set[tuple[bytes, bytes]]) -> bool:
    """Whether `text` may be cut before byte `at`, which must start a character.

    >>> can_cut(b"ab", 1, {(b"a", b"b")}), can_cut(b"ab", 1, set())
    (False, True)
    """
    starts = _starts(text)
    return at in starts and _allowed(text, starts, starts.index(at), pairs)


def _allowed(text: bytes, starts: list[int], k: int, pairs: set[tuple[bytes, bytes]]) -> bool:
    """can_cut before the k-th character (starts: every character's first byte)."""
    if k == 0:
        return False
    at = starts[k]
    before = text[starts[k - 1]:at]
    here = text[at:at + min(char_len(text[at]), len(text) - at)]
    return (before, here) not in pairs


def _starts(text: bytes) -> list[int]:
    starts, i = [], 0
    while i < len(text):
        starts.append(i)
        i += min(char_len(text[i]), len(text) - i)
    return starts


def cut_points(text: bytes, parts: int, pairs: set[tuple[bytes, bytes]]) -> list[int]:
    """Up to parts - 1 increasing cuts: for k = 1 .. parts - 1, the first character start at
    or after k * (len // parts), and before the next such target, where `can_cut` holds.

    >>> cut_points("▁a▁b▁c▁d".encode(), 4, set())
    [4, 8, 12]
    """
    n = len(text)
    if parts < 2 or n < 2 or n // parts == 0:
        return []
    step = n // parts
    starts = _starts(text)
    cuts = []
    for k in range(1, parts):
        target, stop = k * step, min(n, (k + 1) * step)
        for j in range(bisect.bisect_left(starts, target), len(starts)):
            if starts[j] >= stop:
                break
            if _allowed(text, starts, j, pairs):
                cuts.append(starts[j])
                break
    return cuts


def charsmap_pairs(units: tuple[int, ...] | list[int]) -> set[tuple[int, int]]:
    """The byte pairs consecutive in some key of a Darts-clone trie (the charsmap's units).

    >>> charsmap_pairs([1 << 10])  # a root with no children
    set()
    """
    offset = lambda u: (u >> 10) << ((u & 0x200) >> 6)  # noqa: E731
    pairs: set[tuple[int, int]] = set()
    stack = [(offset(units[0]), -1)] if units else []
    while stack:
        node, prev = stack.pop()
        for b in range(256):
            pos = node ^ b
            if pos < len(units) and (units[pos] & 0x800000FF) == b:
                if prev >= 0:
                    pairs.add((prev, b))
                stack.append((pos ^ offset(units[pos]), b))
    return pairs


def input_cut_points(data: bytes, parts: int, key_pairs: set[tuple[int, int]], own_output) -> list[int]:
    """Up to parts - 1 input cuts (see the module docstring): for k = 1 .. parts - 1, the
    first allowed byte at or after k * (len // parts) and before the next such target.

    Args:
        data: the input, UTF-8.
        parts: how many parts are wanted.
        key_pairs: byte pairs consecutive in a charsmap key or a USER_DEFINED piece.
        own_output: byte -> the normalizer's output for that one ASCII character.

    >>> input_cut_points(b"ab cd ef", 3, set(), lambda c: bytes([c]))
    [2, 4]
    """
    def allowed(at: int) -> bool:
        a, b = data[at - 1], data[at]
        if a >= 0x80 or b >= 0x80 or a == 0x20 or (a, b) in key_pairs:
            return False
        out = own_output(a)
        if not out or b" " in out:
            return False
        return at < 2 or (data[at - 2], a) not in key_pairs

    n = len(data)
    if parts < 2 or n < 2 or n // parts == 0:
        return []
    step = n // parts
    cuts = []
    for k in range(1, parts):
        for at in range(max(1, k * step), min(n, (k + 1) * step)):
            if allowed(at):
                cuts.append(at)
                break
    return cuts
