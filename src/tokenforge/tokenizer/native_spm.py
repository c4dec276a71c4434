"""The native path for SentencePiece-style tokenizer.json files (Mistral, Gemma, ruT5,
converted `.model`s): one C++ pass, `tokenforge._native.SpmStyleEncoder`, gives ids, tokens,
character offsets and word ids, as the readable pipeline (:mod:`tokenforge.tokenizer.pipeline`)
does.

A file takes it when its pipeline is exactly:

* normalizer: in this order, each optional: steps that run ahead of the encoder in Python
  (NFD/NFKD/NFC/NFKC, Lowercase, StripAccents, ``Replace`` of a plain string: ALBERT's and
  XLNet's; :mod:`tokenforge.tokenizer.spm_prechain`), ``Precompiled`` (a charsmap), ``Replace`` of the
  regex ``" {2,}"`` by ``" "``, ``Replace`` of a space at either end by nothing (the regex
  :mod:`tokenforge.tokenizer.from_sentencepiece` writes), then ``Prepend("▁")`` and
  ``Replace(" " -> "▁")`` (either order: they commute) — alone or as a ``Sequence``;
* pre-tokenizer: none, or ``Metaspace`` with replacement ``▁`` (any prepend scheme, split or not),
  alone or after ``WhitespaceSplit`` (T5's and DeBERTa's files: each run without White_Space
  a stretch of its own) when the normalizer has no ``▁`` step; or ``Whitespace`` (the
  `tokenizers` quicktour's: each run of word characters and each run of other non-space
  characters a stretch) without ``▁`` steps;
* model: ``BPE`` without dropout, ``continuing_subword_prefix``, ``end_of_word_suffix`` or
  ``ignore_merges``, whose characters are never dropped: an unknown token in the vocab, or
  ``byte_fallback`` with a ``<0xXX>`` token for each byte a character without a token needs;
  or ``Unigram`` with an ``unk_id`` and no ``byte_fallback`` or sampling (``alpha``);
* added tokens: all matched in the raw text (``normalized: false``), each spelled as its vocab
  entry when it has one.  Those with ``lstrip``, ``rstrip`` or ``single_word`` are not matched
  by the encoder: a text holding one takes the Python pipeline, as does, with steps ahead of
  the encoder, a text holding any added token (the encoder sees the text normalized).

With a charsmap, the C++ applies it grapheme by grapheme as `tokenizers` does; only a text
in which the charsmap deletes a character first in a stretch (or right after a replacement
that lengthens its character) takes the Python pipeline, whose alignment of it a byte's one
original character cannot hold (cpp/pipeline/hf_spm_encoder.h).
Single texts without truncation come back finished (:meth:`NativeSpm.encode_final`, one text
:meth:`NativeSpm.encode_final_one`, without offsets :meth:`NativeSpm.encode_final_fast`): a
template's special tokens (Mistral's BOS, ruT5's EOS) framed in C++, each list of the Encoding
built when first read (:mod:`tokenforge.tokenizer.doc_encoding`); padding applies to them as to
any Encoding.  A pair's texts are encoded alone, unframed, and laid out by the pair template in
:mod:`tokenforge.tokenizer.pair_encoding`; truncation cuts the documents (DocEncoding.cut).  Lone
surrogates raise ValueError (the engine finds them in the batch paths).  Anything else —
regex ``Replace`` of other patterns, ``Strip``, a Unicode form after the charsmap, other
pre-tokenizers — runs on the Python pipeline.

Example:
    >>> from tokenforge.models import BPE
    >>> NativeSpm.build(__import__("tokenforge").Tokenizer(BPE({"a": 0}, []))) is None  # no unk
    True
"""

from __future__ import annotations

import base64

import numpy as np

from tokenforge import _native
from tokenforge.models.bpe import BPE
from tokenforge.models.unigram import Unigram
from tokenforge.normalizers import Precompiled, Prepend, Replace
from tokenforge.normalizers import Sequence as NormSeq
from tokenforge.pre_tokenizers import Sequence as PreSeq
from tokenforge.pre_tokenizers import Whitespace, WhitespaceSplit
from tokenforge.pre_tokenizers.metaspace import SCHEMES, Metaspace
from tokenforge.tokenizer.doc_encoding import DocEncoding, frame_args, frame_docs, padded_field, single_template
from tokenforge.tokenizer.encoding import Encoding, NativeEncoding
from tokenforge.tokenizer.from_sentencepiece import _EDGE_SPACES as _EDGES
from tokenforge.tokenizer.from_sentencepiece import _SPACE_RUNS as _RUNS
from tokenforge.tokenizer.native import _check_surrogates
from tokenforge.tokenizer.native_splits import whitespace_classes
from tokenforge.tokenizer.spm_prechain import PreChain, is_pre_step, through

MARK = "\u2581"


def _marking(tok) -> dict | None:
    """The normalization options of tok's normalizer and pre-tokenizer, or None."""
    norm = tok.normalizer
    steps = norm.normalizers if isinstance(norm, NormSeq) else ([] if norm is None else [norm])
    out = {"charsmap": b"", "collapse_spaces": False, "strip_edges": False, "prepend": False,
           "replace_spaces": False, "metaspace_prepend": 0, "split": False, "split_words": 0, "pre": []}
    stage = 0  # 0: a charsmap may come, 1: space collapsing, 2: edge spaces, 3: only the ▁ steps
    for k, n in enumerate(steps):
        if stage == 0 and len(out["pre"]) == k and is_pre_step(n):
            out["pre"].append(n)  # ahead of everything the encoder runs (spm_prechain.py)
        elif type(n) is Precompiled and stage == 0:
            out["charsmap"] = base64.b64decode(n.precompiled_charsmap) if n.charsmap is not None else b""
            stage = 1
        elif type(n) is Replace and n.pattern == _RUNS and n.content == " " and stage <= 1:
            out["collapse_spaces"], stage = True, 2
        elif type(n) is Replace and n.pattern == _EDGES and n.content == "" and stage <= 2:
            out["strip_edges"], stage = True, 3
        elif type(n) is Prepend and n.prepend == MARK and not out["prepend"]:
            out["prepend"], stage = True, 3
        elif type(n) is Replace and n.pattern == {"String": " "} and n.content == MARK and not out["replace_spaces"]:
            out["replace_spaces"], stage = True, 3
        else:
            return None
    pre = tok.pre_tokenizer
    if type(pre) is PreSeq and len(pre.pretokenizers) == 2 and type(pre.pretokenizers[0]) is WhitespaceSplit:
        if out["prepend"] or out["replace_spaces"]:
            return None  # the normalizer's ▁ steps run before the split: no whitespace is left to split at
        out["split_words"] = 1  # T5's and DeBERTa's: each word alone, then Metaspace
        pre = pre.pretokenizers[1]
    elif type(pre) is Whitespace:
        if out["prepend"] or out["replace_spaces"]:
            return None
        out["split_words"] = 2  # the tokenizers quicktour's: runs of word characters, runs of others
        pre = None
    if pre is not None:
        if type(pre) is not Metaspace or pre.replacement != MARK:
            return None
        out["replace_spaces"] = True
        out["metaspace_prepend"] = {"never": 0, "always": 1, "first": 2}[pre.prepend_scheme]
        out["split"] = bool(pre.split_)
    return out


def merge_triples(model: BPE) -> bytes:
    """A BPE model's merges as the native engines take them: (left, right, merged) uint32
    triples in rank order."""
    return np.ascontiguousarray(np.array(model.merge_ids, dtype=np.uint32).T).tobytes()


def _model_args(model) -> dict | None:
    """The engine's model arguments for a BPE or Unigram model it runs, or None."""
    if type(model) is Unigram:
        if model.unk_id is None or model.byte_fallback or model.alpha:
            return None
        return {"vocab": [], "merges": b"", "unk_id": model.unk_id, "fuse_unk": True, "byte_fallback": False,
                "unigram": model.pieces, "is_unigram": True}
    if (type(model) is not BPE or model.dropout or model.continuing_subword_prefix or model.end_of_word_suffix
            or model.ignore_merges):
        return None
    v = model.vocab
    unk = v.get(model.unk_token, -1) if model.unk_token is not None else -1
    if model.unk_token is not None and unk < 0:
        return None  # tokenizers fails on the first unknown character: the Python path says so
    vocab = [""] * (max(model.vocab_r, default=-1) + 1)
    for i, t in model.vocab_r.items():
        vocab[i] = t
    return {"vocab": vocab, "merges": merge_triples(model), "unk_id": unk, "fuse_unk": model.fuse_unk,
            "byte_fallback": model.byte_fallback, "unigram": [], "is_unigram": False}


class NativeSpm:
    """The C++ pipeline of one tokenizer (module docstring)."""

    def __init__(self, engine, template, chain: PreChain | None = None) -> None:
        self.engine, self.template, self.chain = engine, template, chain
        self._frames = {}  # add_special_tokens -> (the engine's frame, DocEncoding's shape)
        if template is not None:
            for special in (True, False):
                frame, shape = frame_args(template, special)
                self._frames[special] = (engine.frame(*frame), shape)

    @classmethod
    def build(cls, tok) -> "NativeSpm | None":
        """The native path for `tok`, or None when its pipeline is not one it runs."""
        model = getattr(tok, "model", None)
        marking = _marking(tok)
        args = _model_args(model) if marking is not None else None
        if args is None:
            return None
        pre = marking.pop("pre")
        texts = dict(enumerate(p for p, _ in model.pieces)) if args["is_unigram"] else model.vocab_r
        added, guarded = [], []
        for i, t in tok.added.tokens.items():
            if t.normalized:
                return None
            if t.lstrip or t.rstrip or t.single_word:  # not matched by the encoder: a text with it takes Python
                guarded.append(t.content)
                continue
            if texts.get(i, t.content) != t.content:
                return None
            added.append((t.content, i))
        chain = PreChain(pre, guarded + ([c for c, _ in added] if pre else [])) if pre or guarded else None
        size = max([max(texts, default=-1), *(i for _, i in added)]) + 1
        strs = [""] * size
        for i, t in texts.items():
            strs[i] = t
        for c, i in added:
            strs[i] = c
        try:
            # With steps ahead of it the encoder sees normalized text, where it must match no
            # added token (tokenizers matches them in the original; a text holding one is guarded)
            whitespace = whitespace_classes() if marking["split_words"] == 2 else None
            engine = _native.SpmStyleEncoder(**args, **marking, whitespace=whitespace, added=[] if pre else added,
                                             token_strs=strs)
        except ValueError:  # no unknown token and incomplete byte fallback, a broken charsmap
            return None
        return cls(engine, single_template(tok.post_processor), chain)

    def encode_final(self, texts: list[str], add_special_tokens: bool, threads: int,
                     ids_only: bool = False) -> list[Encoding | None] | None:
        """Post-processed Encodings of single texts (the template's special tokens framed in
        C++, each list made on first access), None in place of a text the Python path must
        take; None when the processor is no single-sequence template.  With ids_only, as
        `encode_batch_fast` gives them: the text's tokens "", offsets (0, 0), word ids None.

        Raises:
            ValueError: a lone surrogate in a text.
        """
        if self.template is None:
            return None
        if self.chain is None:
            return frame_docs(self.engine.encode_docs, self.template, texts, add_special_tokens, threads,
                              ids_only=ids_only)
        done = self._through_chain(texts, lambda todo: frame_docs(
            self.engine.encode_docs, self.template, todo, add_special_tokens, threads, ids_only=ids_only))
        return [None if r is None else _chained(*r, ids_only) for r in done]

    def encode_final_one(self, text: str, add_special_tokens: bool) -> Encoding | None:
        """encode_final of one text, without the batch machinery (Tokenizer.encode); None
        when the Python path must take it.

        Raises:
            ValueError: a lone surrogate in the text.
        """
        if self.template is None:
            return None
        prepared = self._prepared(text)
        if prepared is None:
            return None
        text, ns = prepared
        frame, shape = self._frames[bool(add_special_tokens)]
        doc = self.engine.encode_doc(text, frame)
        return None if doc is None else DocEncoding(doc, shape) if ns is None else ChainedDocEncoding(doc, shape, ns)

    def _through_chain(self, texts: list[str], run) -> list:
        """run(the texts the pre-chain hands on, as the encoder takes them) in one call; per
        text (its result, the alignment or None), or None for a text the Python path takes."""
        prepared = [self.chain.prepare(t) for t in texts]
        done = iter(run([p[0] for p in prepared if p is not None]))
        return [None if p is None else (next(done), p[1]) for p in prepared]

    def _prepared(self, text: str):
        """(the text the encoder takes, the alignment to read its offsets back or None), or
        None for a text the Python pipeline must take (spm_prechain.PreChain.prepare)."""
        return (text, None) if self.chain is None else self.chain.prepare(text)

    def encode_final_fast(self, texts: list[str], add_special_tokens: bool, threads: int) -> list | None:
        """encode_final without offsets (encode_batch_fast)."""
        return self.encode_final(texts, add_special_tokens, threads, ids_only=True)

    def encode(self, text: str, type_id: int = 0) -> Encoding | None:
        """The Encoding of one text before post-processing, or None for text the charsmap
        step leaves to the Python pipeline (module docstring).

        Raises:
            ValueError: a lone surrogate in the text.
        """
        _check_surrogates(text)
        prepared = self._prepared(text)
        if prepared is None:
            return None
        text, ns = prepared
        out = self.engine.encode(text)
        if out is None:
            return None
        ids, tokens, offsets, words = out
        return _encoding(ids, tokens, through(offsets, ns), words, type_id)

    def encode_batch(self, texts: list[str], threads: int) -> list[Encoding | None]:
        """Encodings of many texts, on native threads (None where the Python path must run).

        Raises:
            ValueError: a lone surrogate in a text (found by the engine).
        """
        if self.chain is None:
            return [None if x is None else _encoding(*x, 0) for x in self.engine.encode_batch(texts, threads)]
        done = self._through_chain(texts, lambda todo: self.engine.encode_batch(todo, threads))
        return [None if r is None or r[0] is None else _encoding(r[0][0], r[0][1], through(r[0][2], r[1]), r[0][3], 0)
                for r in done]

    def ids_batch(self, texts: list[str], threads: int) -> list[list[int] | None]:
        """Ids of many texts, on native threads (None where the Python path must run)."""
        if self.chain is None:
            return self.engine.encode_ids_batch(texts, threads)
        return [None if r is None else r[0]
                for r in self._through_chain(texts, lambda todo: self.engine.encode_ids_batch(todo, threads))]


class ChainedDocEncoding(DocEncoding):
    """A DocEncoding of a text the pre-chain changed (spm_prechain.py): its text tokens'
    offsets read back through the chain's alignment when read; not cut (the caller encodes
    the text again for truncation)."""

    __slots__ = ("_ns",)

    def __init__(self, doc, shape, ns) -> None:
        super().__init__(doc, shape)
        self._ns = ns

    offsets = padded_field("offsets", lambda self: through(self._doc.offsets(), self._ns, len(self._shape[0]),
                                                           len(self._doc) - len(self._shape[2])))

    def _can_cut(self, kept_only: bool) -> bool:
        return False


def _chained(doc, ns, ids_only: bool):
    """The DocEncoding frame_docs made (None kept), over a chained text when ns is set."""
    if doc is None or ns is None or ids_only:
        return doc
    return ChainedDocEncoding(doc._doc, doc._shape, ns)


def _encoding(ids: list[int], tokens: list[str], offsets: list, words: list[int], type_id: int) -> Encoding:
    """An Encoding of the engine's lists; its masks are made when first read."""
    e = NativeEncoding(ids, tokens, offsets, None, [type_id] * len(ids))
    e.word_ids = words
    return e


_ = SCHEMES  # Metaspace validates its scheme; the table above covers all of SCHEMES
