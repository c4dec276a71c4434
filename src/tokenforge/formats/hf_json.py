"""HF tokenizers' ``tokenizer.json`` for a byte-level BPE encoding.

The pipeline written is the one that reproduces tiktoken-style encoding in HF:
Split(pattern, Isolated) -> ByteLevel(no regex of its own) -> BPE over GPT-2's byte
characters, with ``ignore_merges`` (a piece that is itself a token becomes that token, as in
tiktoken) -> ByteLevel decoder.  Special tokens become added tokens.  Merges come from the
ranks (:mod:`tokenforge.formats.merges`).

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
from tokenforge.formats.merges import merges_from_ranks

# A counted repeat made possessive by a trailing '+', after a one-atom operand: an escape
# with braces (\p{..}), a plain escape (\d) or a bracket class without nested brackets.
_POSSESSIVE_COUNT = re.compile(r"(\\[pP]\{[^}]*\}|\\.|\[(?:\\.|[^\]\\])*\])(\{\d+(?:,\d*)?\})\+")


def hf_pattern(pat_str: str) -> str:
    """`pat_str` rewritten so Oniguruma splits as the `regex` module does."""
    return _POSSESSIVE_COUNT.sub(r"(?>\1\2)", pat_str)


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
            "vocab": {text(t): i for t, i in sorted(ranks.items(), key=lambda kv: kv[1])},
            "merges": [[text(a), text(b)] for a, b in merges_from_ranks(ranks)],
        },
    }


def save(encoding: Encoding, path: str | os.PathLike[str]) -> None:
    """Writes `encoding` as an HF tokenizer.json, atomically.

    Raises:
        ValueError: the ranks are not a BPE vocabulary (see merges_from_ranks).
        OSError: the file cannot be written.
    """
    data = json.dumps(to_dict(encoding), ensure_ascii=False, indent=1)
    write_atomic(path, data.encode("utf-8"))
