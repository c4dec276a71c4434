"""HF tokenizers' ``tokenizer.json`` for a byte-level BPE encoding.

The pipeline written is the one that reproduces tiktoken-style encoding in HF:
Split(pattern, Isolated) -> ByteLevel(no regex of its own) -> BPE over GPT-2's byte
characters, with ``ignore_merges`` (a piece that is itself a token becomes that token, as in
tiktoken) -> ByteLevel decoder.  Special tokens become added tokens, and vocab entries under their
own text so that `tokenizers` keeps their ids.  The merges are every pair of tokens that makes a
token, in that token's rank order (:func:`tokenforge.formats.merges.every_merge`), as HF's own
converter writes them (Llama 3's published file has these 280147).

HF's regex engine (Oniguruma) reads a possessive counted repeat such as cl100k's
``\\p{N}{1,3}+`` as "repeat the whole group", so such repeats are written as atomic groups
``(?>\\p{N}{1,3})``, which mean the same in both engines.  Reading tokenizer.json back is
left to HF tokenizers itself.

Example:
    >>> hf_pattern(r"\\p{N}{1,3}+|\\s+")
    '(?>\\\\p{N}{1,3})|\\\\s+'
"""

from __future__ import annotations

import json
import os
import re

from tokenforge._files import write_atomic
from tokenforge.core import Encoding
from tokenforge.formats.byte_map import to_text as text
from tokenforge.formats.merges import every_merge

# A counted repeat made possessive by a trailing '+', after a one-atom operand: an escape
# with braces (\p{..}), a plain escape (\d) or a bracket class without nested brackets.
_POSSESSIVE_COUNT = re.compile(r"(\\[pP]\{[^}]*\}|\\.|\[(?:\\.|[^\]\\])*\])(\{\d+(?:,\d*)?\})\+")


def hf_pattern(pat_str: str) -> str:
    """`pat_str` rewritten so Oniguruma splits as the `regex` module does."""
    return _POSSESSIVE_COUNT.sub(r"(?>\1\2)", pat_str)


def _vocab(ranks: dict[bytes, int], specials: dict[str, int]) -> dict[str, int]:
    """The BPE vocab: each rank's bytes as GPT-2 characters, and each special token under its
    own text.  `tokenizers` gives an added token the id its text has in the model's vocab, and
    one absent from it the next free id (cl100k's ``<|endoftext|>``, 100257, would become 100256;
    p50k's, 50256, would take 50280, which is a rank): in the vocab, specials keep their ids.
    No merge makes them, and added tokens are matched before the model, so the model never
    produces them from text."""
    vocab = {text(t): i for t, i in sorted(ranks.items(), key=lambda kv: kv[1])}
    for s, i in sorted(specials.items(), key=lambda kv: kv[1]):
        if vocab.setdefault(s, i) != i:
            raise ValueError(f"special token {s!r} ({i}) is spelled like the byte-level token of rank {vocab[s]}: "
                             "tokenizer.json cannot tell them apart")
    return vocab


def to_dict(encoding: Encoding) -> dict:
    """The tokenizer.json content as a dict (see the module docstring)."""
    ranks = encoding._mergeable_ranks
    added = [
        {
            "id": i,
            "content": s,
            "single_word": False,
            "lstrip": False,
            "rstrip": False,
            "normalized": False,
            "special": True,
        }
        for s, i in sorted(encoding._special_tokens.items(), key=lambda kv: kv[1])
    ]
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added,
        "normalizer": None,
        "pre_tokenizer": {
            "type": "Sequence",
            "pretokenizers": [
                {"type": "Split", "pattern": {"Regex": hf_pattern(encoding._pat_str)}, "behavior": "Isolated", "invert": False},
                {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False},
            ],
        },
        "post_processor": None,
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
        "model": {
            "type": "BPE",
            "dropout": None,
            "unk_token": None,
            "continuing_subword_prefix": None,
            "end_of_word_suffix": None,
            "fuse_unk": False,
            "byte_fallback": False,
            "ignore_merges": True,
            "vocab": _vocab(ranks, encoding._special_tokens),
            "merges": [[text(a), text(b)] for a, b in every_merge(ranks)],
        },
    }


def save(encoding: Encoding, path: str | os.PathLike[str]) -> None:
    """Writes `encoding` as an HF tokenizer.json, atomically.

    Raises:
        ValueError: a special token spelled like a byte-level token.
        OSError: the file cannot be written.
    """
    data = json.dumps(to_dict(encoding), ensure_ascii=False, indent=1)
    write_atomic(path, data.encode("utf-8"))
