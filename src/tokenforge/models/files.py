"""The vocab and merges files of `tokenizers`' models: read (`BPE.from_file`, `WordPiece.from_file`,
`WordLevel.from_file`) and written (`model.save(folder, prefix)`), in `tokenizers`' layouts:

* BPE: `vocab.json` (token -> id, written in id order) and `merges.txt` (a `#version: 0.2`
  line, then one `left right` pair per line in rank order; every line that starts with
  `#version` is skipped when read);
* WordPiece: `vocab.txt`, one token per line, the line number its id (trailing whitespace cut);
* WordLevel: `vocab.json`;
* Unigram: `unigram.json`, the model's own tokenizer.json object.

With a prefix, `{prefix}-vocab.json` and so on.  Files are written atomically.

Example:
    >>> import tempfile
    >>> from tokenforge.models import BPE
    >>> d = tempfile.mkdtemp()
    >>> paths = BPE({"a": 0, "b": 1, "ab": 2}, [("a", "b")]).save(d)
    >>> read_bpe(*paths)
    ({'a': 0, 'b': 1, 'ab': 2}, [('a', 'b')])
"""

from __future__ import annotations

import json
import os

from tokenforge._files import read_utf8, write_atomic


def _json_vocab(path: str | os.PathLike[str]) -> dict[str, int]:
    """token -> id from a vocab.json; entries whose value is not a number are skipped, as
    tokenizers skips them.

    Raises:
        OSError: the file cannot be read.
        ValueError: not JSON, not an object, or an id that is not a non-negative integer.
    """
    try:
        obj = json.loads(read_utf8(path))
    except json.JSONDecodeError as e:
        raise ValueError(f"{os.fspath(path)}: not a JSON vocab: {e}") from None
    if not isinstance(obj, dict):
        raise ValueError(f"{os.fspath(path)}: a vocab must be a JSON object of token -> id")
    vocab = {}
    for token, i in obj.items():
        if isinstance(i, bool) or not isinstance(i, (int, float)):
            continue
        if not isinstance(i, int) or not 0 <= i < 2**32:
            raise ValueError(f"{os.fspath(path)}: token {token!r} has id {i!r}, not an unsigned 32-bit integer")
        vocab[token] = i
    return vocab


def _lines(path: str | os.PathLike[str]) -> list[str]:
    """The lines of a UTF-8 text file, without their `\\n` (a last empty line is the final
    newline's, not a line).

    Raises:
        OSError: the file cannot be read.
        ValueError: the file is not UTF-8.
    """
    lines = read_utf8(path).split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def read_bpe(vocab: str | os.PathLike[str], merges: str | os.PathLike[str]) -> tuple[dict[str, int], list]:
    """(vocab, merges) from a vocab.json and a merges.txt, as `tokenizers.models.BPE.read_file`.

    Raises:
        OSError: a file cannot be read.
        ValueError: a malformed vocab, or a merges line that is not two tokens split by one space.
    """
    v = _json_vocab(vocab)
    out = []
    for line in _lines(merges):
        line = line.removesuffix("\r")
        if line.startswith("#version"):
            continue
        parts = line.split(" ")
        if len(parts) != 2:
            raise ValueError(f"{os.fspath(merges)}: merge {len(out) + 1} ({line!r}) is not two tokens "
                             "separated by one space")
        out.append((parts[0], parts[1]))
    return v, out


def read_wordpiece(vocab: str | os.PathLike[str]) -> dict[str, int]:
    """token -> line number from a vocab.txt, as `tokenizers.models.WordPiece.read_file`
    (a token listed twice keeps its last line).

    Raises:
        OSError: the file cannot be read.
        ValueError: the file is not UTF-8.
    """
    return {line.rstrip(): i for i, line in enumerate(_lines(vocab))}


def read_wordlevel(vocab: str | os.PathLike[str]) -> dict[str, int]:
    """token -> id from a vocab.json (`tokenizers.models.WordLevel.read_file`)."""
    return _json_vocab(vocab)


def _name(prefix: str | None, base: str) -> str:
    return f"{prefix}-{base}" if prefix else base


def _dumps(obj) -> bytes:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _by_id(vocab: dict[str, int]) -> dict[str, int]:
    """The vocab in id order (a token per id: the last listed, as tokenizers' reverse map)."""
    by_id = {i: t for t, i in vocab.items()}
    return {by_id[i]: i for i in sorted(by_id)}


def save(model, folder: str | os.PathLike[str], prefix: str | None = None) -> list[str]:
    """Writes `model`'s files into `folder` (module docstring); returns their paths.

    Raises:
        OSError: the folder is missing or not writable.
        ValueError: a model of no known type.
    """
    from tokenforge.models.bpe import BPE
    from tokenforge.models.unigram import Unigram
    from tokenforge.models.wordpiece import WordLevel, WordPiece

    folder = os.fspath(folder)
    if isinstance(model, BPE):
        vocab = os.path.join(folder, _name(prefix, "vocab.json"))
        merges = os.path.join(folder, _name(prefix, "merges.txt"))
        write_atomic(vocab, _dumps(_by_id(model.vocab)))
        write_atomic(merges, ("#version: 0.2\n" + "".join(f"{a} {b}\n" for a, b in model.merges)).encode("utf-8"))
        return [vocab, merges]
    if isinstance(model, WordPiece):
        path = os.path.join(folder, _name(prefix, "vocab.txt"))
        write_atomic(path, "".join(f"{t}\n" for t in _by_id(model.vocab)).encode("utf-8"))
        return [path]
    if isinstance(model, WordLevel):
        path = os.path.join(folder, _name(prefix, "vocab.json"))
        write_atomic(path, _dumps(_by_id(model.vocab)))
        return [path]
    if isinstance(model, Unigram):
        path = os.path.join(folder, _name(prefix, "unigram.json"))
        write_atomic(path, json.dumps(model.to_dict(), ensure_ascii=False, indent=2).encode("utf-8"))
        return [path]
    raise ValueError(f"cannot save a model of type {type(model).__name__}")
