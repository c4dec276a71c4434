"""`write_page(models, path)`: one offline HTML file to explore how models cut text.

The page holds everything (plain HTML, CSS, JavaScript and SVG, no network): a text box
whose tokens are coloured as you type, one column per model (two side by side); hovering a
token shows its id, bytes and the two tokens it was merged from; a search over the
vocabulary draws a token's merge tree down to bytes; a histogram of token lengths and the
compression on a sample.

How the page encodes: byte-level BPE models (tiktoken, minbpe, byte-level tokenizer.json)
are encoded in the browser from the embedded vocabulary: the split pattern runs as a
JavaScript regex (possessive quantifiers dropped, which changes no match of the GPT
patterns) and byte-pair merging is the same lowest-rank-first rule, so typing any text
gives tokenforge's ids.  SentencePiece models need their normalizer and lattice, which
are not ported to JavaScript: the page shows their ids precomputed for the sample text
(the text given with ``-f``), and says so when the text is edited.

It leaves out loading models (:mod:`.models`); the page's script is ``page.js`` beside this file.
"""

from __future__ import annotations

import base64
import html
import json
import os
import re
from collections.abc import Sequence
from importlib import resources

from tokenforge._files import write_atomic
from tokenforge.views.models import Model
from tokenforge.views.summary import SAMPLE

MAX_LENGTH_BIN = 16  # token lengths from 16 bytes up share the histogram's last bar
_POSSESSIVE = re.compile(r"(\{\d+(?:,\d*)?\}|(?<!\\)[+*?])\+")


def _ignore_case(body: str) -> str:
    """A regex body with each letter matching both cases ([sd] -> [sdSD], ll -> [lL][lL])."""
    out, k, in_class = [], 0, False
    while k < len(body):
        c = body[k]
        if c == "\\":  # an escape: copied whole, with a {...} argument (\p{L})
            end = body.index("}", k) + 1 if body[k + 1 : k + 3].lower() in ("p{",) else k + 2
            out.append(body[k:end])
            k = end
            continue
        if c == "[":
            in_class = True
        elif c == "]":
            in_class = False
        if c.isalpha() and c.lower() != c.upper():
            out.append(c.lower() + c.upper() if in_class else f"[{c.lower()}{c.upper()}]")
        else:
            out.append(c)
        k += 1
    return "".join(out)


def js_pattern(pattern: str) -> str:
    """A Python `regex` split pattern as a JavaScript one (flags "gu") that splits the same:
    possessive quantifiers dropped (no match of the GPT patterns depends on them), ``(?i:...)``
    spelled out letter by letter, ``\\s`` as Unicode White_Space (as the regex module has it).

    >>> js_pattern(r"'(?i:[sd]|ll)|\\p{L}++|\\p{N}{1,3}+|\\s+(?!\\S)")
    "'(?:[sSdD]|[lL][lL])|\\\\p{L}+|\\\\p{N}{1,3}|\\\\p{White_Space}+(?!\\\\P{White_Space})"
    """
    p = _POSSESSIVE.sub(r"\1", pattern)
    while "(?i:" in p:
        start = p.index("(?i:")
        depth, k = 1, start + 4
        while depth:
            depth += {"(": 1, ")": -1}.get(p[k], 0) if p[k - 1] != "\\" else 0
            k += 1
        p = p[:start] + "(?:" + _ignore_case(p[start + 4 : k - 1]) + ")" + p[k:]
    return re.sub(r"(?<!\\)\\s", r"\\p{White_Space}", re.sub(r"(?<!\\)\\S", r"\\P{White_Space}", p))


def model_data(model: Model, sample: str) -> dict:
    """What the page needs of one model, as JSON-ready values."""
    ids = model.ids()
    size = max(ids, default=-1) + 1
    tokens: list[str | None] = [None] * size
    hist = [0] * MAX_LENGTH_BIN
    for i in ids:
        b = model.token_bytes(i)
        tokens[i] = base64.b64encode(b).decode("ascii")
        hist[min(len(b), MAX_LENGTH_BIN) - 1] += 1 if b else 0
    parents = [[i, a, b] for i, (a, b) in sorted(model.parents.items())]
    sample_ids = model.encode(sample)
    return {
        "name": model.name,
        "kind": model.kind,
        "live": model.encoding is not None,
        "pattern": js_pattern(model.split) if model.encoding is not None else None,
        "tokens": tokens,
        "parents": parents,
        "specials": model.specials,
        "sample_ids": sample_ids,
        "hist": hist,
        "sample_bytes": len(sample.encode("utf-8")),
    }


def render(models: Sequence[Model], sample: str | None = None) -> str:
    """The page's HTML for one or two models."""
    sample = SAMPLE if sample is None else sample
    data = {"sample": sample, "models": [model_data(m, sample) for m in models]}
    blob = json.dumps(data, ensure_ascii=True, separators=(",", ":")).replace("</", "<\\/")
    here = resources.files("tokenforge.views")
    script = here.joinpath("page.js").read_text(encoding="utf-8")
    style = here.joinpath("page.css").read_text(encoding="utf-8")
    title = html.escape(" vs ".join(m.name for m in models))
    return (
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        f"<title>tokenforge: {title}</title><style>{style}</style></head><body>"
        f"<h1>tokenforge · {title}</h1>"
        "<textarea id='text' spellcheck='false' rows='5'></textarea><p id='note'></p>"
        "<div id='models'></div><div id='tip' hidden></div>"
        f"<script id='data' type='application/json'>{blob}</script><script>{script}</script></body></html>\n"
    )


def write_page(models: Sequence[Model], path: str | os.PathLike[str], sample: str | None = None) -> str:
    """Writes the page atomically; returns its path.

    Raises:
        OSError: the file cannot be written.
    """
    path = os.fspath(path)
    write_atomic(path, render(models, sample).encode("utf-8"))
    return path
