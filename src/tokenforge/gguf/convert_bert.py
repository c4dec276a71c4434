"""GGUF ``bert`` metadata from a WordPiece ``tokenizer.json`` (BERT and its kin), laid out as
llama.cpp's converter does.

Each token goes into llama.cpp's "phantom space" form: ``##ing`` -> ``ing``, ``[CLS]`` kept,
any other ``word`` -> ``▁word``; added tokens are CONTROL (special) or USER_DEFINED, ids no
token holds are ``[PAD<id>]`` UNUSED.  The [CLS], [SEP], [UNK], [PAD] and [MASK] ids are
written (``cls`` also as ``bos``: llama.cpp's WPM adds its bos id in front).

llama.cpp's WPM tokenizer always lowercases, always strips accents and splits as
BertPreTokenizer does (see :mod:`.wordpiece`), so a file whose pipeline does otherwise -- a
cased BERT, another normalizer or pre-tokenizer, a continuation prefix other than ``##`` --
would encode differently under llama.cpp and is refused with a ``ValueError``.

What this module leaves out: the remaining differences between llama.cpp's WPM and HF's
pipeline on unusual text (listed in :mod:`.wordpiece`); truncation and padding settings.

Example:
    >>> j = {"model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
    ...                "vocab": {"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, "un": 3, "##able": 4}},
    ...      "normalizer": {"type": "BertNormalizer", "lowercase": True}, "pre_tokenizer": {"type": "BertPreTokenizer"}}
    >>> v = vocab_from_wordpiece(j)
    >>> v.tokens, v.special_ids
    (['[UNK]', '[CLS]', '[SEP]', '▁un', 'able'], {'unk': 0, 'cls': 1, 'bos': 1, 'sep': 2})
"""

from __future__ import annotations

import json
import os

from tokenforge.gguf.vocab import GGUFVocab, TokenType
from tokenforge.gguf.wordpiece import PHANTOM


def phantom(token: str) -> str:
    """A WordPiece token in llama.cpp's phantom-space form.

    >>> phantom("##ing"), phantom("the"), phantom("[SEP]")
    ('ing', '▁the', '[SEP]')
    """
    if token.startswith("[") and token.endswith("]"):
        return token
    if token.startswith("##"):
        return token[2:]
    return PHANTOM + token


def vocab_from_wordpiece(path: str | os.PathLike[str] | dict, *, name: str | None = None) -> GGUFVocab:
    """The GGUF ``bert`` description of a WordPiece ``tokenizer.json``.

    Args:
        path: the ``tokenizer.json``, or its parsed JSON.
        name: ``general.name``.

    Raises:
        OSError: the file cannot be read.
        ValueError: not a WordPiece file, or a pipeline llama.cpp's WPM would not follow
            (module docstring).
    """
    where = "tokenizer.json" if isinstance(path, dict) else os.fspath(path)
    try:
        j = path if isinstance(path, dict) else json.loads(open(path, encoding="utf-8").read())
        model = j["model"]
        if model.get("type") != "WordPiece":
            raise ValueError(f"{where}: a {model.get('type')!r} model, not WordPiece")
        vocab = dict(model["vocab"])
        added = {a["content"]: (a["id"], bool(a.get("special", False))) for a in j.get("added_tokens") or []}
    except (json.JSONDecodeError, KeyError, TypeError, AttributeError) as e:
        raise ValueError(f"{where}: not a tokenizer.json ({type(e).__name__}: {e})") from None
    _check_pipeline(j, model, where)
    n = max(list(vocab.values()) + [i for i, _ in added.values()]) + 1
    tokens, types = [f"[PAD{i}]" for i in range(n)], [int(TokenType.UNUSED)] * n
    for text, i in vocab.items():
        tokens[i], types[i] = phantom(text), int(TokenType.NORMAL)
    for text, (i, special) in added.items():
        tokens[i], types[i] = phantom(text), int(TokenType.CONTROL if special else TokenType.USER_DEFINED)
    ids = {**vocab, **{t: i for t, (i, _) in added.items()}}
    specials: dict[str, int] = {}
    unk = model.get("unk_token", "[UNK]")
    if unk in ids:
        specials["unk"] = ids[unk]
    cls, sep = _cls_sep(j.get("post_processor"))
    for short, text in (("cls", cls), ("bos", cls), ("sep", sep), ("pad", (j.get("padding") or {}).get("pad_token", "[PAD]")),
                        ("mask", "[MASK]")):
        if text in ids:
            specials[short] = ids[text]
    if "unk" not in specials:
        raise ValueError(f"{where}: the unk_token {unk!r} is not in the vocabulary (llama.cpp's WPM needs one)")
    return GGUFVocab(model="bert", pre="default", tokens=tokens, token_types=types, special_ids=specials,
                     architecture="bert", name=name)


def _check_pipeline(j: dict, model: dict, where: str) -> None:
    prefix = model.get("continuing_subword_prefix", "##")
    if prefix != "##":
        raise ValueError(f"{where}: continuing_subword_prefix {prefix!r}: llama.cpp's bert vocabulary knows only '##'")
    norm = j.get("normalizer") or {}
    if norm.get("type") != "BertNormalizer" or not norm.get("lowercase", True) or norm.get("strip_accents") is False:
        raise ValueError(f"{where}: normalizer {norm.get('type')!r} (lowercase={norm.get('lowercase')}, strip_accents="
                         f"{norm.get('strip_accents')}): llama.cpp's WPM always lowercases and strips accents as a "
                         "lowercasing BertNormalizer does, so it would encode this file differently")
    pre = (j.get("pre_tokenizer") or {}).get("type")
    if pre != "BertPreTokenizer":
        raise ValueError(f"{where}: pre-tokenizer {pre!r}: llama.cpp's WPM splits as BertPreTokenizer, so it would "
                         "encode this file differently")


def _cls_sep(post: dict | None) -> tuple[str, str]:
    """The [CLS] and [SEP] texts a BertProcessing / TemplateProcessing adds (BERT's by default)."""
    if post and post.get("type") == "BertProcessing":
        return post["cls"][0], post["sep"][0]
    if post and post.get("type") == "TemplateProcessing":
        single = [s["SpecialToken"]["id"] for s in post.get("single", []) if "SpecialToken" in s]
        if len(single) == 2:
            return single[0], single[1]
    return "[CLS]", "[SEP]"
