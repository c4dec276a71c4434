"""Tokenizer file formats that tokenforge writes: tiktoken's `.tiktoken` (in
:mod:`tokenforge.load`), minbpe's `.model`/`.vocab` (:mod:`.minbpe`) and HF tokenizers'
`tokenizer.json` (:mod:`.hf_json`).  Every file is written atomically (temp file + rename).

`save` picks the format from the file name.

Example:
    >>> import os, tempfile, tokenforge
    >>> enc = tokenforge.BpeTrainer(258, show_progress=False).train_from_iterator(["aaab"])
    >>> d = tempfile.mkdtemp()
    >>> [os.path.basename(p) for p in save(enc, os.path.join(d, "tok.json"))]
    ['tok.json']
"""

from __future__ import annotations

import os

from tokenforge.core import Encoding

FORMATS = {".tiktoken": "tiktoken", ".model": "minbpe", ".json": "hf"}


def save(encoding: Encoding, path: str | os.PathLike[str]) -> list[str]:
    """Saves `encoding` in the format its file name asks for; returns the files written.

    Args:
        encoding: a byte-level BPE encoding (e.g. from :class:`tokenforge.BpeTrainer`).
        path: ends in ``.tiktoken`` (ranks only, as tiktoken loads them), ``.model``
            (minbpe; a readable ``.vocab`` is written beside it) or ``.json`` (HF
            tokenizers' tokenizer.json).

    Raises:
        ValueError: an unknown suffix.
        OSError: the file cannot be written.
    """
    path = os.fspath(path)
    suffix = os.path.splitext(path)[1]
    if suffix == ".tiktoken":
        from tokenforge.load import dump_tiktoken_bpe

        dump_tiktoken_bpe(encoding._mergeable_ranks, path)
        return [path]
    if suffix == ".model":
        from tokenforge.formats import minbpe

        return minbpe.save(encoding, path[: -len(suffix)])
    if suffix == ".json":
        from tokenforge.formats import hf_json

        hf_json.save(encoding, path)
        return [path]
    raise ValueError(f"cannot tell the format of {path!r}: use one of {', '.join(FORMATS)}")
