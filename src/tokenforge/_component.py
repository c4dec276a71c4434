"""Building a tokenizer.json component from its JSON object by its `type` field.

Example:
    >>> build("decoder", {"type": "X", "n": 2}, {"X": lambda d: d["n"] * 2})
    4
    >>> build("decoder", {"type": "Y"}, {})
    Traceback (most recent call last):
    ValueError: unsupported decoder type 'Y'
"""

from __future__ import annotations

from typing import Callable


def build(stage: str, d: dict | None, builders: dict[str, Callable[[dict], object]]):
    """builders[d["type"]](d), None for a null component.

    Raises:
        ValueError: an unknown type (named) or a missing/malformed field.
    """
    if d is None:
        return None
    kind = d.get("type") if isinstance(d, dict) else None
    make = builders.get(kind)
    if make is None:
        raise ValueError(f"unsupported {stage} type {kind!r}")
    try:
        return make(d)
    except (KeyError, TypeError, AttributeError) as e:
        raise ValueError(f"{stage} {kind}: missing or malformed field {e}") from None
