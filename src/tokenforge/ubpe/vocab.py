"""A fitted UBPE vocabulary: renumbering by weight, and `ubpe`'s JSON dump.

The vocabulary maps each new id to what it stands for (`mapper`: a pair of ids for classic
UBPE, a string of alphabet ids for universal UBPE) and to its idf weight.  `rearrange` drops
the lowest-weight ids down to `n_tokens` (classic also drops every id built on a dropped one)
and renumbers the rest by weight, highest first, ties kept as `ubpe` keeps them (a stable
sort by ascending weight, reversed).  The JSON layout is `ubpe`'s `dumps()`.

Example:
    >>> rearrange({3: (0, 1), 4: (3, 2)}, {3: 0.5, 4: 1.0}, first_id=3, n_tokens=5, classic=True)
    ({3: (4, 2), 4: (0, 1)}, {3: 1.0, 4: 0.5})
"""

from __future__ import annotations

import json
from typing import Any, Callable


def rearrange(mapper: dict[int, tuple[int, ...]], weights: dict[int, float], *, first_id: int,
              n_tokens: int, classic: bool) -> tuple[dict[int, tuple[int, ...]], dict[int, float]]:
    """Trims the new ids to `n_tokens - first_id` and renumbers them by weight, as `ubpe` does.

    `ubpe` walks the ids from the lightest and, for classic, deletes each with everything
    built on it (a depth-first walk that can list one id twice; the count of deletions it
    compares with the target includes those repeats, and so does this).
    """
    order = sorted(mapper, key=lambda t: weights[t])  # stable: creation order among ties
    quota = len(weights) - n_tokens + first_id
    deleted: list[int] = []  # positions in `order`, repeats included
    if classic:
        users: dict[int, list[int]] = {}  # id -> positions of the ids built on it
        for j, t in enumerate(order):
            for part in set(mapper[t]):
                users.setdefault(part, []).append(j)
        gone: set[int] = set()
        for i in range(len(order)):
            if i in gone:
                continue
            if len(deleted) >= quota:
                break
            stack = [i]
            while stack:
                j = stack.pop()
                deleted.append(j)
                gone.add(j)
                stack.extend(k for k in users.get(order[j], ()) if k not in gone)
    else:
        deleted = list(range(max(quota, 0)))
    dropped = {order[j] for j in deleted}
    kept = [t for t in reversed(order) if t not in dropped][:len(order) - len(deleted)]
    renumber = {old: first_id + i for i, old in enumerate(kept)}
    new_weights = {renumber[old]: weights[old] for old in kept}
    new_mapper = {renumber[old]: tuple(renumber.get(t, t) for t in mapper[old]) for old in kept}
    return new_mapper, new_weights


def dumps_model(fields: dict[str, Any]) -> str:
    """`ubpe`'s JSON: the fields in its order, `None` ones left out.

    Raises:
        ValueError: a symbol cannot be a JSON key (only str, int, float, bool can).
    """
    try:
        return json.dumps({k: v for k, v in fields.items() if v is not None})
    except TypeError as e:
        raise ValueError(f"cannot write this model as JSON: {e}") from None


def loads_fields(dump: str | bytes, token_type: Callable[[Any], Any]) -> dict[str, Any]:
    """Parses and checks `ubpe`'s JSON; symbols are converted with `token_type`.

    Returns:
        A dict with `n_tokens`, `alphabet`, `known_words` (word -> id or None), `break_tokens`,
        `stop_tokens`, `regex_str`, `mapper` and `weights` (id keys as ints).

    Raises:
        ValueError: malformed JSON, a missing field or a value of the wrong kind.
    """
    try:
        model = json.loads(dump)
    except (ValueError, TypeError) as e:
        raise ValueError(f"not a UBPE model: malformed JSON ({e})") from None
    if not isinstance(model, dict):
        raise ValueError("not a UBPE model: the JSON is not an object")
    for field in ("alphabet", "mapper", "weights"):
        if not isinstance(model.get(field), dict):
            raise ValueError(f"not a UBPE model: no {field!r} object in the JSON")
    try:
        alphabet = {token_type(k): int(v) for k, v in model["alphabet"].items()}
        known = model.get("known_words")
        known_words = None if known is None else {
            (w if token_type is str and isinstance(w, str) else tuple(token_type(s) for s in w)): int(i)
            for i, w in known.items()}
        mapper = {int(t): tuple(int(s) for s in seq) for t, seq in model["mapper"].items()}
        weights = {int(t): float(w) for t, w in model["weights"].items()}
        n_tokens = int(model.get("n_tokens", len(alphabet) + len(weights)))
        breaks = model.get("break_tokens")
        stops = model.get("stop_tokens")
        fields = {
            "n_tokens": n_tokens, "alphabet": alphabet, "known_words": known_words,
            "break_tokens": None if breaks is None else [token_type(s) for s in breaks],
            "stop_tokens": None if stops is None else [token_type(s) for s in stops],
            "regex_str": model.get("regex_str"), "mapper": mapper, "weights": weights,
        }
    except (ValueError, TypeError) as e:
        raise ValueError(f"not a UBPE model: a field has a value of the wrong kind ({e})") from None
    if set(mapper) != set(weights):
        raise ValueError("not a UBPE model: 'mapper' and 'weights' list different ids")
    return fields
