"""A string being normalized, with each character's span in the original text.

`tokenizers` keeps, for every byte of the normalized string, the byte range of the original
it came from; offsets of tokens are read back through that table.  Here the table is kept per
character (`align[i]` = the original character range of normalized character `i`), which gives
the same character offsets because every edit replaces whole characters.

An edit is written as `tokenizers` writes it: a list of `(new_char, change)` where change 0
replaces the next original character, 1 inserts (aligned with the last character consumed, or
an empty span at the start) and -n replaces the next character and drops n more; ("", -n) drops
n characters (tokenizers' `initial_offset`).

Example:
    >>> s = NormalizedString.from_text("ab")
    >>> s.transform([("x", 0), ("y", 1), ("b", 0)])
    >>> s.text, s.align
    ('xyb', [(0, 1), (0, 1), (1, 2)])
"""

from __future__ import annotations


class NormalizedString:
    """Normalized text plus, per character, its (start, end) in the original (characters)."""

    __slots__ = ("text", "align", "start", "end")

    def __init__(self, text: str, align: list[tuple[int, int]], start: int, end: int) -> None:
        self.text = text
        self.align = align  # normalized char index -> (orig start, orig end)
        self.start = start  # the original span this string covers (for empty strings)
        self.end = end

    @classmethod
    def from_text(cls, text: str, base: int = 0) -> "NormalizedString":
        return cls(text, [(base + i, base + i + 1) for i in range(len(text))], base, base + len(text))

    def transform(self, changes: list[tuple[str, int]], initial_offset: int = 0) -> None:
        """Applies an edit list (see the module docstring) to the whole string, after
        dropping its first `initial_offset` characters."""
        align = self.align
        out_align: list[tuple[int, int]] = []
        pos = initial_offset  # next original (pre-edit) character
        for c, change in changes:
            if not c:  # ("", -n): drop the next n characters
                pos -= change
                continue
            if change > 0:
                if pos > 0:
                    out_align.append(align[pos - 1])
                else:
                    out_align.append((self.start, self.start))
            else:
                out_align.append(align[pos])
                pos += 1 - change
        self.text = "".join(c for c, _ in changes)
        self.align = out_align

    def slice(self, a: int, b: int) -> "NormalizedString":
        """Characters a..b as a new string, keeping their original spans."""
        align = self.align[a:b]
        if align:
            start, end = align[0][0], align[-1][1]
        else:
            start = self.align[a - 1][1] if a > 0 else self.start
            end = start
        return NormalizedString(self.text[a:b], align, start, end)

    def original_span(self, a: int, b: int) -> tuple[int, int]:
        """The original (start, end) of normalized characters a..b."""
        if a >= b:
            if a < len(self.align):
                s = self.align[a][0]
            elif self.align:
                s = self.align[-1][1]
            else:
                s = self.start
            return (s, s)
        return (self.align[a][0], self.align[b - 1][1])

    def replace_each(self, fn) -> None:
        """Maps each character to a string (possibly empty): one character to n, as tokenizers'
        `NormalizedString::map`/`filter`/per-char `transform` do."""
        changes: list[tuple[str, int]] = []
        leading_removed = 0
        for ch in self.text:
            new = fn(ch)
            if not new:  # dropped: charged to the last kept character, as tokenizers' filter
                if changes:
                    c, k = changes[-1]
                    changes[-1] = (c, k - 1)
                else:
                    leading_removed += 1
                continue
            changes.append((new[0], 0))
            changes.extend((c, 1) for c in new[1:])
        if not changes:
            self.text, self.align = "", []
            return
        self.transform(changes, leading_removed)
