"""The Hugging Face pipeline a ``t5`` or ``bert`` GGUF stands for, used to align offsets.

:meth:`tokenforge.Tokenizer.from_gguf` gives llama.cpp's ids; its offsets for ``t5`` and
``bert`` are worked out from the engine (:mod:`.tokenizer_face`), which agrees with HF
``tokenizers`` on ordinary text but not on every adversarial line: a charsmap expansion cut
across tokens (``‼`` -> ``!`` ``!``, ``ǋ`` -> ``N`` ``j``), a character the charsmap deletes
next to a token, ``´``/``‾`` (a space and a mark after NFKC), [UNK] words full of combining
marks.  There `tokenizers` aligns by its own rules (each normalized character keeps the
span of the source character it came from; a deleted one joins no token; ...).  This module
builds the ``tokenizer.json`` pipeline the GGUF mirrors and runs it on tokenforge's own
``tokenizer.json`` engine (exact against `tokenizers`, offsets included); where its ids
equal llama.cpp's, its offsets are taken.

- ``t5``: ``Precompiled`` charsmap, ``Replace(" {2,}" -> " ")`` when the file collapses
  spaces, ``Metaspace`` (prefix ``always`` with ``add_space_prefix``, else ``never``),
  ``Unigram`` over the tokens and scores;
- ``bert``: ``BertNormalizer`` (lowercase, as llama.cpp always lowercases),
  ``BertPreTokenizer``, ``WordPiece`` over the tokens taken back from llama.cpp's phantom-space
  form (``▁the`` -> ``the``, ``ing`` -> ``##ing``, ``[CLS]`` kept).

What this module leaves out: ids.  Where the two pipelines give different ids (their rules
differ there, see :mod:`.wordpiece` and :mod:`.spm_json_pipeline`) the engine's own spans
stay.

Example:
    >>> from tokenforge.gguf.vocab import GGUFVocab
    >>> v = GGUFVocab(model="bert", tokens=["[UNK]", "▁un", "aff", "able"], special_ids={"unk": 0})
    >>> mirror_json(v)["model"]["vocab"]
    {'[UNK]': 0, 'un': 1, '##aff': 2, '##able': 3}
"""

from __future__ import annotations

import base64
import json

from tokenforge.gguf.vocab import GGUFVocab
from tokenforge.gguf.wordpiece import PHANTOM


def mirror_json(vocab: GGUFVocab, unk: int | None = None) -> dict | None:
    """The ``tokenizer.json`` (as a dict) of the HF pipeline a t5 or bert vocabulary mirrors,
    or None for other models."""
    base = {"version": "1.0", "truncation": None, "padding": None, "added_tokens": [], "post_processor": None,
            "decoder": None}
    unk = vocab.special_ids.get("unk") if unk is None else unk
    if vocab.model == "t5":
        steps = []
        if vocab.precompiled_charsmap:
            steps.append({"type": "Precompiled",
                          "precompiled_charsmap": base64.b64encode(vocab.precompiled_charsmap).decode("ascii")})
        if vocab.remove_extra_whitespaces:
            steps.append({"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "})
        scheme = "always" if vocab.add_space_prefix else "never"
        scores = vocab.scores or [0.0] * vocab.n_tokens
        return {**base, "normalizer": {"type": "Sequence", "normalizers": steps} if steps else None,
                "pre_tokenizer": {"type": "Metaspace", "replacement": PHANTOM, "prepend_scheme": scheme, "split": True},
                "model": {"type": "Unigram", "unk_id": unk, "byte_fallback": False,
                          "vocab": [[t, float(s)] for t, s in zip(vocab.tokens, scores)]}}
    if vocab.model == "bert":
        words: dict[str, int] = {}
        for i, t in enumerate(vocab.tokens):
            words.setdefault(_unphantom(t), i)
        unk_token = vocab.tokens[unk] if unk is not None and 0 <= unk < vocab.n_tokens else "[UNK]"
        return {**base, "normalizer": {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
                                       "strip_accents": None, "lowercase": True},
                "pre_tokenizer": {"type": "BertPreTokenizer"},
                "model": {"type": "WordPiece", "unk_token": unk_token, "continuing_subword_prefix": "##",
                          "max_input_chars_per_word": 100, "vocab": words}}
    return None


def _unphantom(token: str) -> str:
    if token.startswith(PHANTOM):
        return token[1:]
    if token.startswith("[") and token.endswith("]"):
        return token
    return "##" + token


def mirror_tokenizer(vocab: GGUFVocab, unk: int | None = None):
    """tokenforge's :class:`~tokenforge.Tokenizer` over :func:`mirror_json`, or None."""
    j = mirror_json(vocab, unk)
    if j is None:
        return None
    from tokenforge.tokenizer import Tokenizer

    return Tokenizer.from_str(json.dumps(j))
