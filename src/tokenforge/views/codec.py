"""What `tokenforge encode` and `decode` do with their inputs: texts or files to ids, ids to text.

Inputs are the arguments, or standard input when there are none.  `encode` writes one line
of ids per input (``--json``: one JSON array of arrays); `decode` reads one id sequence per
argument list or per line of standard input (ids separated by spaces or commas, or a JSON array).

It leaves out loading models (:mod:`.models`).

Example:
    >>> parse_ids("[1, 2,3]"), parse_ids("4 5")
    ([1, 2, 3], [4, 5])
"""

from __future__ import annotations

import json

from tokenforge.views.models import Model


def parse_ids(line: str) -> list[int]:
    """Ids written as a JSON array or separated by spaces/commas.

    Raises:
        ValueError: something that is not an integer (the message quotes it).
    """
    words = line.replace("[", " ").replace("]", " ").replace(",", " ").split()
    try:
        return [int(w) for w in words]
    except ValueError:
        bad = next(w for w in words if not w.lstrip("-").isdigit())
        raise ValueError(f"not a token id: {bad!r}") from None


def encode_all(model: Model, texts: list[str], as_json: bool, allow_special: bool) -> str:
    """The output of `encode`: ids of each text."""
    results = []
    for text in texts:
        if allow_special and model.encoding is not None:
            results.append(model.encoding.encode(text, allowed_special="all"))
        else:
            results.append(model.encode(text))
    if as_json:
        return json.dumps(results)
    return "\n".join(" ".join(map(str, ids)) for ids in results)


def decode_all(model: Model, sequences: list[list[int]]) -> str:
    """The output of `decode`: the text of each sequence, one after the other.

    Raises:
        ValueError: an id not in the vocabulary.
    """
    out = []
    for ids in sequences:
        bad = [i for i in ids if not 0 <= i < model.vocab_size] if model.encoding is None else []
        if bad:
            raise ValueError(f"token id {bad[0]} is not in {model.name} ({model.vocab_size} ids)")
        try:
            out.append(model.decode(ids))
        except (KeyError, IndexError, OverflowError):
            raise ValueError(f"a token id of {ids[:8]}{'...' if len(ids) > 8 else ''} is not in {model.name}") from None
    return "\n".join(out)
