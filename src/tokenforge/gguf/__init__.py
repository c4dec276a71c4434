"""llama.cpp's GGUF tokenizers: read a GGUF's ``tokenizer.ggml.*`` metadata, encode with it
exactly as llama.cpp does, and write tokenizer-only GGUF files.

Writing uses the `gguf` package (llama.cpp's own writer), an optional extra:
``pip install 'tokenforge[gguf]'``; reading is one bounds-checked walk of the file's
key/values (:mod:`.layout`), checked against ``gguf.GGUFReader`` by the tests and many
times faster.  The layout follows the pipeline:

- :mod:`.vocab` -- :class:`GGUFVocab`, the file's tokenizer metadata as plain values;
- :mod:`.layout`, :mod:`.reader` / :mod:`.writer` -- GGUF file <-> GGUFVocab (written atomically);
- :mod:`.pretokenizers` -- every ``tokenizer.ggml.pre`` llama.cpp knows and its regexes;
  :mod:`.split` runs a sequence of them;
- :mod:`.bytelevel` (``gpt2``), :mod:`.spm` (``llama``, ``t5``) and :mod:`.wordpiece`
  (``bert``) -- the engines;
- :mod:`.engine` -- :class:`GGUFTokenizer`: special tokens, space prefix, BOS/EOS as llama.cpp;
- :mod:`.convert` -- GGUFVocab from a tiktoken-style :class:`tokenforge.Encoding`, a
  SentencePiece ``.model`` or any ``tokenizer.json`` (``vocab_from_json``): byte-level BPE
  there, SentencePiece-style BPE / Unigram in :mod:`.convert_spm_json` (pipeline flags in
  :mod:`.spm_json_pipeline`), WordPiece (BERT) in :mod:`.convert_bert`.

What it leaves out: llama.cpp's rarer models
(``rwkv``, ``plamo2``, ``gemma4``-style BPE) and tensors.

Example:
    >>> import os, tempfile, tokenforge
    >>> from tokenforge.gguf import GGUFTokenizer, vocab_from_encoding, write_vocab, load
    >>> ranks = {bytes([b]): b for b in range(256)} | {b"ab": 256}
    >>> enc = tokenforge.Encoding("tiny", pat_str=tokenforge.patterns.GPT2, mergeable_ranks=ranks, special_tokens={})
    >>> path = os.path.join(tempfile.mkdtemp(), "tiny.gguf")
    >>> write_vocab(vocab_from_encoding(enc), path)
    >>> load(path).encode("ab ab")
    [256, 32, 256]
"""

from __future__ import annotations

import os

from tokenforge.gguf.convert import (vocab_from_encoding, vocab_from_json, vocab_from_sentencepiece,
                                     vocab_from_tokenizer_json)
from tokenforge.gguf.convert_spm_json import vocab_from_spm_json
from tokenforge.gguf.convert_bert import vocab_from_wordpiece
from tokenforge.gguf.engine import GGUFTokenizer
from tokenforge.gguf.pretokenizers import PRE_NAMES, pre_tokenizer
from tokenforge.gguf.reader import read_vocab
from tokenforge.gguf.vocab import GGUFVocab, TokenType
from tokenforge.gguf.writer import write_vocab

__all__ = ["GGUFTokenizer", "GGUFVocab", "PRE_NAMES", "TokenType", "load", "pre_tokenizer", "read_vocab",
           "vocab_from_encoding", "vocab_from_json", "vocab_from_sentencepiece", "vocab_from_spm_json",
           "vocab_from_tokenizer_json", "vocab_from_wordpiece", "write_vocab"]


def load(path: str | os.PathLike[str], *, reader: str = "gguf") -> GGUFTokenizer:
    """The tokenizer of a GGUF file, ready to encode as llama.cpp does (`reader`: see
    :func:`read_vocab`).

    Raises:
        OSError: the file cannot be read.
        ValueError: not a GGUF file, no or a malformed tokenizer, an unsupported model or pre.
    """
    return GGUFTokenizer(read_vocab(path, reader=reader))
