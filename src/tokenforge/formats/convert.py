"""`convert(src, dst)`: a tokenizer file rewritten in another format, chosen by suffix.

Formats: ``.gguf`` (llama.cpp), ``.json`` (Hugging Face ``tokenizer.json``), ``.model``
(SentencePiece) and ``.tiktoken`` (a rank file; named after a known encoding it gets that
encoding's pattern and special tokens, else cl100k's pattern, as everywhere in tokenforge).

| from \\ to   | .gguf                          | .json                   | .model          |
|-------------|--------------------------------|-------------------------|-----------------|
| .gguf       | rewritten                      | gpt2                    | llama, t5       |
| .json       | BPE, Unigram, WordPiece        | --                      | --              |
| .model      | BPE (llama), Unigram (t5)      | --                      | --              |
| .tiktoken   | byte-level BPE (``pre``)       | byte-level BPE          | --              |

Writing a ``.tiktoken`` is refused: a rank file holds no split pattern or special tokens,
so every conversion to it loses them.  Every other pair not in the table, and every file a
target cannot describe exactly (see :mod:`tokenforge.gguf.export`, :mod:`tokenforge.gguf.convert`,
:mod:`tokenforge.gguf.convert_bert`), is a ``ValueError`` that says why.  Files are written
atomically.

What this module leaves out: minbpe's ``.model`` text files, and SentencePiece to
``tokenizer.json`` (transformers' converters do that).

Example:
    >>> import os, tempfile
    >>> convert("a.gguf", os.path.join(tempfile.mkdtemp(), "b.tiktoken"))
    Traceback (most recent call last):
    ...
    ValueError: cannot write b.tiktoken: a .tiktoken file holds only the ranks, so the split pattern and special tokens would be lost (write a tokenizer.json or .gguf)
"""

from __future__ import annotations

import json
import os

from tokenforge._files import write_atomic

SUFFIXES = (".gguf", ".json", ".model", ".tiktoken")


def _kind(path: str) -> str:
    for s in SUFFIXES:
        if path.endswith(s):
            return s
    raise ValueError(f"cannot tell the format of {os.path.basename(path)!r} by its suffix: use one of {', '.join(SUFFIXES)}")


def convert(src: str | os.PathLike[str], dst: str | os.PathLike[str], *, pre: str | None = None) -> str:
    """Converts the tokenizer file `src` into `dst` (formats by suffix, module docstring).

    Args:
        src: the file to read.
        dst: the file to write (replaced atomically).
        pre: for a byte-level BPE written to GGUF, llama.cpp's ``tokenizer.ggml.pre`` when the
            file's own pattern is not exactly one (cl100k's, for example).

    Returns:
        A one-line description of what was written.

    Raises:
        OSError: `src` cannot be read or `dst` written.
        ValueError: a pair of formats tokenforge does not convert, or a file the target
            format cannot describe exactly.
        ImportError: a GGUF side without the `gguf` package.
    """
    src, dst = os.fspath(src), os.fspath(dst)
    a, b = _kind(src), _kind(dst)
    if b == ".tiktoken":
        raise ValueError(f"cannot write {os.path.basename(dst)}: a .tiktoken file holds only the ranks, so the split "
                         "pattern and special tokens would be lost (write a tokenizer.json or .gguf)")
    if b == ".gguf":
        return _to_gguf(src, a, dst, pre)
    if a == ".gguf":
        from tokenforge.gguf import read_vocab
        from tokenforge.gguf.export import model_proto_from_vocab, tokenizer_json_from_vocab

        vocab = read_vocab(src)
        if b == ".json":
            _write_json(tokenizer_json_from_vocab(vocab), dst)
        else:
            write_atomic(dst, model_proto_from_vocab(vocab).to_bytes())
        return f"{vocab.model} GGUF with {vocab.n_tokens} tokens -> {b}"
    if a == ".tiktoken" and b == ".json":
        from tokenforge.formats.hf_json import to_dict

        enc = _encoding(src)
        _write_json(to_dict(enc), dst)
        return f"{enc.n_vocab} tokens (pattern of {enc.name}) -> tokenizer.json"
    raise ValueError(f"tokenforge does not convert {a} to {b} (see `tokenforge convert --help` for the pairs it does)")


def _to_gguf(src: str, kind: str, dst: str, pre: str | None) -> str:
    from tokenforge import gguf

    if kind == ".gguf":
        vocab = gguf.read_vocab(src)
    elif kind == ".model":
        vocab = gguf.vocab_from_sentencepiece(src)
    elif kind == ".tiktoken":
        vocab = gguf.vocab_from_encoding(_encoding(src), pre=pre)
    else:
        vocab = gguf.vocab_from_json(src, pre=pre)
    gguf.GGUFTokenizer(vocab)  # a file llama.cpp could not run is refused before it is written
    gguf.write_vocab(vocab, dst)
    return f"{kind} -> {vocab.model} GGUF ({vocab.n_tokens} tokens, pre {vocab.pre!r})"


def _encoding(path: str):
    from tokenforge.views.models import load_model

    return load_model(path).encoding


def _write_json(d: dict, dst: str) -> None:
    write_atomic(dst, json.dumps(d, ensure_ascii=False, indent=2).encode("utf-8"))
