"""Writing a tokenizer-only GGUF file with the `gguf` package (llama.cpp's own writer).

:func:`write_vocab` writes a :class:`~tokenforge.gguf.vocab.GGUFVocab` as a GGUF with no
tensors -- the shape of llama.cpp's test vocabularies, loadable with ``vocab_only``.  Each
value the vocabulary holds is written with the type llama.cpp's converter gives it (ids
``uint32``, scores ``float32``, types ``int32``, flags ``bool``); ``extra`` keys keep their own
types.  The file is written beside its destination and renamed over it, so a failure never
leaves a half-written file.

What this module leaves out: tensors and model hyper-parameters (``general.architecture``
is written because GGUF requires it; ``llama`` when the vocabulary has none).

Example:
    >>> import os, tempfile
    >>> from tokenforge.gguf.reader import read_vocab
    >>> path = os.path.join(tempfile.mkdtemp(), "v.gguf")
    >>> write_vocab(GGUFVocab(model="gpt2", pre="gpt-2", tokens=["a", "b", "ab"], merges=["a b"]), path)
    >>> v = read_vocab(path)
    >>> v.tokens, v.merges, v.architecture
    (['a', 'b', 'ab'], ['a b'], 'llama')
"""

from __future__ import annotations

import os
import tempfile

from tokenforge._files import write_atomic
from tokenforge.gguf.reader import import_gguf
from tokenforge.gguf.vocab import FLAG_KEYS, PREFIX, SPECIAL_KEYS, GGUFVocab


def write_vocab(vocab: GGUFVocab, path: str | os.PathLike[str]) -> None:
    """Writes `vocab` as a tokenizer-only GGUF file, atomically.

    Args:
        vocab: the tokenizer metadata.
        path: the file to (over)write.

    Raises:
        ValueError: the vocabulary's arrays disagree (see :meth:`GGUFVocab.check`).
        OSError: the folder is not writable or the disk is full.
        ImportError: the `gguf` package is missing (pip install 'tokenforge[gguf]').
    """
    gguf = import_gguf()
    vocab.check()
    # gguf's writer wants a path of its own: it writes a scratch file, whose bytes then go
    # to `path` through write_atomic (a tokenizer is a few MB).
    with tempfile.TemporaryDirectory(prefix="tokenforge-gguf-") as scratch:
        tmp = os.path.join(scratch, "vocab.gguf")
        w = gguf.GGUFWriter(tmp, vocab.architecture or "llama")
        _add_keys(w, gguf, vocab)
        w.write_header_to_file()
        w.write_kv_data_to_file()
        w.close()
        with open(tmp, "rb") as f:
            data = f.read()
    write_atomic(path, data)


def _add_keys(w, gguf, vocab: GGUFVocab) -> None:
    t = gguf.GGUFValueType
    if vocab.name is not None:
        w.add_name(vocab.name)
    w.add_tokenizer_model(vocab.model)
    if vocab.pre is not None:
        w.add_tokenizer_pre(vocab.pre)
    w.add_key_value(PREFIX + "tokens", list(vocab.tokens), t.ARRAY, t.STRING)
    if vocab.scores is not None:
        w.add_key_value(PREFIX + "scores", list(vocab.scores), t.ARRAY, t.FLOAT32)
    if vocab.token_types is not None:
        w.add_key_value(PREFIX + "token_type", [int(x) for x in vocab.token_types], t.ARRAY, t.INT32)
    if vocab.merges:  # GGUF has no empty arrays
        w.add_key_value(PREFIX + "merges", list(vocab.merges), t.ARRAY, t.STRING)
    if vocab.precompiled_charsmap:
        w.add_key_value(PREFIX + "precompiled_charsmap", bytes(vocab.precompiled_charsmap), t.ARRAY, t.UINT8)
    for short, i in vocab.special_ids.items():
        w.add_key_value(PREFIX + SPECIAL_KEYS[short], int(i), t.UINT32)
    for attr, key in FLAG_KEYS.items():
        value = getattr(vocab, attr)
        if value is not None:
            w.add_key_value(PREFIX + key, bool(value), t.BOOL)
    for key, (value, vtype, sub_type) in vocab.extra.items():
        if value is not None:  # None: an array of arrays, which the reader skips
            w.add_key_value(key, value, t(vtype), None if sub_type is None else t(sub_type))
