"""Where a long text may be cut so that its parts, encoded alone, give the ids of the whole.

The byte-level BPE pipeline splits text with a pattern and merges each piece alone, so a
cut is exact where every split of the whole text has a piece boundary and neither side's
pieces depend on what lies beyond it.  For the four GPT patterns (gpt2/r50k/p50k, cl100k,
o200k, Llama 3) two places qualify, checked against tiktoken in tests/parity:

- before a space that follows a letter, digit or ASCII punctuation mark and precedes a
  letter (``"word| next"``): no alternative of the patterns takes a non-space character
  and then a space into one piece, a space before a letter always starts a new piece
  (`` ?\\p{L}+`` or its o200k form), and the left part ends in no whitespace, so the
  end-of-text alternatives (``\\s++$``) do not fire there;
- after a newline that precedes a letter (``"...\\n|Word"``), not for the gpt2 pattern:
  cl100k's, o200k's and Llama 3's ``\\s*[\\r\\n]`` take a whitespace run ending in a
  newline whole, with or without text after it, and no alternative joins a newline to a
  following letter.  (gpt2's ``\\s+(?!\\S)`` splits such a run differently at the end of
  text.)

A cut inside an allowed special token is never made.  Text without such places (a run of
CJK characters without spaces or line starts) is not cut.

Example:
    >>> text = "one two three four"
    >>> cuts = cut_points(text, 3, newline=True)
    >>> cuts, [text[a:b] for a, b in zip([0] + cuts, cuts + [len(text)])]
    ([7, 13], ['one two', ' three', ' four'])
"""

from __future__ import annotations

from collections.abc import Collection

_PUNCT = frozenset(".,;:!?)]}\"'`-_/*+=%$#@&|~^<>(")
_WINDOW = 1 << 16  # characters searched past a target for a cut


def _space_ok(text: str, j: int) -> bool:
    before, after = text[j - 1], text[j + 1]
    return (before.isalnum() or before in _PUNCT) and after.isalpha()


def next_cut(text: str, start: int, stop: int, newline: bool, specials: Collection[str] = ()) -> int:
    """The first cut in [start, stop) (see the module docstring), or -1."""
    start = max(start, 1)
    stop = min(stop, len(text) - 1)
    best = -1
    i = start
    while i < stop:
        j = text.find(" ", i, stop)
        if j < 0:
            break
        if _space_ok(text, j) and not _in_special(text, j, specials):
            best = j
            break
        i = j + 1
    if newline:
        i = start - 1
        limit = stop if best < 0 else best
        while i < limit:
            j = text.find("\n", i, limit)
            if j < 0:
                break
            if j + 1 >= start and text[j + 1].isalpha() and not _in_special(text, j + 1, specials):
                return j + 1
            i = j + 1
    return best


def _in_special(text: str, cut: int, specials: Collection[str]) -> bool:
    for s in specials:
        if len(s) > 1:
            at = text.find(s, max(0, cut - len(s) + 1), cut + len(s) - 1)
            while at >= 0 and at < cut:
                if at + len(s) > cut:
                    return True
                at = text.find(s, at + 1, cut + len(s) - 1)
    return False


def cut_points(text: str, parts: int, newline: bool, specials: Collection[str] = ()) -> list[int]:
    """Up to parts - 1 increasing cuts of `text`, near equal spacing.

    Args:
        text: the text.
        parts: how many parts are wanted.
        newline: also cut after newlines (not for the gpt2 pattern).
        specials: allowed special tokens, never cut.
    """
    n = len(text)
    if parts < 2 or n < 2:
        return []
    step = n // parts
    cuts: list[int] = []
    for k in range(1, parts):
        target = max(k * step, cuts[-1] + 1 if cuts else 1)
        c = next_cut(text, target, min(n, target + min(step, _WINDOW)), newline, specials)
        if c > 0 and (not cuts or c > cuts[-1]):
            cuts.append(c)
    return cuts


def split(text: str, parts: int, newline: bool, specials: Collection[str] = ()) -> list[str]:
    """The text cut at `cut_points` (one part if there is no cut)."""
    cuts = cut_points(text, parts, newline, specials)
    bounds = [0, *cuts, len(text)]
    return [text[a:b] for a, b in zip(bounds, bounds[1:])]


def last_cut(text: str, newline: bool) -> int:
    """The last cut of the text, looking back at most about a window; -1 if none."""
    lo = max(1, len(text) - _WINDOW)
    found = -1
    while lo < len(text) - 1:
        c = next_cut(text, lo, len(text), newline)
        if c < 0:
            break
        found, lo = c, c + 1
    return found
