"""The native path for SentencePiece-style tokenizer.json files (Mistral, Gemma, converted
`.model`s): one C++ pass, `tokenforge._native.SpmStyleEncoder`, gives ids, tokens, character
offsets and word ids, as the readable pipeline (:mod:`tokenforge.tokenizer.pipeline`) does.

A file takes it when its pipeline is exactly:

* normalizer: none, ``Prepend("▁")``, ``Replace(" " -> "▁")``, or a ``Sequence`` of those two
  (each at most once, either order: they commute);
* pre-tokenizer: none, or ``Metaspace`` with replacement ``▁`` (any prepend scheme, split or not);
* model: ``BPE`` without dropout, ``continuing_subword_prefix``, ``end_of_word_suffix`` or
  ``ignore_merges``, whose characters are never dropped: an unknown token in the vocab, or
  ``byte_fallback`` with a ``<0xXX>`` token for each byte a character without a token needs;
* added tokens: all matched in the raw text (``normalized: false``), none with ``lstrip``,
  ``rstrip`` or ``single_word``, each spelled as its vocab entry when it has one.

Post-processing, truncation and padding stay in Python, as for every file.  Anything else —
``Precompiled`` (ruT5, most converted `.model`s), regex ``Replace``, Unigram — runs on the
Python pipeline.

Example:
    >>> from tokenforge.models import BPE
    >>> NativeSpm.build(__import__("tokenforge").Tokenizer(BPE({"a": 0}, []))) is None  # no unk
    True
"""

from __future__ import annotations

import numpy as np

from tokenforge import _native
from tokenforge.models.bpe import BPE
from tokenforge.normalizers import Prepend, Replace
from tokenforge.normalizers import Sequence as NormSeq
from tokenforge.pre_tokenizers.metaspace import SCHEMES, Metaspace
from tokenforge.tokenizer.encoding import Encoding, NativeEncoding
from tokenforge.tokenizer.native import _check_surrogates

MARK = "\u2581"


def _marking(tok) -> dict | None:
    """The SpaceMarking options of tok's normalizer and pre-tokenizer, or None."""
    norm = tok.normalizer
    steps = norm.normalizers if isinstance(norm, NormSeq) else ([] if norm is None else [norm])
    out = {"prepend": False, "replace_spaces": False, "metaspace_prepend": 0, "split": False}
    for n in steps:
        if type(n) is Prepend and n.prepend == MARK and not out["prepend"]:
            out["prepend"] = True
        elif type(n) is Replace and n.pattern == {"String": " "} and n.content == MARK and not out["replace_spaces"]:
            out["replace_spaces"] = True
        else:
            return None
    pre = tok.pre_tokenizer
    if pre is not None:
        if type(pre) is not Metaspace or pre.replacement != MARK:
            return None
        out["replace_spaces"] = True
        out["metaspace_prepend"] = {"never": 0, "always": 1, "first": 2}[pre.prepend_scheme]
        out["split"] = bool(pre.split_)
    return out


def _model_ok(model) -> bool:
    return (type(model) is BPE and not model.dropout and not model.continuing_subword_prefix
            and not model.end_of_word_suffix and not model.ignore_merges)


class NativeSpm:
    """The C++ pipeline of one tokenizer (module docstring)."""

    def __init__(self, engine) -> None:
        self.engine = engine

    @classmethod
    def build(cls, tok) -> "NativeSpm | None":
        """The native path for `tok`, or None when its pipeline is not one it runs."""
        model = getattr(tok, "model", None)
        if not _model_ok(model):
            return None
        marking = _marking(tok)
        if marking is None:
            return None
        vocab_r = model.vocab_r
        added = []
        for i, t in tok.added.tokens.items():
            if t.normalized or t.lstrip or t.rstrip or t.single_word:
                return None
            if vocab_r.get(i, t.content) != t.content:
                return None
            added.append((t.content, i))
        size = max([max(vocab_r, default=-1), *(i for _, i in added)]) + 1
        vocab = [""] * (max(vocab_r, default=-1) + 1)
        for i, t in vocab_r.items():
            vocab[i] = t
        strs = vocab + [""] * (size - len(vocab))
        for c, i in added:
            strs[i] = c
        v = model.vocab
        triples = np.array([(v[a], v[b], m) for (a, b), m in zip(model.merges, model.merged_ids)],
                           dtype=np.uint32).reshape(-1, 3)
        unk = v.get(model.unk_token, -1) if model.unk_token is not None else -1
        if model.unk_token is not None and unk < 0:
            return None  # tokenizers fails on the first unknown character: the Python path says so
        try:
            engine = _native.SpmStyleEncoder(vocab, triples.tobytes(), unk, model.fuse_unk, model.byte_fallback,
                                             marking["prepend"], marking["replace_spaces"],
                                             marking["metaspace_prepend"], marking["split"], added, strs)
        except ValueError:  # no unknown token and incomplete byte fallback
            return None
        return cls(engine)

    def encode(self, text: str, type_id: int = 0) -> Encoding:
        """The Encoding of one text before post-processing.

        Raises:
            ValueError: a lone surrogate in the text.
        """
        _check_surrogates(text)
        return _encoding(*self.engine.encode(text), type_id)

    def encode_batch(self, texts: list[str], threads: int) -> list[Encoding]:
        """Encodings of many texts, on native threads."""
        for t in texts:
            _check_surrogates(t)
        return [_encoding(ids, tokens, offsets, words, 0) for ids, tokens, offsets, words in
                self.engine.encode_batch(texts, threads)]

    def ids_batch(self, texts: list[str], threads: int) -> list[list[int]]:
        """Ids of many texts, on native threads."""
        for t in texts:
            _check_surrogates(t)
        return self.engine.encode_ids_batch(texts, threads)


def _encoding(ids: list[int], tokens: list[str], offsets: list, words: list[int], type_id: int) -> Encoding:
    """An Encoding of the engine's lists; its masks are made when first read."""
    e = NativeEncoding(ids, tokens, offsets, None, [type_id] * len(ids))
    e.word_ids = words
    return e


_ = SCHEMES  # Metaspace validates its scheme; the table above covers all of SCHEMES
