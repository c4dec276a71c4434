"""Truncation and padding settings, read and written in tokenizer.json's form.

Truncation strategies: longest_first (cut the longer of a pair first), only_first,
only_second; direction right or left; `stride` tokens of overlap between overflowing windows.
Padding: to the longest of the batch or a fixed length, rounded up to `pad_to_multiple_of`.

Example:
    >>> Truncation.from_dict({"max_length": 8, "strategy": "LongestFirst", "stride": 0}).as_python()
    {'max_length': 8, 'stride': 0, 'strategy': 'longest_first', 'direction': 'right'}
"""

from __future__ import annotations

from dataclasses import dataclass

from tokenforge.tokenizer.encoding import Encoding

_STRATEGIES = {"LongestFirst": "longest_first", "OnlyFirst": "only_first", "OnlySecond": "only_second"}
_DIRECTIONS = {"Right": "right", "Left": "left"}


def _enum(value, table: dict, what: str) -> str:
    if value in table:
        return table[value]
    if value in table.values():
        return value
    raise ValueError(f"unknown {what} {value!r} (one of {', '.join(table.values())})")


@dataclass
class Truncation:
    max_length: int
    stride: int = 0
    strategy: str = "longest_first"
    direction: str = "right"

    def __post_init__(self) -> None:
        self.strategy = _enum(self.strategy, _STRATEGIES, "truncation strategy")
        self.direction = _enum(self.direction, _DIRECTIONS, "truncation direction")

    @classmethod
    def from_dict(cls, d: dict | None) -> "Truncation | None":
        if d is None:
            return None
        try:
            return cls(d["max_length"], d.get("stride", 0), d.get("strategy", "LongestFirst"), d.get("direction", "Right"))
        except (KeyError, TypeError) as e:
            raise ValueError(f"truncation: missing or malformed field {e}") from None

    def to_dict(self) -> dict:
        inv = {v: k for k, v in _DIRECTIONS.items()}
        return {"direction": inv[self.direction], "max_length": self.max_length,
                "strategy": {v: k for k, v in _STRATEGIES.items()}[self.strategy], "stride": self.stride}

    def as_python(self) -> dict:
        return {"max_length": self.max_length, "stride": self.stride, "strategy": self.strategy, "direction": self.direction}


def pair_keep(na: int, nb: int | None, t: Truncation, n_added: int) -> tuple[int | None, int | None] | None:
    """How many tokens truncate_pair keeps of a sequence of na tokens and its pair of nb (None:
    no pair): (kept of the first, kept of the second), None for a sequence left as it is, or
    None when nothing is cut.  As tokenizers' `truncate_encodings`.

    Raises:
        ValueError: only_second without a pair, or a sequence shorter than what must go.

    Example:
        >>> pair_keep(30, 4, Truncation(16), 3)  # 13 left for the texts: the longer gives way
        (9, 4)
        >>> pair_keep(30, 10, Truncation(16), 3)  # both longer than half: split
        (7, 6)
    """
    max_length = t.max_length - n_added if n_added else t.max_length
    if max_length < 0:  # a limit below the post-processor's own tokens: tokenizers 0.23.3 then truncates nothing
        return None
    if max_length == 0:
        return 0, (0 if nb is not None else None)
    total = na + (nb or 0)
    if total <= max_length:
        return None
    to_remove = total - max_length
    if t.strategy == "longest_first":
        if nb is None:
            return total - to_remove, None
        n1, n2 = na, nb
        swap = n1 > n2
        if swap:
            n1, n2 = n2, n1
        n2 = n1 if n1 > max_length else max(n1, max_length - n1)
        if n1 + n2 > max_length:
            n1 = max_length // 2
            n2 = n1 + max_length % 2
        return (n2, n1) if swap else (n1, n2)
    if t.strategy == "only_second" and nb is None:
        raise ValueError("truncation only_second needs a pair of sequences")
    target = na if t.strategy == "only_first" else nb
    if target <= to_remove:
        raise ValueError("truncation: the sequence to truncate is shorter than what must be removed")
    return (target - to_remove, None) if t.strategy == "only_first" else (None, target - to_remove)


def truncate_pair(a: Encoding, b: Encoding | None, t: Truncation, n_added: int) -> None:
    """Truncates one sequence or a pair in place, as tokenizers' `truncate_encodings` (pair_keep)."""
    keep = pair_keep(len(a), len(b) if b is not None else None, t, n_added)
    if keep is None:
        return
    for e, k in zip((a, b), keep):
        if k is not None:
            e.truncate(k, t.stride, t.direction)


@dataclass
class Padding:
    length: int | None = None  # None: the longest of the batch
    direction: str = "right"
    pad_id: int = 0
    pad_type_id: int = 0
    pad_token: str = "[PAD]"
    pad_to_multiple_of: int | None = None

    def __post_init__(self) -> None:
        self.direction = _enum(self.direction, _DIRECTIONS, "padding direction")

    @classmethod
    def from_dict(cls, d: dict | None) -> "Padding | None":
        if d is None:
            return None
        s = d.get("strategy", "BatchLongest")
        length = s["Fixed"] if isinstance(s, dict) and "Fixed" in s else None
        if length is None and s != "BatchLongest":
            raise ValueError(f"padding: unknown strategy {s!r}")
        return cls(length, d.get("direction", "Right"), d.get("pad_id", 0), d.get("pad_type_id", 0),
                   d.get("pad_token", "[PAD]"), d.get("pad_to_multiple_of"))

    def to_dict(self) -> dict:
        return {"strategy": {"Fixed": self.length} if self.length is not None else "BatchLongest",
                "direction": {v: k for k, v in _DIRECTIONS.items()}[self.direction],
                "pad_to_multiple_of": self.pad_to_multiple_of, "pad_id": self.pad_id,
                "pad_type_id": self.pad_type_id, "pad_token": self.pad_token}

    def as_python(self) -> dict:
        return {"length": self.length, "pad_to_multiple_of": self.pad_to_multiple_of, "pad_id": self.pad_id,
                "pad_token": self.pad_token, "pad_type_id": self.pad_type_id, "direction": self.direction}

    def pad(self, encodings: list[Encoding]) -> None:
        n = self.length if self.length is not None else max((len(e) for e in encodings), default=0)
        m = self.pad_to_multiple_of
        if m and n % m:
            n += m - n % m
        for e in encodings:
            e.pad(n, self.pad_id, self.pad_type_id, self.pad_token, self.direction)
