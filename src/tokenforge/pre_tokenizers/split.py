"""Split: cut a string on a pattern's matches, with `tokenizers`' five delimiter behaviors.

`Removed` drops the matches, `Isolated` keeps each as its own piece, `MergedWithPrevious` /
`MergedWithNext` glue each to the piece before / after it, `Contiguous` joins adjacent matches
into one piece (and, with `invert`, adjacent stretches between them, as tokenizers does).
`invert` swaps matches and the text between them.  Empty pieces are dropped.

Example:
    >>> from tokenforge.normalizers.normalized_string import NormalizedString
    >>> pieces = Split({"String": " "}, "MergedWithNext").split(NormalizedString.from_text("a b c"))
    >>> [p.text for p in pieces]
    ['a', ' b', ' c']
"""

from __future__ import annotations

from tokenforge.normalizers.normalized_string import NormalizedString
from tokenforge.normalizers.pattern import compile_pattern, pattern_object

BEHAVIORS = ("Removed", "Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous")
# tokenizers' Python names of the behaviors (the file writes the names above).
_PYTHON_NAMES = {"removed": "Removed", "isolated": "Isolated", "merged_with_previous": "MergedWithPrevious",
                 "merged_with_next": "MergedWithNext", "contiguous": "Contiguous"}


def behavior_of(value: str) -> str:
    """A behavior as the file names it, from that name or tokenizers' Python one ("isolated").

    Raises:
        ValueError: neither.
    """
    if value in BEHAVIORS:
        return value
    if value in _PYTHON_NAMES:
        return _PYTHON_NAMES[value]
    raise ValueError(f"unsupported split behavior {value!r} (one of {', '.join(_PYTHON_NAMES)})")


def spans(text: str, matches, behavior: str, invert: bool = False) -> list[tuple[int, int]]:
    """The (start, end) pieces of `text` given the match spans, for one behavior."""
    marked: list[tuple[int, int, bool]] = []
    prev = 0
    for a, b in matches:
        if prev != a:
            marked.append((prev, a, invert))
        marked.append((a, b, not invert))
        prev = b
    if prev != len(text):
        marked.append((prev, len(text), invert))
    out: list[tuple[int, int]] = []
    if behavior == "Removed":
        out = [(a, b) for a, b, m in marked if not m]
    elif behavior == "Isolated":
        out = [(a, b) for a, b, _ in marked]
    elif behavior == "MergedWithPrevious":
        prev_match = False
        for a, b, m in marked:
            if m and out and not prev_match:
                out[-1] = (out[-1][0], b)
            else:
                out.append((a, b))
            prev_match = m
    elif behavior == "MergedWithNext":
        pending = None
        for a, b, m in marked:
            if m:
                if pending is not None:
                    out.append(pending)
                pending = (a, b)
            elif pending is not None:
                out.append((pending[0], b))
                pending = None
            else:
                out.append((a, b))
        if pending is not None:
            out.append(pending)
    elif behavior == "Contiguous":
        prev_match = False
        for a, b, m in marked:
            if m == prev_match and out:  # two matches, or two stretches between (invert)
                out[-1] = (out[-1][0], b)
            else:
                out.append((a, b))
            prev_match = m
    else:
        raise ValueError(f"unsupported split behavior {behavior!r} (one of {', '.join(BEHAVIORS)})")
    return [(a, b) for a, b in out if b > a]


def split_by(ns: NormalizedString, matches, behavior: str, invert: bool = False) -> list[NormalizedString]:
    return [ns.slice(a, b) for a, b in spans(ns.text, matches, behavior, invert)]


def char_matches(text: str, pred) -> list[tuple[int, int]]:
    """Each character for which `pred` holds, as a one-character match."""
    return [(i, i + 1) for i, c in enumerate(text) if pred(c)]


class Split:
    """Splits on a String or Regex pattern (module docstring)."""

    def __init__(self, pattern, behavior: str, invert: bool = False) -> None:
        """pattern: a str (matched literally), a Regex, or the file's {"String"|"Regex": ...};
        behavior: "isolated", "merged_with_previous", ... or the file's "Isolated", ..."""
        pattern = pattern_object(pattern)
        self.pattern, self.behavior, self.invert = pattern, behavior_of(behavior), invert
        self._re = compile_pattern(pattern)

    def split(self, ns: NormalizedString) -> list[NormalizedString]:
        matches = [m.span() for m in self._re.finditer(ns.text)]
        return split_by(ns, matches, self.behavior, self.invert)

    def to_dict(self) -> dict:
        return {"type": "Split", "pattern": self.pattern, "behavior": self.behavior, "invert": self.invert}
