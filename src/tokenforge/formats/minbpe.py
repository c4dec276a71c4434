"""minbpe's tokenizer files (Karpathy's minbpe, `RegexTokenizer.save` / `load`).

``PREFIX.model`` is what minbpe loads::

    minbpe v1
    <split pattern>
    <number of special tokens>
    <special> <id>          one line per special token
    <left id> <right id>    one line per merge, in order; merge k makes id 256 + k

In minbpe, ids 0-255 are the byte values themselves (tokenforge's byte ranks follow GPT-2's
byte order instead), so ids are translated on the way out and back.  ``PREFIX.vocab`` is
minbpe's human-readable listing (``[left][right] -> [token] id``); minbpe never reads it.

Example:
    >>> import os, tempfile, tokenforge
    >>> enc = tokenforge.BpeTrainer(258, show_progress=False).train_from_iterator(["hello hello"])
    >>> prefix = os.path.join(tempfile.mkdtemp(), "tok")
    >>> [os.path.basename(p) for p in save(enc, prefix)]
    ['tok.model', 'tok.vocab']
    >>> open(prefix + ".model").read().splitlines()[3:]
    ['101 108', '104 256']
"""

from __future__ import annotations

import os
import unicodedata

from tokenforge._files import write_atomic
from tokenforge.core import Encoding
from tokenforge.formats.merges import merges_from_ranks

WHOLE_TEXT = r"[\s\S]+"  # the split pattern of "no split" (minbpe's BasicTokenizer)


def _render(token: bytes) -> str:
    """minbpe's render_token: decode with replacement and escape control characters."""
    text = token.decode("utf-8", errors="replace")
    return "".join(ch if unicodedata.category(ch)[0] != "C" else f"\\u{ord(ch):04x}" for ch in text)


def write(prefix: str, pattern: str, special_tokens: dict[str, int], merges: dict[tuple[int, int], int],
          vocab: dict[int, bytes]) -> list[str]:
    """Writes ``prefix.model`` and ``prefix.vocab`` from minbpe's own tables; returns their paths.

    Args:
        prefix: the path without suffix.
        pattern: the split pattern ("" for minbpe's BasicTokenizer).
        special_tokens: text -> id, written in this order.
        merges: (left id, right id) -> new id, in merge order (ids 0-255 are byte values).
        vocab: id -> bytes, for the readable ``.vocab`` listing (ids 0-255, merges, specials).

    Raises:
        ValueError: a special token or the pattern holds a line break (the file is line based).
        OSError: a file cannot be written.
    """
    if "\n" in pattern or "\r" in pattern or any("\n" in s or "\r" in s for s in special_tokens):
        raise ValueError("minbpe's .model is line based: the pattern and special tokens cannot hold line breaks")
    model = ["minbpe v1", pattern, str(len(special_tokens))]
    model += [f"{s} {i}" for s, i in special_tokens.items()]
    model += [f"{a} {b}" for a, b in merges]
    parents = {idx: pair for pair, idx in merges.items()}
    listing = []
    for idx, token in vocab.items():
        if idx in parents:
            a, b = parents[idx]
            listing.append(f"[{_render(vocab[a])}][{_render(vocab[b])}] -> [{_render(token)}] {idx}")
        else:
            listing.append(f"[{_render(token)}] {idx}")
    write_atomic(prefix + ".model", ("\n".join(model) + "\n").encode("utf-8"))
    write_atomic(prefix + ".vocab", ("\n".join(listing) + "\n").encode("utf-8"))
    return [prefix + ".model", prefix + ".vocab"]


def read(path: str | os.PathLike[str]) -> tuple[str, dict[str, int], dict[tuple[int, int], int]]:
    """Reads a minbpe ``.model`` file: (pattern, special text -> id, (left, right) -> new id).

    Raises:
        ValueError: the file is not a minbpe v1 model, or repeats a merge (the message names
            the line).
        OSError: it cannot be read.
    """
    where = os.fspath(path)
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    if len(lines) < 3 or lines[0].strip() != "minbpe v1":
        raise ValueError(f"{where}: not a minbpe v1 model file (its first line is not 'minbpe v1')")
    pattern = lines[1].rstrip("\r")
    k = 3  # the line being read, for the message
    try:
        n_special = int(lines[2])
        specials = {}
        for k, line in enumerate(lines[3 : 3 + n_special], 4):
            text, idx = line.rstrip("\r").rsplit(" ", 1)
            specials[text] = int(idx)
            if not 0 <= specials[text] < 2**32 - 1:  # a token id is 32-bit
                raise ValueError(f"{where}: line {k} gives the special {text!r} the id {idx}, out of range")
        merges = {}
        for k, line in enumerate(lines[3 + n_special :], 4 + n_special):
            if line.strip():
                a, b = map(int, line.split())
                if not (0 <= a < 256 + len(merges) and 0 <= b < 256 + len(merges)):
                    raise ValueError
                if (a, b) in merges:  # minbpe would leave a hole in its ids and fail on it
                    raise ValueError(f"{where}: line {k} repeats the merge {a} {b}")
                merges[(a, b)] = 256 + len(merges)
    except ValueError as e:
        if str(e).startswith(where):
            raise
        raise ValueError(f"{where}: line {k} is not a minbpe v1 line") from None
    return pattern, specials, merges


def save(encoding: Encoding, prefix: str | os.PathLike[str]) -> list[str]:
    """Writes an Encoding as ``prefix.model`` and ``prefix.vocab``; returns their paths.

    Raises:
        ValueError: the ranks are not 256 single bytes followed by merges in rank order.
        OSError: a file cannot be written.
    """
    ranks = encoding._mergeable_ranks
    by_rank = sorted(ranks, key=ranks.__getitem__)
    if sorted(len(t) for t in by_rank[:256]) != [1] * 256 or [ranks[t] for t in by_rank] != list(range(len(by_rank))):
        raise ValueError("minbpe needs ranks 0..n-1 with the 256 single bytes first")
    minbpe_id = {t: (t[0] if len(t) == 1 else ranks[t]) for t in by_rank}  # bytes keep their value
    merges = {(minbpe_id[a], minbpe_id[b]): minbpe_id[a + b] for a, b in merges_from_ranks(ranks)}
    vocab = {i: bytes([i]) for i in range(256)} | {minbpe_id[t]: t for t in by_rank[256:]}
    specials = dict(sorted(encoding._special_tokens.items(), key=lambda kv: kv[1]))
    vocab |= {i: s.encode("utf-8") for s, i in specials.items()}
    return write(os.fspath(prefix), encoding._pat_str, specials, merges, vocab)


def load(path: str | os.PathLike[str], name: str | None = None) -> Encoding:
    """Reads a minbpe ``.model`` file as an Encoding whose ids are minbpe's.

    An empty pattern line (a BasicTokenizer's file) means no split: the whole text is one
    piece, as minbpe's BasicTokenizer encodes it (an Encoding with the pattern "" would
    match only empty strings and drop all text).

    Raises:
        ValueError: the file is not a minbpe v1 model, or two merges make the same bytes
            (an Encoding maps bytes to one id; :mod:`tokenforge.minbpe` loads such files).
        OSError: it cannot be read.
    """
    pattern, specials, merges = read(path)
    vocab = {i: bytes([i]) for i in range(256)}  # minbpe id -> bytes
    for (a, b), idx in merges.items():
        vocab[idx] = vocab[a] + vocab[b]
    ranks = {t: i for i, t in vocab.items()}
    if len(ranks) != len(vocab):
        raise ValueError(f"{os.fspath(path)}: two merges make the same token; load it with tokenforge.minbpe")
    return Encoding(name or os.path.basename(os.fspath(path)), pat_str=pattern or WHOLE_TEXT, mergeable_ranks=ranks,
                    special_tokens=specials)
