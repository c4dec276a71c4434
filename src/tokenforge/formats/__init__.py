"""Every tokenizer file format tokenforge reads or writes, one module each:

* :mod:`.tiktoken_bpe` — tiktoken's `.tiktoken` rank files;
* :mod:`.data_gym` — GPT-2's encoder.json + vocab.bpe (read);
* :mod:`.minbpe` — minbpe's `.model` / `.vocab`;
* :mod:`.hf_json` — HF tokenizers' `tokenizer.json` (written for byte-level encodings);
* :mod:`.sentencepiece_model` — SentencePiece's `.model` (ModelProto, read and write);
* :mod:`.byte_map` and :mod:`.merges` — GPT-2's byte characters, and merges recovered
  from ranks, which several of them share.

Every file is written atomically (temp file + rename).  `save` picks the format of a
byte-level encoding from the file name.

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
        from tokenforge.formats.tiktoken_bpe import dump_tiktoken_bpe

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
