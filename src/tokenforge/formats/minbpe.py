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


def _render(token: bytes) -> str:
    """minbpe's render_token: decode with replacement and escape control characters."""
    text = token.decode("utf-8", errors="replace")
    return "".join(ch if unicodedata.category(ch)[0] != "C" else f"\\u{ord(ch):04x}" for ch in text)


def save(encoding: Encoding, prefix: str | os.PathLike[str]) -> list[str]:
    """Writes ``prefix.model`` and ``prefix.vocab``; returns their paths.

    Raises:
        ValueError: the ranks are not 256 single bytes followed by merges in rank order.
        OSError: a file cannot be written.
    """
    prefix = os.fspath(prefix)
    ranks = encoding._mergeable_ranks
    by_rank = sorted(ranks, key=ranks.__getitem__)
    if sorted(len(t) for t in by_rank[:256]) != [1] * 256 or [ranks[t] for t in by_rank] != list(range(len(by_rank))):
        raise ValueError("minbpe needs ranks 0..n-1 with the 256 single bytes first")
    minbpe_id = {t: (t[0] if len(t) == 1 else ranks[t]) for t in by_rank}  # bytes keep their value
    merges = merges_from_ranks(ranks)
    specials = sorted(encoding._special_tokens.items(), key=lambda kv: kv[1])
    model = ["minbpe v1", encoding._pat_str, str(len(specials))]
    model += [f"{s} {i}" for s, i in specials]
    model += [f"{minbpe_id[a]} {minbpe_id[b]}" for a, b in merges]
    vocab = [f"[{_render(bytes([b]))}] {b}" for b in range(256)]
    for (a, b), token in zip(merges, by_rank[256:]):
        vocab.append(f"[{_render(a)}][{_render(b)}] -> [{_render(token)}] {minbpe_id[token]}")
    vocab += [f"[{_render(s.encode())}] {i}" for s, i in specials]
    write_atomic(prefix + ".model", ("\n".join(model) + "\n").encode("utf-8"))
    write_atomic(prefix + ".vocab", ("\n".join(vocab) + "\n").encode("utf-8"))
    return [prefix + ".model", prefix + ".vocab"]


def load(path: str | os.PathLike[str], name: str | None = None) -> Encoding:
    """Reads a minbpe ``.model`` file as an Encoding whose ids are minbpe's.

    Raises:
        ValueError: the file is not a minbpe v1 model.
        OSError: it cannot be read.
    """
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    if len(lines) < 3 or lines[0] != "minbpe v1":
        raise ValueError(f"{os.fspath(path)}: not a minbpe v1 model file")
    pattern, n_special = lines[1], int(lines[2])
    specials = {}
    for line in lines[3 : 3 + n_special]:
        text, idx = line.rsplit(" ", 1)
        specials[text] = int(idx)
    vocab = {i: bytes([i]) for i in range(256)}  # minbpe id -> bytes
    for line in lines[3 + n_special :]:
        if line:
            a, b = map(int, line.split())
            vocab[len(vocab)] = vocab[a] + vocab[b]
    ranks = {t: i for i, t in vocab.items()}
    return Encoding(name or os.path.basename(os.fspath(path)), pat_str=pattern, mergeable_ranks=ranks, special_tokens=specials)
