"""TemplateProcessing's Python forms, read as `tokenizers` reads them, into the tokenizer.json form.

A template is a str of pieces split at each single space, or a list of piece strs (a list of
tokenizer.json piece objects is taken as it is).  A piece is `$A`, `$a`, `$B`, `$b` (type
id 0), `$` (A), `$N` (A with type id N), or anything else: a special token's id; any piece may
end in `:N` to set its type id.  Special tokens are `(token, id)` or `(id, token)` pairs, or
dicts `{"id": name, "ids": [...], "tokens": [...]}` (a dict keyed by name, the file's form,
is taken as it is).

Example:
    >>> parse_template("[CLS] $A [SEP] $B:1 [SEP]:1", "pair")[3:]
    [{'Sequence': {'id': 'B', 'type_id': 1}}, {'SpecialToken': {'id': '[SEP]', 'type_id': 1}}]
    >>> parse_special_tokens([("[CLS]", 101), (102, "[SEP]")])["[SEP]"]
    {'id': '[SEP]', 'ids': [102], 'tokens': ['[SEP]']}
"""

from __future__ import annotations

import operator


def default_single() -> list[dict]:
    """tokenizers' single template when none is given: `$A`."""
    return [{"Sequence": {"id": "A", "type_id": 0}}]


def default_pair() -> list[dict]:
    """tokenizers' pair template when none is given: `$A $B:1`."""
    return [{"Sequence": {"id": "A", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}}]


def _type_id(text: str, piece: str) -> int:
    if not text.isdigit() or not text.isascii() or int(text) >= 2**32:
        raise ValueError(f'Cannot build Piece from string "{piece}"')
    return int(text)


def parse_piece(piece: str) -> dict:
    """One piece of a template str (module docstring).

    Raises:
        ValueError: more than one `:`, or a type id that is not an unsigned integer.
    """
    parts = piece.split(":")
    if len(parts) > 2:
        raise ValueError(f'Cannot build Piece from string "{piece}"')
    name = parts[0]
    type_id = _type_id(parts[1], piece) if len(parts) == 2 else None
    if name.startswith("$"):
        rest = name[1:]
        if rest in ("", "A", "a"):
            seq, t = "A", 0
        elif rest in ("B", "b"):
            seq, t = "B", 0
        else:
            seq, t = "A", _type_id(rest, piece)
        return {"Sequence": {"id": seq, "type_id": t if type_id is None else type_id}}
    return {"SpecialToken": {"id": name, "type_id": 0 if type_id is None else type_id}}


def parse_template(value, what: str) -> list[dict]:
    """A template in the tokenizer.json form (module docstring).

    Raises:
        TypeError: neither a str nor a list.
        ValueError: a piece that cannot be read.
    """
    if isinstance(value, str):
        return [parse_piece(p) for p in value.split(" ")]
    if isinstance(value, (list, tuple)):
        if all(isinstance(p, dict) for p in value):
            return list(value)
        if all(isinstance(p, str) for p in value):
            return [parse_piece(p) for p in value]
    raise TypeError(f"TemplateProcessing: {what} must be a str or a list of str")


def _special(value) -> dict:
    if isinstance(value, dict):
        for field in ("id", "ids", "tokens"):
            if field not in value:
                raise ValueError(f"`{field}` must be specified")
        name, ids, tokens = value["id"], value["ids"], value["tokens"]
        if not isinstance(name, str) or not isinstance(tokens, (list, tuple)) or not all(isinstance(t, str) for t in tokens):
            raise TypeError("a special token's id must be a str and its tokens a list of str")
        ids = [operator.index(i) for i in ids]
        if len(ids) != len(tokens):
            raise ValueError("SpecialToken: ids and tokens must be of the same length")
        return {"id": name, "ids": ids, "tokens": list(tokens)}
    if isinstance(value, (tuple, list)) and len(value) == 2:
        a, b = value
        if isinstance(a, str) and not isinstance(b, (str, bool)):
            name, i = a, operator.index(b)
        elif isinstance(b, str) and not isinstance(a, (str, bool)):
            name, i = b, operator.index(a)
        else:
            raise TypeError("Expected Union[Tuple[str, int], Tuple[int, str], dict]")
        return {"id": name, "ids": [i], "tokens": [name]}
    raise TypeError("Expected Union[Tuple[str, int], Tuple[int, str], dict]")


def parse_special_tokens(value) -> dict:
    """Special tokens by name, in the tokenizer.json form (module docstring); a name given
    twice keeps the last."""
    if value is None:
        return {}
    if isinstance(value, dict):  # the file's own form
        return value
    if not isinstance(value, (list, tuple)):
        raise TypeError("TemplateProcessing: special_tokens must be a list")
    out = {}
    for v in value:
        st = _special(v)
        out[st["id"]] = st
    return out


def check_pieces(single: list[dict], pair: list[dict], pair_given: bool, specials: dict) -> None:
    """tokenizers' checks of a template built in Python: a given pair template uses both
    sequences, and every special token used is defined.

    Raises:
        ValueError: either check fails.
    """
    if pair_given:
        seqs = {p["Sequence"]["id"] for p in pair if "Sequence" in p}
        if seqs != {"A", "B"}:
            raise ValueError("Template for `pair` must use both sequences")
    missing = sorted({p["SpecialToken"]["id"] for p in single + pair if "SpecialToken" in p} - set(specials))
    if missing:
        raise ValueError(f"Missing SpecialToken(s) with id(s) `{', '.join(missing)}`")
