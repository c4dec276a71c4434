"""The native path for BERT files: BertNormalizer -> BertPreTokenizer -> WordPiece in C++.

A tokenizer.json whose pipeline is (BertNormalizer, none, or the tokenizers docs'
NFD/Lowercase/StripAccents: :func:`bert_options`) -> (BertPreTokenizer or Whitespace) -> WordPiece
(or WordLevel, run as a WordPiece that never continues a word: :func:`wordlevel_model`; or a
BPE with a continuing-subword prefix or an end-of-word suffix, merged word by word:
:func:`word_bpe_model`),
with added tokens that are matched in the raw text (no `normalized`, `lstrip`, `rstrip` or
`single_word`), runs in `tokenforge._native.BertEncoder` (cpp/pipeline/bert_encoder.h): one
pass gives ids, character offsets and word ids, as the readable pipeline
(:mod:`tokenforge.tokenizer.pipeline`) does.  The normalizer becomes a per-code-point table
(:mod:`tokenforge.tokenizer.bert_chars`); a text holding a character whose alignment
NFD's reordering could change (a spacing mark with a combining class) comes back as None and
takes the Python pipeline, which follows `tokenizers`' edit list step by step
(:func:`tokenforge.normalizers.unicode.normalize_aligned`).  Single texts come back as
documents framed by the template's [CLS]/[SEP] in C++ (:meth:`NativeBert.encode_final`; without
offsets for `encode_batch_fast`); a pair's two texts, each such a document without the frame, are
laid out by :mod:`tokenforge.tokenizer.pair_encoding`; other post-processors stay in Python.  Everything else is not native.

Example:
    >>> NativeBert.build(object()) is None
    True
"""

from __future__ import annotations

import numpy as np

from tokenforge import _native
from tokenforge.models.bpe import BPE
from tokenforge.models.wordpiece import WordLevel, WordPiece
from tokenforge.normalizers.bert import BertNormalizer
from tokenforge.normalizers import NFD, Lowercase, StripAccents
from tokenforge.normalizers import Sequence as NormSeq
from tokenforge.pre_tokenizers.simple import BertPreTokenizer, Whitespace
from tokenforge.tokenizer.bert_chars import bert_tables
from tokenforge.tokenizer.doc_encoding import DocEncoding, frame_args, frame_docs, single_template
from tokenforge.tokenizer.encoding import Encoding
from tokenforge.tokenizer.native_spm import merge_triples
from tokenforge.tokenizer.native_splits import whitespace_classes


def _plain_vocab(vocab: dict[str, int]) -> bool:
    """Whether the native word models take the vocab: no empty token, no negative id."""
    return "" not in vocab and all(i >= 0 for i in vocab.values())


def wordpiece_model(model: WordPiece) -> "_native.WordPieceModel | None":
    """The native twin of a WordPiece model, or None when its vocab cannot be one (no unk
    entry, two tokens with one id)."""
    vocab = model.vocab
    unk = vocab.get(model.unk_token)
    if unk is None or len(model.vocab_r) != len(vocab) or not _plain_vocab(vocab):
        return None
    return _native.WordPieceModel(list(vocab.items()), unk, model.continuing_subword_prefix,
                                  model.max_input_chars_per_word)


def bert_options(norm) -> tuple | None:
    """bert_tables' arguments — BertNormalizer's (clean_text, handle_chinese_chars, strip_accents,
    lowercase) and whose marks stripping drops — that do what `norm` does, or None: a
    BertNormalizer, none, or a Sequence of Lowercase and of NFD followed (not necessarily next)
    by StripAccents, as the tokenizers docs build a BERT tokenizer.

    Example:
        >>> from tokenforge.normalizers import NFD, Lowercase, Sequence, StripAccents
        >>> bert_options(Sequence([NFD(), Lowercase(), StripAccents()]))
        (False, False, True, True, 'strip_accents')
        >>> bert_options(Sequence([StripAccents(), NFD()])) is None  # accents stripped before NFD
        True
    """
    if norm is None:
        return False, False, False, False, "bert"
    if type(norm) is BertNormalizer:
        return norm.clean_text, norm.handle_chinese_chars, norm.strip_accents, norm.lowercase, "bert"
    if type(norm) is not NormSeq:
        return None
    kinds = [type(n) for n in norm.normalizers]
    if any(k not in (NFD, Lowercase, StripAccents) for k in kinds) or len(set(kinds)) != len(kinds):
        return None
    strip = StripAccents in kinds
    if strip != (NFD in kinds) or (strip and kinds.index(NFD) > kinds.index(StripAccents)):
        return None  # NFD alone keeps the marks; StripAccents before NFD strips only precomposed ones
    return False, False, strip, Lowercase in kinds, "strip_accents"


def wordlevel_model(model: WordLevel) -> "_native.WordPieceModel | None":
    """A WordLevel model as a native WordPiece that never continues a word — a continuing
    prefix no token starts with, no length limit — so each word is its own token or, not in
    the vocab, the unknown one; None when its vocab cannot be one."""
    vocab = model.vocab
    unk = vocab.get(model.unk_token)
    if unk is None or len(model.vocab_r) != len(vocab) or not _plain_vocab(vocab):
        return None
    prefix = "\x00##"
    while any(t.startswith(prefix) for t in vocab):
        prefix += "\x00"
    return _native.WordPieceModel(list(vocab.items()), unk, prefix, 1 << 62)


def word_bpe_model(model: BPE) -> "_native.WordPieceModel | None":
    """A BPE model over the characters of each word (openai-gpt's, HerBERT's, CharBPETokenizer's:
    a continuing-subword prefix or an end-of-word suffix, which the byte-level and
    SentencePiece-style engines do not take) as the BERT path's word model, or None: dropout,
    byte fallback, ignore_merges, or no unknown token in the vocab (without one, tokenizers drops
    an unknown character and counts the offsets of the tokens after it without its bytes)."""
    if model.dropout or model.byte_fallback or model.ignore_merges or model.unk_token is None:
        return None
    vocab = model.vocab
    unk = vocab.get(model.unk_token, -1)
    if unk < 0:
        return None  # tokenizers fails on the first unknown character: the Python path says so
    if not _plain_vocab(vocab):
        return None
    return _native.WordPieceModel.bpe(list(vocab.items()), merge_triples(model), unk, model.fuse_unk,
                                      model.continuing_subword_prefix or "", model.end_of_word_suffix or "")


class NativeBert:
    """The native BERT encoder and the id -> token table (module docstring)."""

    def __init__(self, engine, tokens: np.ndarray, template) -> None:
        self.engine, self.token_array, self.template = engine, tokens, template
        engine.set_tokens(tokens.tolist())
        self._frames: dict = {}  # add_special_tokens -> (native frame, Encoding shape), made on first use

    @classmethod
    def build(cls, tok) -> "NativeBert | None":
        """The native path for `tok`, or None when its pipeline is not a BERT one."""
        model = getattr(tok, "model", None)
        word_bpe = type(model) is BPE and bool(model.end_of_word_suffix or model.continuing_subword_prefix)
        if (type(model) not in (WordPiece, WordLevel) and not word_bpe) or type(tok.pre_tokenizer) not in (
                BertPreTokenizer, Whitespace):
            return None
        options = bert_options(tok.normalizer)
        if options is None:
            return None
        flags, mapped = bert_tables(*options)
        nfd = bool(options[2] if options[2] is not None else options[3])
        added = []
        tokens = dict(model.vocab_r)
        for i, t in tok.added.tokens.items():
            if t.single_word or t.lstrip or t.rstrip or t.normalized or not t.content:
                return None
            if tokens.get(i, t.content) != t.content:
                return None  # the id stands for two strings: tokens could not follow ids
            tokens[i] = t.content
            added.append((t.content, i))
        wp = (word_bpe_model(model) if word_bpe else wordpiece_model(model) if type(model) is WordPiece
              else wordlevel_model(model))
        if wp is None:
            return None
        table = np.empty(max(tokens) + 1, dtype=object)
        for i, s in tokens.items():
            table[i] = s
        whitespace = whitespace_classes() if type(tok.pre_tokenizer) is Whitespace else None
        return cls(_native.BertEncoder(wp, flags, mapped, nfd, added, whitespace), table,
                   single_template(tok.post_processor))

    def _encoding(self, r, type_id: int) -> Encoding | None:
        if r is None:
            return None
        ids, starts, ends, words = r
        n = len(ids)
        return Encoding(ids.tolist(), self.token_array[ids].tolist(), list(zip(starts.tolist(), ends.tolist())),
                        words.tolist(), [type_id] * n)

    def encode_final(self, texts: list[str], add_special_tokens: bool, threads: int,
                     ids_only: bool = False) -> list[Encoding | None] | None:
        """Post-processed Encodings of single texts (the template applied in C++, each list
        made on first access), None in place of a text the Python path must take; None when
        the processor is no template."""
        if self.template is None:
            return None
        return frame_docs(self.engine.encode_docs, self.template, texts, add_special_tokens, threads,
                          ids_only=ids_only)

    def encode_final_one(self, text: str, add_special_tokens: bool) -> Encoding | None:
        """encode_final of one text, without the batch machinery (Tokenizer.encode); None when
        the Python path must take it.

        Raises:
            ValueError: a lone surrogate in the text.
        """
        if self.template is None:
            return None
        made = self._frames.get(bool(add_special_tokens))
        if made is None:
            frame, shape = frame_args(self.template, add_special_tokens)
            made = self._frames[bool(add_special_tokens)] = (self.engine.frame(*frame), shape)
        try:
            doc = self.engine.encode_doc(text, made[0])
        except UnicodeEncodeError as e:
            raise ValueError(f"text holds a lone surrogate at character {e.start}") from None
        return None if doc is None else DocEncoding(doc, made[1])

    def encode_final_fast(self, texts: list[str], add_special_tokens: bool, threads: int) -> list | None:
        """encode_final without offsets (encode_batch_fast): tokens "" but the template's,
        offsets (0, 0), word ids None."""
        return self.encode_final(texts, add_special_tokens, threads, ids_only=True)

    def encode(self, text: str, type_id: int = 0) -> Encoding | None:
        """The Encoding of one text (before post-processing), or None to use the Python path."""
        try:
            return self._encoding(self.engine.encode(text), type_id)
        except UnicodeEncodeError as e:
            raise ValueError(f"text holds a lone surrogate at character {e.start}") from None

    def encode_batch(self, texts: list[str], threads: int) -> list[Encoding | None]:
        """Encodings of many texts on native threads (None where the Python path must run)."""
        try:
            rows = self.engine.encode_batch(texts, threads)
        except UnicodeEncodeError as e:
            raise ValueError(f"text holds a lone surrogate at character {e.start}") from None
        return [self._encoding(r, 0) for r in rows]

    def ids_batch(self, texts: list[str], threads: int) -> list[list[int] | None]:
        """Ids of many texts on native threads (None where the Python path must run)."""
        try:
            return self.engine.encode_batch(texts, threads, ids_only=True)
        except UnicodeEncodeError as e:
            raise ValueError(f"text holds a lone surrogate at character {e.start}") from None
