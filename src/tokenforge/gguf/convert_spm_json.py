"""GGUF ``llama`` / ``t5`` metadata from a SentencePiece-style ``tokenizer.json``: a BPE with
byte fallback over ``▁``-spaced text (Llama 2, Mistral, Gemma) or a Unigram (T5), as HF's
converters and :meth:`tokenforge.Tokenizer.from_sentencepiece` write them.

- Tokens by id: the vocabulary and the added tokens; ids no token holds are ``[PAD<id>]``.
- Types: special added tokens CONTROL (the unknown token UNKNOWN), other added tokens
  USER_DEFINED, ``<0xXX>`` BYTE (with byte fallback), the rest NORMAL.
- Scores.  ``t5``: the Unigram's own.  ``llama``: llama.cpp merges the adjacent pair whose
  joined token scores highest, where HF merges the pair ranked first in ``merges``; a token
  made by merge ``r`` (its first) scores ``-r``, so the two agree when (checked here, else
  ``ValueError``) every split of a token into two tokens is a merge, and the merges making
  one token are contiguous.  HF's SentencePiece converters write such lists.  Tokens no
  merge makes score below every merge (``-(n_merges + id)``); special, user-defined and byte
  tokens 0.  (llama.cpp's own ``LlamaHfVocab`` writes -1000 for every token, which merges
  left to right instead; it is for models that also ship a ``tokenizer.model``.)
- Whitespace flags and the charsmap from the pipeline (:mod:`.spm_json_pipeline`); unk from
  the model, BOS/EOS from the post-processor's template (written ``add_bos_token`` /
  ``add_eos_token``), else ``<s>``/``<bos>`` and ``</s>``/``<eos>`` by name, ``<pad>``.

Refused with a ``ValueError`` saying why: a BPE without byte fallback, with a word prefix or
suffix, dropout or ``ignore_merges``; added tokens with ``lstrip``/``rstrip``/``single_word``
or, when ``normalized``, holding a space; a split-by-word ``Metaspace`` over a vocabulary with
``▁`` inside tokens; anything :mod:`.spm_json_pipeline` refuses.

Example:
    >>> j = {"model": {"type": "BPE", "byte_fallback": True, "unk_token": "<unk>",
    ...                "vocab": {"<unk>": 0, "▁": 1, "a": 2, "▁a": 3}, "merges": ["▁ a"]},
    ...      "normalizer": {"type": "Replace", "pattern": {"String": " "}, "content": "▁"},
    ...      "added_tokens": [{"id": 0, "content": "<unk>", "special": True}]}
    >>> v = vocab_from_spm_json(j)
    >>> v.model, v.scores, v.token_types, v.add_space_prefix
    ('llama', [0.0, -2.0, -3.0, 0.0], [2, 1, 1, 1], False)
"""

from __future__ import annotations

import json
import os
import re

from tokenforge.gguf.spm_json_pipeline import SPACE, space_rules, template_specials
from tokenforge.gguf.vocab import GGUFVocab, TokenType

_BYTE = re.compile(r"<0x[0-9A-F]{2}>")
_BOS_NAMES, _EOS_NAMES = ("<s>", "<bos>"), ("</s>", "<eos>")


def is_spm_style(j: dict) -> bool:
    """Whether a tokenizer.json writes spaces as ``▁`` (SentencePiece's way) rather than
    through GPT-2's byte alphabet: a Unigram, or a BPE with no ByteLevel step whose pipeline
    names ``▁`` or that falls back to bytes.

    >>> is_spm_style({"model": {"type": "BPE", "byte_fallback": True}, "decoder": {"type": "ByteFallback"}})
    True
    """
    model = j.get("model") or {}
    if model.get("type") == "Unigram":
        return True
    steps = json.dumps([j.get("normalizer"), j.get("pre_tokenizer")], ensure_ascii=False)
    if model.get("type") != "BPE" or '"ByteLevel"' in steps + json.dumps(j.get("decoder")):
        return False
    return bool(model.get("byte_fallback")) or SPACE in steps


def _load(path: str | os.PathLike[str] | dict) -> tuple[dict, str]:
    where = "tokenizer.json" if isinstance(path, dict) else os.fspath(path)
    if isinstance(path, dict):
        return path, where
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f), where
    except json.JSONDecodeError as e:
        raise ValueError(f"{where}: not JSON ({e})") from None


def vocab_from_spm_json(path: str | os.PathLike[str] | dict, *, name: str | None = None) -> GGUFVocab:
    """The GGUF ``llama`` (BPE) or ``t5`` (Unigram) description of a SentencePiece-style
    ``tokenizer.json`` (module docstring).

    Args:
        path: the ``tokenizer.json``, or its parsed JSON.
        name: ``general.name``.

    Raises:
        OSError: the file cannot be read.
        ValueError: not a BPE or Unigram tokenizer.json, or one llama.cpp would encode
            differently (the message says what).
    """
    j, where = _load(path)
    try:
        model = j["model"]
        kind = {"BPE": "llama", "Unigram": "t5"}.get(model.get("type"))
        if kind is None:
            raise ValueError(f"{where}: a {model.get('type')!r} model, not a SentencePiece-style BPE or Unigram")
        if kind == "llama":
            vocab, scores = dict(model["vocab"]), None
            merges = [tuple(m.split(" ", 1)) if isinstance(m, str) else tuple(m) for m in model["merges"]]
        else:
            pairs = [(str(p), float(s)) for p, s in model["vocab"]]
            vocab, scores, merges = {}, [s for _, s in pairs], []
            for i, (p, _) in enumerate(pairs):
                vocab.setdefault(p, i)
        added = [(int(a["id"]), str(a["content"]), a) for a in j.get("added_tokens") or []]
    except (KeyError, TypeError, AttributeError, ValueError) as e:
        if isinstance(e, ValueError) and str(e).startswith(where):
            raise
        raise ValueError(f"{where}: not a tokenizer.json ({type(e).__name__}: {e})") from None
    try:
        rules = space_rules(j, kind)
        _check_model(model, kind)
        _check_added(added, rules)
    except ValueError as e:
        raise ValueError(f"{where}: {e}") from None
    n = max(list(vocab.values()) + [i for i, _, _ in added] + ([len(scores) - 1] if scores else [])) + 1
    tokens = [f"[PAD{i}]" for i in range(n)]
    types = [int(TokenType.UNUSED)] * n
    for text, i in vocab.items():
        tokens[i], types[i] = text, int(TokenType.NORMAL)
    byte_fallback = bool(model.get("byte_fallback"))
    if byte_fallback:
        for i, t in enumerate(tokens):
            if types[i] == TokenType.NORMAL and _BYTE.fullmatch(t):
                types[i] = int(TokenType.BYTE)
    unk = _unk_id(model, kind, vocab, n)
    for i, text, a in added:
        tokens[i] = text
        types[i] = int(TokenType.CONTROL if a.get("special") else TokenType.USER_DEFINED)
    if unk is not None:
        types[unk] = int(TokenType.UNKNOWN)
    if kind == "llama":
        # HF matches a user-defined token in the raw text, where a ▁ is never a space: one
        # spelled with ▁ (Gemma's runs of spaces) only comes out of the merges, as ordinary tokens do.
        types = [int(TokenType.NORMAL) if t == TokenType.USER_DEFINED and SPACE in tokens[i] else t
                 for i, t in enumerate(types)]
    if rules.split_words and kind == "llama":
        inner = [t for i, t in enumerate(tokens) if types[i] == TokenType.NORMAL and SPACE in t[1:]]
        if inner:
            raise ValueError(f"{where}: the Metaspace pre-tokenizer encodes each ▁word alone, but tokens such as "
                             f"{inner[0]!r} hold a ▁ inside: llama.cpp, which encodes the whole text, would use them")
    if kind == "llama":
        try:
            scores = bpe_scores(tokens, types, merges)
        except ValueError as e:
            raise ValueError(f"{where}: {e}") from None
    else:
        scores = scores + [0.0] * (n - len(scores))  # added tokens past the Unigram's pieces
    ids = {t: i for i, t in reversed(list(enumerate(tokens)))}
    try:
        bos, eos = template_specials(j.get("post_processor"), ids)
    except ValueError as e:
        raise ValueError(f"{where}: {e}") from None
    special_ids = {} if unk is None else {"unk": unk}
    special = {text for _, text, a in added if a.get("special")}
    for short, found, names in (("bos", bos, _BOS_NAMES), ("eos", eos, _EOS_NAMES), ("pad", None, ("<pad>",))):
        found = found if found is not None else next((ids[t] for t in names if t in special), None)
        if found is not None:
            special_ids[short] = found
    return GGUFVocab(model=kind, pre="default" if kind == "llama" else None, tokens=tokens, scores=scores,
                     token_types=types, special_ids=special_ids, add_bos=bos is not None, add_eos=eos is not None,
                     add_space_prefix=rules.add_space_prefix,
                     remove_extra_whitespaces=rules.remove_extra_whitespaces if kind == "t5" else None,
                     precompiled_charsmap=rules.charsmap, architecture="llama" if kind == "llama" else "t5",
                     name=name)


def _check_model(model: dict, kind: str) -> None:
    if kind == "t5":
        return
    lost = [f"{what} {model.get(key)!r}" for what, key in (
        ("continuing_subword_prefix", "continuing_subword_prefix"), ("end_of_word_suffix", "end_of_word_suffix"),
        ("dropout", "dropout")) if model.get(key)]
    if model.get("ignore_merges"):
        lost.append("ignore_merges")
    if lost:
        raise ValueError(f"llama.cpp's SentencePiece BPE has no {', '.join(lost)}")
    if not model.get("byte_fallback"):
        raise ValueError("a BPE without byte_fallback: HF writes unknown characters as unk tokens where llama.cpp's "
                         "SentencePiece BPE ('llama') spells them as <0xXX> byte tokens")


def _check_added(added: list, rules) -> None:
    for _, text, a in added:
        flags = [f for f in ("lstrip", "rstrip", "single_word") if a.get(f)]
        if flags:
            raise ValueError(f"added token {text!r} has {', '.join(flags)}: llama.cpp matches special tokens as they are")
        if a.get("normalized") and (" " in text or SPACE in text or rules.charsmap):
            raise ValueError(f"added token {text!r} is matched after normalization: llama.cpp matches it in the raw text")


def _unk_id(model: dict, kind: str, vocab: dict[str, int], n: int) -> int | None:
    if kind == "t5":
        unk = model.get("unk_id")
        return unk if isinstance(unk, int) and 0 <= unk < n else None
    return vocab.get(model.get("unk_token") or "")


def bpe_scores(tokens: list[str], types: list[int], merges: list[tuple[str, str]]) -> list[float]:
    """Scores under which merging by score (llama.cpp, sentencepiece) merges as HF's ranked
    `merges` do (module docstring).

    Merges that join or make special or user-defined tokens are left out: HF cuts those out
    of the text before the model runs, so they never fire.

    Raises:
        ValueError: a merge joins or makes a byte token or none, a split of a token is not a
            merge, or the merges of one token are not contiguous.

    >>> bpe_scores(["a", "b", "ab", "c", "abc"], [1] * 5, [("a", "b"), ("ab", "c")])
    [-2.0, -3.0, 0.0, -5.0, -1.0]
    """
    ids = {t: i for i, t in reversed(list(enumerate(tokens)))}
    normal = {t for t, i in ids.items() if types[i] == TokenType.NORMAL}
    first: dict[str, int] = {}  # token -> rank of the first merge making it
    made: dict[str, set[str]] = {}  # token -> the left halves of the merges making it
    previous = None
    for r, (a, b) in enumerate(merges):
        t = a + b
        if not (a in normal and b in normal and t in normal):
            if any(x not in ids or types[ids[x]] == TokenType.BYTE for x in (a, b, t)):
                raise ValueError(f"merge {a!r} {b!r} (rank {r}) joins or makes a byte token or one the vocabulary "
                                 "lacks")
            continue  # special and user-defined tokens are cut out of the text first: never merged
        if t != previous and t in first:
            raise ValueError(f"the merges making {t!r} are not contiguous (ranks {first[t]} and {r}): llama.cpp "
                             "ranks a merge by the token it makes, so it would merge in another order")
        first.setdefault(t, r)
        made.setdefault(t, set()).add(a)
        previous = t
    for t in normal:
        halves = made.get(t, ())
        for k in range(1, len(t)):
            if t[:k] in normal and t[k:] in normal and t[:k] not in halves:
                raise ValueError(f"{t[:k]!r} + {t[k:]!r} make the token {t!r} but are not a merge: llama.cpp merges "
                                 "any two tokens that make a third")
    n = len(merges)
    return [float(-first[t]) if t in first else (float(-(n + i)) if types[i] == TokenType.NORMAL else 0.0)
            for i, t in enumerate(tokens)]
