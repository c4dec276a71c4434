"""UnicodeScripts: cuts where the Unicode script changes, as `tokenizers`' pre-tokenizer of
that name.

Scripts are `tokenizers`' own (its table, with Hiragana and Katakana taken as Han), read off it
into unicode_scripts_table.py. A character of no script ("Any": the space and what the table
lacks) never causes a cut and goes with the piece before it; any such characters before the
first one with a script are dropped, and a text with no script at all gives no piece, as in
`tokenizers`.

Example:
    >>> from tokenforge.normalizers.normalized_string import NormalizedString
    >>> [p.text for p in UnicodeScripts().split(NormalizedString.from_text("abc中文 def"))]
    ['abc', '中文 ', 'def']
"""

from __future__ import annotations

import bisect
import functools
import itertools

from tokenforge.normalizers.normalized_string import NormalizedString


@functools.cache
def _runs() -> tuple[list[int], list[int], list[int]]:
    from tokenforge.pre_tokenizers.unicode_scripts_table import RUNS

    return [a for a, _, _ in RUNS], [b for _, b, _ in RUNS], [k for _, _, k in RUNS]


def script_class(c: str) -> int:
    """The class of a character's script in tokenizers' table (0: Any)."""
    firsts, lasts, classes = _runs()
    cp = ord(c)
    i = bisect.bisect_right(firsts, cp) - 1
    return classes[i] if i >= 0 and cp <= lasts[i] else 0


class UnicodeScripts:
    """Cuts between characters of different scripts (module docstring)."""

    def split(self, ns: NormalizedString) -> list[NormalizedString]:
        cuts = []
        last = None
        for i, c in enumerate(ns.text):
            k = script_class(c)
            if k == 0:
                continue
            if k != last:
                cuts.append(i)
            last = k
        cuts.append(len(ns.text))
        return [ns.slice(a, b) for a, b in itertools.pairwise(cuts)]

    def to_dict(self) -> dict:
        return {"type": "UnicodeScripts"}
