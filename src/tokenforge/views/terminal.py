"""Tokens in the terminal: text with a background colour per token, and the merge steps of a word.

`show` prints, for each model, the token count, the text cut into tokens (alternating
background colours, or ``|`` between tokens without colour) and the ids.  `merge_steps`
replays byte-level BPE on one piece the way tiktoken's educational module does: start from
bytes and merge the adjacent pair whose joined bytes have the lowest rank, until none has one.

It leaves out loading (:mod:`.models`) and deciding whether colour is on (the command does).

Example (ranks given by hand: "ll" is rank 256, "llo" 257):
    >>> from tokenforge import Encoding, patterns
    >>> ranks = {bytes([b]): b for b in range(256)} | {b"ll": 256, b"llo": 257}
    >>> enc = Encoding("toy", pat_str=patterns.GPT2, mergeable_ranks=ranks, special_tokens={})
    >>> [[p.decode() for p in parts] for parts in merge_steps(enc, b"hello")]
    [['h', 'e', 'l', 'l', 'o'], ['h', 'e', 'll', 'o'], ['h', 'e', 'llo']]
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

from tokenforge.core import Encoding
from tokenforge.views.models import Model

BACKGROUNDS = (167, 179, 185, 77, 80, 68, 134)  # xterm-256 colours, cycled token by token
RESET = "\x1b[0m"


def printable(token: bytes) -> str:
    """A token's bytes as text a terminal shows on one line: invalid UTF-8 as U+FFFD, control
    characters escaped (minbpe's rendering), so a newline token stays visible.

    >>> printable(b"a\\n"), printable(b"\\xe4")
    ('a\\\\u000a', '\\ufffd')
    """
    text = token.decode("utf-8", errors="replace")
    return "".join(c if unicodedata.category(c)[0] != "C" else f"\\u{ord(c):04x}" for c in text)


def paint(tokens: Sequence[bytes], color: bool) -> str:
    """Tokens side by side: coloured backgrounds, or ``|`` between them.

    >>> paint([b"he", b"llo"], color=False)
    'he|llo'
    """
    if not color:
        return "|".join(printable(t) for t in tokens)
    return "".join(f"\x1b[48;5;{BACKGROUNDS[k % len(BACKGROUNDS)]}m{printable(t)}" for k, t in enumerate(tokens)) + RESET


def show(models: Sequence[Model], text: str, color: bool) -> str:
    """The report `tokenforge show` prints: per model its count, the painted text and the ids."""
    blocks = []
    for m in models:
        ids = m.encode(text)
        ratio = len(text.encode("utf-8")) / len(ids) if ids else 0.0
        head = f"{m.name} ({m.kind}): {len(ids)} tokens, {ratio:.2f} bytes/token"
        blocks.append("\n".join([head, paint([m.token_bytes(i) for i in ids], color), str(ids)]))
    return "\n\n".join(blocks)


def merge_steps(encoding: Encoding, piece: bytes) -> list[list[bytes]]:
    """The parts of `piece` after each merge, from single bytes to the final tokens.

    Raises:
        ValueError: a byte of the piece has no token (the vocabulary does not cover it).
    """
    ranks = encoding._mergeable_ranks
    parts = [bytes([b]) for b in piece]
    missing = [p for p in parts if p not in ranks]
    if missing:
        raise ValueError(f"byte {missing[0]!r} has no token in {encoding.name}")
    steps = [list(parts)]
    while len(parts) > 1:
        best = min(range(len(parts) - 1), key=lambda i: ranks.get(parts[i] + parts[i + 1], float("inf")))
        if parts[best] + parts[best + 1] not in ranks:
            break
        parts[best : best + 2] = [parts[best] + parts[best + 1]]
        steps.append(list(parts))
    return steps


def show_merges(model: Model, word: str, color: bool) -> str:
    """The report of `tokenforge show --merges`: each piece of `word`, merge by merge.

    Raises:
        ValueError: the model is not a byte-level BPE (SentencePiece has no rank to replay).
    """
    enc = model.encoding
    if enc is None:
        raise ValueError(f"--merges replays byte-level BPE; {model.name} is a {model.kind} model")
    import regex

    lines = [f"{model.name}: merges of {word!r}"]
    for piece in regex.findall(enc._pat_str, word) or [word]:
        steps = merge_steps(enc, piece.encode("utf-8"))
        lines.append(f"piece {piece!r}: {len(steps) - 1} merges")
        for before, after in zip([None] + steps, steps):
            note = ""
            if before is not None:
                made = next(p for p in after if p not in before or after.count(p) > before.count(p))
                note = f"   + {printable(made)!r} (id {enc._mergeable_ranks[made]})"
            lines.append("  " + paint(after, color) + note)
        lines.append(f"  -> {[enc._mergeable_ranks[p] for p in steps[-1]]}")
    return "\n".join(lines)
