"""Tokenizer: a `tokenizer.json` loaded, run and written as `tokenizers` 0.23.3 does.

The pipeline is the five parts `tokenizers` names — `normalizer`, `pre_tokenizer`, `model`,
`post_processor`, `decoder` — plus added tokens, truncation and padding.  Encoding runs the
readable pipeline in :mod:`tokenforge.tokenizer.pipeline`, or, for byte-level BPE files whose
vocab is a rank table, the native byte-level engine (:mod:`tokenforge.tokenizer.native`),
which gives the same result.

One deliberate difference: `decode` raises `ValueError` on an id that is neither in the vocab
nor an added token, where `tokenizers` drops it silently (that loses text without a sign).

Example:
    >>> from tokenforge.models import WordPiece
    >>> from tokenforge.pre_tokenizers import BertPreTokenizer
    >>> tok = Tokenizer(WordPiece({"[UNK]": 0, "hi": 1, "!": 2}))
    >>> tok.pre_tokenizer = BertPreTokenizer()
    >>> tok.encode("hi!").tokens
    ['hi', '!']
"""

from __future__ import annotations

import asyncio
import json
import os
import warnings

from tokenforge import decoders, models, normalizers, pre_tokenizers, processors
from tokenforge._gc import paused as gc_paused
from tokenforge._files import read_utf8, write_atomic
from tokenforge.tokenizer import training
from tokenforge.tokenizer.added_vocabulary import AddedToken, AddedVocabulary
from tokenforge.tokenizer.doc_encoding import _slot_copy
from tokenforge.tokenizer.encoding import Encoding, IdsEncoding
from tokenforge.tokenizer.pair_encoding import PairEncoding, pair_layout
from tokenforge.tokenizer.pipeline import check_surrogates, encode_sequence
from tokenforge.tokenizer.truncation import Padding, Truncation, pair_keep, truncate_pair

# Texts longer than this (characters) that the readable Python pipeline takes get a
# RuntimeWarning: it keeps a Python object per character, so a text of gigabytes looks like
# a hang and may run out of memory; the native paths refuse past 4 GiB (common/offset_limit.h).
SLOW_PIPELINE_CHARS = 1 << 26


class Tokenizer:
    """A tokenizer pipeline (module docstring)."""

    def __init__(self, model) -> None:
        self.model = model
        self.normalizer = None
        self.pre_tokenizer = None
        self.post_processor = None
        self.decoder = None
        self.added = AddedVocabulary()
        self._truncation: Truncation | None = None
        self._padding: Padding | None = None
        self._native = None
        self._native_checked = False

    def __setattr__(self, name, value) -> None:
        object.__setattr__(self, name, value)
        if name in ("normalizer", "pre_tokenizer", "model", "post_processor"):
            object.__setattr__(self, "_native_checked", False)
            object.__setattr__(self, "_layouts", {})
            if name == "normalizer" and "added" in self.__dict__:
                self.added.set_normalizer(value)

    # ---- loading and writing ----

    @classmethod
    def from_buffer(cls, buffer: bytes) -> "Tokenizer":
        """A tokenizer from the bytes of a tokenizer.json (UTF-8).

        Raises:
            ValueError: bytes that are not UTF-8, or what from_str raises.
        """
        try:
            text = bytes(buffer).decode("utf-8")
        except UnicodeDecodeError as e:
            raise ValueError(f"tokenizer.json bytes are not UTF-8 (byte {e.start})") from None
        return cls.from_str(text)

    @classmethod
    def from_str(cls, json_str: str) -> "Tokenizer":
        """A tokenizer from the text of a tokenizer.json.

        Raises:
            ValueError: malformed JSON, an unknown component type, a bad vocab or merges.

        Example:
            >>> t = Tokenizer.from_str('{"model": {"type": "WordLevel", "vocab": {"a": 0}, "unk_token": null}}')
            >>> t.encode("a").ids
            [0]
        """
        # The parsed file is hundreds of thousands of new lists and strs, alive until the
        # native tables are built from them: collections during the load would walk them
        # all again and free none (see tokenforge._gc).
        with gc_paused():
            try:
                d = json.loads(json_str)
            except json.JSONDecodeError as e:
                raise ValueError(f"tokenizer.json is not valid JSON: {e}") from None
            return cls.from_dict(d)

    @classmethod
    def from_file(cls, path: str | os.PathLike[str]) -> "Tokenizer":
        """A tokenizer from a tokenizer.json file (see :meth:`from_str`)."""
        return cls.from_str(read_utf8(path))

    @classmethod
    def from_encoding(cls, encoding) -> "Tokenizer":
        """A byte-level `tokenforge.Encoding` (tiktoken ranks, a trained one) as a tokenizer.json
        pipeline, through the writer of :mod:`tokenforge.formats.hf_json`.

        Example:
            >>> import tokenforge
            >>> ranks = {bytes([b]): b for b in range(256)}
            >>> ranks[b"ab"] = 256
            >>> enc = tokenforge.Encoding("t", pat_str=tokenforge.patterns.GPT2, mergeable_ranks=ranks, special_tokens={})
            >>> Tokenizer.from_encoding(enc).encode("ab a").ids
            [256, 32, 97]
        """
        from tokenforge.formats.hf_json import to_dict

        return cls.from_dict(to_dict(encoding))

    @classmethod
    def from_sentencepiece(cls, model_file, *, convention: str = "plain") -> "Tokenizer":
        """A SentencePiece ``.model`` (a path or a ModelProto) as a tokenizer.json pipeline that
        encodes as sentencepiece does (:mod:`tokenforge.tokenizer.from_sentencepiece`).

        Args:
            model_file: the ``.model`` path, or a :class:`tokenforge.sentencepiece.ModelProto`.
            convention: ``"plain"`` keeps the model's ids; ``"fairseq"`` lays them out as XLM-R
                (``<s>``=0, ``<pad>``=1, ``</s>``=2, ``<unk>``=3, piece i>=3 at i+1, ``<mask>``
                last), wraps ``<s> A </s>`` / ``<s> A </s></s> B </s>``, and encodes exactly as
                `transformers`' ``XLMRobertaTokenizer`` does (whitespace split, Unigram);
                ``"fairseq-spm"`` is that layout with sentencepiece's own segmentation.  An
                empty second text is a pair (``<s> A </s></s></s>``), as in `tokenizers` and
                `transformers`' batched call; its single call ``tok(a, "")`` drops an empty
                pair before the tokenizer sees it.

        Raises:
            OSError: the file cannot be read.
            ValueError: not a model, a model type or option tokenizer.json cannot express, or
                first pieces that do not fit the fairseq layout.

        Example:
            >>> from tokenforge.sentencepiece import ModelProto
            >>> from tokenforge.formats.sentencepiece_model import SentencePiece
            >>> m = ModelProto()
            >>> for p, t in [("<unk>", 2), ("<s>", 3), ("</s>", 3), ("\u2581hi", 1)]:
            ...     m.pieces.append(SentencePiece(piece=p, score=-1.0, type=t))
            >>> Tokenizer.from_sentencepiece(m, convention="fairseq").encode("hi", "hi").ids
            [0, 4, 2, 2, 4, 2]
        """
        from tokenforge.tokenizer.from_sentencepiece import tokenizer_from_model

        return tokenizer_from_model(model_file, convention)

    @classmethod
    def from_dict(cls, d: dict) -> "Tokenizer":
        if not isinstance(d, dict):
            raise ValueError("tokenizer.json must hold a JSON object")
        if "model" not in d:
            raise ValueError("tokenizer.json has no model")
        tok = cls(models.from_dict(d["model"]))
        tok.normalizer = normalizers.from_dict(d.get("normalizer"))
        tok.pre_tokenizer = pre_tokenizers.from_dict(d.get("pre_tokenizer"))
        tok.post_processor = processors.from_dict(d.get("post_processor"))
        tok.decoder = decoders.from_dict(d.get("decoder"))
        for a in d.get("added_tokens") or []:
            if not isinstance(a, dict) or not isinstance(a.get("content"), str):
                raise ValueError(f"added token {a!r} has no content")
            t = AddedToken(a["content"], bool(a.get("single_word", False)), bool(a.get("lstrip", False)),
                           bool(a.get("rstrip", False)), a.get("normalized"), bool(a.get("special", False)))
            tok.added.add([t], tok.model)
        tok._truncation = Truncation.from_dict(d.get("truncation"))
        tok._padding = Padding.from_dict(d.get("padding"))
        return tok

    @classmethod
    def from_gguf(cls, path: str | os.PathLike[str], *, reader: str = "gguf") -> "Tokenizer":
        """The tokenizer of a GGUF file (llama.cpp, Ollama, LM Studio), encoding with llama.cpp's
        ids; special tokens in the text are recognised, as in `tokenizers`.  See
        :mod:`tokenforge.gguf.tokenizer_face`.  Read with ``gguf.GGUFReader`` (``pip install
        'tokenforge[gguf]'``), or with ``reader="tokenforge"`` by tokenforge's own walk of the
        file (the same values, many times faster, no extra needed).

        Raises:
            OSError: the file cannot be read.
            ValueError: not a GGUF file, no tokenizer in it, an unsupported model or pre.
            ImportError: the `gguf` package is missing (with ``reader="gguf"``).

        Example:
            >>> import os, tempfile
            >>> from tokenforge.models import WordPiece
            >>> from tokenforge.normalizers import BertNormalizer
            >>> from tokenforge.pre_tokenizers import BertPreTokenizer
            >>> bert = Tokenizer(WordPiece({"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, "un": 3, "##able": 4}))
            >>> bert.normalizer, bert.pre_tokenizer = BertNormalizer(), BertPreTokenizer()
            >>> path = os.path.join(tempfile.mkdtemp(), "bert.gguf")
            >>> bert.to_gguf(path)
            >>> Tokenizer.from_gguf(path).encode("Unable").tokens
            ['[CLS]', '▁un', 'able', '[SEP]']
        """
        from tokenforge.gguf.tokenizer_face import tokenizer_from_gguf

        return tokenizer_from_gguf(path, reader=reader)

    def to_gguf(self, path: str | os.PathLike[str], *, pre: str | None = None, name: str | None = None) -> None:
        """Writes a tokenizer-only GGUF file, atomically: a GGUF-made tokenizer's own metadata,
        or a byte-level BPE (``gpt2``; `pre` names llama.cpp's split when the file's own regex
        is not exactly one), SentencePiece-style BPE (``llama``), Unigram (``t5``) or WordPiece
        (``bert``) pipeline (:func:`tokenforge.gguf.vocab_from_json`).

        Raises:
            ValueError: a pipeline llama.cpp has no tokenizer for.
            OSError: the file cannot be written.
            ImportError: the `gguf` package is missing.
        """
        from tokenforge.gguf.tokenizer_face import tokenizer_to_gguf

        tokenizer_to_gguf(self, path, pre=pre, name=name)

    def to_dict(self) -> dict:
        return {
            "version": "1.0",
            "truncation": self._truncation.to_dict() if self._truncation else None,
            "padding": self._padding.to_dict() if self._padding else None,
            "added_tokens": [t.to_dict(i) for i, t in sorted(self.added.tokens.items())],
            "normalizer": self.normalizer.to_dict() if self.normalizer else None,
            "pre_tokenizer": self.pre_tokenizer.to_dict() if self.pre_tokenizer else None,
            "post_processor": self.post_processor.to_dict() if self.post_processor else None,
            "decoder": self.decoder.to_dict() if self.decoder else None,
            "model": self.model.to_dict(),
        }

    def to_str(self, pretty: bool = False) -> str:
        """The tokenizer.json text; `tokenizers` loads it and encodes identically."""
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=2 if pretty else None)

    def to_file(self, path: str | os.PathLike[str], pretty: bool = True) -> None:
        """Writes the tokenizer.json atomically (temporary file, then rename)."""
        write_atomic(path, self.to_str(pretty).encode("utf-8"))

    save = to_file

    # ---- vocabulary ----

    def token_to_id(self, token: str) -> int | None:
        i = self.added.ids.get(token)
        return i if i is not None else self.model.token_to_id(token)

    def id_to_token(self, id: int) -> str | None:
        return self.added.content_of(id) if id in self.added.tokens else self.model.id_to_token(id)

    def get_vocab(self, with_added_tokens: bool = True) -> dict[str, int]:
        v = dict(self.model.vocab)
        if with_added_tokens:
            v.update(self.added.ids)
        return v

    def get_vocab_size(self, with_added_tokens: bool = True) -> int:
        vocab = self.model.vocab
        if not with_added_tokens:
            return len(vocab)
        # len(get_vocab()) without copying the vocab: added contents not already in it.
        return len(vocab) + sum(1 for content in self.added.ids if content not in vocab)

    def get_added_tokens_decoder(self) -> dict[int, AddedToken]:
        return dict(sorted(self.added.tokens.items()))

    def add_tokens(self, tokens: list) -> int:
        """Adds tokens (str or AddedToken); returns how many were taken (AddedVocabulary.add)."""
        toks = [t if isinstance(t, AddedToken) else AddedToken(t) for t in tokens]
        self._native_checked = False
        return self.added.add(toks, self.model)

    def add_special_tokens(self, tokens: list) -> int:
        """Adds tokens as special ones: an AddedToken given is marked special (the caller's
        object too, as in tokenizers), so a `normalized` left unset becomes False."""
        toks = [t if isinstance(t, AddedToken) else AddedToken(t, special=True) for t in tokens]
        for t in toks:
            t.special = True
        self._native_checked = False
        return self.added.add(toks, self.model)

    # ---- training (tokenizer/training.py) ----

    def train(self, files: list, trainer=None) -> None:
        """Trains the model on the lines of `files` with `trainer` (tokenforge.trainers; the
        model's own kind by default), then adds the trainer's special tokens.

        Raises:
            OSError: a file cannot be read.
            ValueError: a file that is not UTF-8, or a trainer of another model's kind.
        """
        training.train(self, training.lines_of([os.fspath(f) for f in files]), trainer)

    def train_from_iterator(self, iterator, trainer=None, length: int | None = None) -> None:
        """Trains the model on the texts of `iterator` (strs, or lists of strs); `length` is
        accepted as tokenizers' progress hint."""
        training.train(self, training.texts_of(iterator), trainer)

    # ---- truncation and padding ----

    def enable_truncation(self, max_length: int, stride: int = 0, strategy: str = "longest_first",
                          direction: str = "right") -> None:
        """Truncation to max_length tokens (the post-processor's included), windows overlapping
        by stride.

        Raises:
            ValueError: a stride above what max_length leaves a single text besides the tokens
                the post-processor adds (tokenizers refuses it here too); the setting is
                left as it was.
        """
        added = self._added_tokens(True)
        if max_length >= added and stride > max_length - added:
            raise ValueError(f"truncation stride {stride} is more than the {max_length - added} tokens of text that "
                             f"max_length {max_length} leaves beside the {added} the post-processor adds")
        self._truncation = Truncation(max_length, stride, strategy, direction)

    def no_truncation(self) -> None:
        self._truncation = None

    @property
    def truncation(self) -> dict | None:
        return self._truncation.as_python() if self._truncation else None

    def enable_padding(self, direction: str = "right", pad_id: int = 0, pad_type_id: int = 0, pad_token: str = "[PAD]",
                       length: int | None = None, pad_to_multiple_of: int | None = None) -> None:
        self._padding = Padding(length, direction, pad_id, pad_type_id, pad_token, pad_to_multiple_of)

    def no_padding(self) -> None:
        self._padding = None

    @property
    def padding(self) -> dict | None:
        return self._padding.as_python() if self._padding else None

    @property
    def encode_special_tokens(self) -> bool:
        """Whether special added tokens in the text are encoded as plain text (tokenizers'
        flag; not written to tokenizer.json).  While it is on, texts take the readable Python
        pipeline whenever the file has special tokens: exact, but far slower."""
        return self.added.encode_special_tokens

    @encode_special_tokens.setter
    def encode_special_tokens(self, value: bool) -> None:
        self.added.encode_special_tokens = bool(value)
        self._native_checked = False

    # ---- encoding ----

    def _native_engine(self):
        if not self._native_checked:
            self._native = self._build_native()
            self._native_checked = True
        return self._native

    def _build_native(self):
        """The native path this pipeline fits, or None (made again whenever it may change)."""
        if self.added.encode_special_tokens and self.added.special_contents:
            return None  # the native paths match every added token
        try:
            from tokenforge.tokenizer.native import NativeByteLevel
        except ImportError:  # numpy absent: every file takes the Python pipeline
            return None
        from tokenforge.tokenizer.native_bert import NativeBert
        from tokenforge.tokenizer.native_cut import NativeCutSplit
        from tokenforge.tokenizer.native_deepseek import NativeDeepSeekV3
        from tokenforge.tokenizer.native_spm import NativeSpm
        from tokenforge.tokenizer.native_splits import NativeSplits
        return (NativeByteLevel.build(self) or NativeBert.build(self) or NativeDeepSeekV3.build(self)
                or NativeCutSplit.build(self) or NativeSplits.build(self) or NativeSpm.build(self))

    def _encode_one(self, seq, type_id: int, is_pretokenized: bool) -> Encoding:
        if is_pretokenized:
            if isinstance(seq, str):
                raise ValueError("is_pretokenized=True needs a list of words, got a str")
            out = Encoding([], [], [], [])
            for w, word in enumerate(seq):
                if isinstance(word, str):
                    check_surrogates(word, f"word {w}")
                out.extend(encode_sequence(word, self.normalizer, self.pre_tokenizer, self.model, self.added, type_id, w))
            return out
        if not isinstance(seq, str):
            raise ValueError(f"expected a str to encode, got {type(seq).__name__}")
        native = self._native_engine()
        if native is not None:
            enc = native.encode(seq, type_id)
            if enc is not None:  # None: text the normalizer changes takes the Python path
                return enc
        if len(seq) > SLOW_PIPELINE_CHARS:
            why = "the native path declined it" if native is not None else "this file has no native path"
            warnings.warn(f"a text of {len(seq)} characters takes the readable Python pipeline ({why}): slow, and "
                          "several objects per character in memory; split the text", RuntimeWarning, stacklevel=3)
        return encode_sequence(seq, self.normalizer, self.pre_tokenizer, self.model, self.added, type_id)

    def _post_process(self, a: Encoding, b: Encoding | None, add_special_tokens: bool) -> Encoding:
        if b is not None:  # (tokenizers gives a pair's two texts their sequences, even an empty one)
            a.set_sequence_id(0)
            b.set_sequence_id(1)
        if self._truncation is not None:
            truncate_pair(a, b, self._truncation, self._added_tokens(add_special_tokens, b is not None))
        if b is not None and self.post_processor is not None:
            # tokenizers' post-processor gives each sequence its type id after truncation,
            # to the sequence's first window only (see _fast_fallback).
            b.type_ids = [1] * len(b.ids)
        encs = [a] if b is None else [a, b]
        if self.post_processor is not None:
            encs = self.post_processor.process(encs, add_special_tokens)
        return encs[0] if len(encs) == 1 else processors.merge(encs)

    def _native_final(self, texts: list, add_special_tokens: bool, threads: int, fast: bool = False) -> list | None:
        """Finished Encodings of single texts from a native path that also applies the
        post-processor (None items: texts the Python path must take), or None.  With fast,
        without offsets (encode_batch_fast).  The native paths do not truncate: with
        truncation on, an item that `_untruncated` does not pass must be encoded again."""
        if not all(isinstance(t, str) for t in texts):
            return None
        final = getattr(self._native_engine(), "encode_final_fast" if fast else "encode_final", None)
        return final(texts, add_special_tokens, threads) if final is not None else None

    def _native_pair_sides(self, inputs: list, threads: int, fast: bool = False) -> tuple[list, list] | None:
        """For a batch of (text, text) pairs (tuples or lists, not pre-tokenized): each side's
        Encodings as the model gives them (before truncation and the post-processor; None
        items: the Python path's), from the native path's documents without a frame, on native
        threads, their lists built in C++ when read (with fast, without offsets); None for
        other batches.  A byte-level path whose documents trim offsets (_sides_trimmed) gives
        them trimmed: only a PairEncoding may take those (the general path would trim them
        again)."""
        if not inputs or not all(type(x) in (tuple, list) and len(x) == 2 and isinstance(x[0], str)
                                 and isinstance(x[1], str) for x in inputs):
            return None
        firsts = self._native_final([x[0] for x in inputs], False, threads, fast)
        seconds = self._native_final([x[1] for x in inputs], False, threads, fast) if firsts is not None else None
        return None if seconds is None else (firsts, seconds)

    def _sides_trimmed(self) -> bool:
        """Whether _native_pair_sides' Encodings with offsets come trimmed (ByteLevel's or
        RoBERTa's trimming, done in the byte-level documents)."""
        plan = getattr(self._native_engine(), "plan", None)
        return plan is not None and plan[1]

    def _native_pair(self, x: tuple[str, str], add_special_tokens: bool) -> Encoding | None:
        """encode's pair as a PairEncoding from the native sides (padded), or None when the
        general path must take it (no native sides, a layout the post-processor does not
        have, truncation that cuts)."""
        if self._native_engine() is None:
            return None
        sides = self._native_pair_sides([x], 1)
        if sides is None:
            return None
        trimmed = self._sides_trimmed()
        (a,), (b,) = sides
        enc = self._laid_out(x, self._pair_layout(add_special_tokens, trimmed=trimmed), a, b, add_special_tokens, trimmed)
        if enc is None:
            return None
        if self._padding is not None:
            self._padding.pad([enc])
        return enc

    def _pair_layout(self, add_special_tokens: bool, second_type: int = 1, trimmed: bool = False) -> tuple | None:
        """pair_layout of the post-processor, made once per setting (again when it is replaced)."""
        layouts = self.__dict__.setdefault("_layouts", {})
        key = (bool(add_special_tokens), second_type, trimmed)
        if key not in layouts:
            layouts[key] = pair_layout(self.post_processor, add_special_tokens, second_type, trimmed)
        return layouts[key]

    def _pair_encoding(self, layout: tuple, a: Encoding, b: Encoding, add_special_tokens: bool,
                       again=None) -> Encoding | None:
        """The pair of native sides a, b (DocEncodings without a frame) as a PairEncoding,
        truncated as truncate_pair truncates them: copies of the sides cut lazily
        (DocEncoding.cut), the overflowing windows made when first read by the general path
        (_post_process) from a and b, which stay as they are.  Sides the general path cannot
        take (trimmed ones, see _laid_out; those without offsets) come with `again`, which
        gives the pair's windows from its texts encoded anew; they are cut only where the
        kept window is the whole text's (cut from the right, or no prefix space for
        ByteLevel's first-token rule).  None when the general path must take the pair (a
        side cut to nothing, a side that cannot be cut so, a setting that raises)."""
        t = self._truncation
        if t is None:
            return PairEncoding(layout, a, b)
        try:
            keep = pair_keep(len(a), len(b), t, self._added_tokens(add_special_tokens, True))
        except ValueError:
            return None  # (raised again by the general path)
        if keep is None:
            return PairEncoding(layout, a, b)
        kept_only = again is not None
        plan = getattr(self._native_engine(), "plan", None)
        if 0 in keep or (kept_only and t.direction == "left" and plan is not None and plan[2]):
            return None
        cut = []
        for side, k in zip((a, b), keep):
            side = _slot_copy(side)
            if k is not None and k < len(side) and not side.cut(k, t.stride, t.direction, kept_only=kept_only):
                return None
            cut.append(side)

        def windows() -> list[Encoding]:
            if again is not None:
                return again()
            b.type_ids = [1] * len(b)
            return self._post_process(a, b, add_special_tokens).overflowing

        enc = PairEncoding(layout, *cut)
        enc._pending = (windows, [])
        return enc

    def _laid_out(self, x, layout: tuple | None, a: Encoding | None, b: Encoding | None, add_special_tokens: bool,
                  trimmed: bool) -> Encoding | None:
        """_pair_encoding of the pair x from its native sides a, b (with offsets; trimmed ones
        get their windows from the texts encoded again), or None for the general path (no
        layout, a side the native path left, or _pair_encoding's None)."""
        if layout is None or a is None or b is None:
            return None

        def again() -> list[Encoding]:
            return self._post_process(self._encode_one(x[0], 0, False), self._encode_one(x[1], 1, False),
                                      add_special_tokens).overflowing

        return self._pair_encoding(layout, a, b, add_special_tokens, again if trimmed else None)

    def _untruncated(self, enc: Encoding, add_special_tokens: bool) -> bool:
        """Whether truncation would leave this finished single-text Encoding as it is, so that
        the native path's result stands.  tokenizers truncates before the post-processor, to
        max_length less the tokens the post-processor adds (with add_special_tokens), and a
        sequence within that is untouched; the finished Encoding holds exactly those added
        tokens, so it fits when its length is within max_length.  A limit below the added
        tokens truncates nothing (tokenizers 0.23.3); one equal to them leaves the text no
        room and moves it to `overflowing`: the Python path takes that."""
        t = self._truncation
        if t is None:
            return True
        added = self._added_tokens(add_special_tokens)
        return t.max_length < added or (t.max_length > added and len(enc) <= t.max_length)

    def encode(self, sequence, pair=None, is_pretokenized: bool = False, add_special_tokens: bool = True) -> Encoding:
        """Encodes a text (or a list of words with `is_pretokenized`), optionally with a pair.

        Raises:
            ValueError: a lone surrogate, a value that is not text, or a text (or a normalized
                stretch of it) past the 4 GiB that a native path's 32-bit offsets allow.

        Warns:
            RuntimeWarning: a text of over SLOW_PIPELINE_CHARS characters that the readable
                Python pipeline takes (slow; it may run out of memory).
        """
        if pair is None and not is_pretokenized and isinstance(sequence, str):
            one = getattr(self._native_engine(), "encode_final_one", None)
            enc = one(sequence, add_special_tokens) if one is not None else None
            if enc is None:
                done = self._native_final([sequence], add_special_tokens, 1)
                enc = done[0] if done is not None else None
            if enc is not None and (self._untruncated(enc, add_special_tokens) or self._cut(enc, add_special_tokens)):
                if self._padding is not None:
                    self._padding.pad([enc])
                return enc
        if pair is not None and not is_pretokenized and type(sequence) is str and type(pair) is str:
            enc = self._native_pair((sequence, pair), add_special_tokens)
            if enc is not None:
                return enc
        a = self._encode_one(sequence, 0, is_pretokenized)
        b = self._encode_one(pair, 1, is_pretokenized) if pair is not None else None
        enc = self._post_process(a, b, add_special_tokens)
        if self._padding is not None:
            self._padding.pad([enc])
        return enc

    def post_process(self, encoding: Encoding, pair: Encoding | None = None,
                     add_special_tokens: bool = True) -> Encoding:
        """Truncation, the post-processor and padding applied to Encodings of one sequence (and
        a pair), as `encode` does after the model (tokenizers' method of this name). The
        Encodings given are left as they are."""
        a = encoding.copy()
        b = pair.copy() if pair is not None else None
        enc = self._post_process(a, b, add_special_tokens)
        if self._padding is not None:
            self._padding.pad([enc])
        return enc

    def num_special_tokens_to_add(self, is_pair: bool) -> int:
        """How many tokens the post-processor adds to a single text (or a pair)."""
        return self._added_tokens(True, is_pair)

    def _added_tokens(self, add_special_tokens: bool, is_pair: bool = False) -> int:
        """How many tokens the post-processor adds to a single text (or a pair)."""
        if self.post_processor is None or not add_special_tokens:
            return 0
        return self.post_processor.added_tokens(is_pair)

    def _cut(self, enc: Encoding | None, add_special_tokens: bool) -> bool:
        """Truncates a native path's finished single-text Encoding in place (DocEncoding.cut)
        when its frame is exactly the tokens the post-processor adds; False when it cannot,
        and the caller truncates the text's own Encoding."""
        t = self._truncation
        cut = getattr(enc, "cut", None)
        if cut is None or t is None or t.strategy == "only_second":
            return False
        added = self._added_tokens(add_special_tokens)
        return enc.frame_size() == added and t.max_length > added and cut(t.max_length - added, t.stride, t.direction)

    def encode_batch(self, input: list, is_pretokenized: bool = False, add_special_tokens: bool = True,  # noqa: A002
                     num_threads: int = 8) -> list[Encoding]:
        """Encodes many inputs (each a text or a (text, pair) tuple); padding spans the batch.
        (`input` is tokenizers' name for the list.)

        Byte-level files on the native path encode the texts on native threads (GIL released).
        """
        return self._encode_batch(list(input), is_pretokenized, add_special_tokens, num_threads)

    def _encode_batch(self, inputs: list, is_pretokenized: bool, add_special_tokens: bool,
                      num_threads: int) -> list[Encoding]:
        done = self._native_final(inputs, add_special_tokens, num_threads) if not is_pretokenized else None
        if done is not None:
            out = [e if e is not None and self._untruncated(e, add_special_tokens) else None for e in done]
            again = [k for k, e in enumerate(out) if e is None]
            with gc_paused():  # truncated texts (those _cut cannot take build every list at once)
                for k in again:
                    out[k] = (done[k] if self._cut(done[k], add_special_tokens) else
                              self._post_process(self._encode_one(inputs[k], 0, False), None, add_special_tokens))
            if self._padding is not None:
                self._padding.pad(out)
            return out
        firsts: list = [None] * len(inputs)
        native = self._native_engine() if not is_pretokenized else None
        if native is not None and all(isinstance(x, str) for x in inputs):
            firsts = native.encode_batch(inputs, num_threads)
        out = []
        with gc_paused():  # many small lists per item, none of them cyclic
            sides = self._native_pair_sides(inputs, num_threads) if native is not None else None
            trimmed = sides is not None and self._sides_trimmed()
            layout = self._pair_layout(add_special_tokens, trimmed=trimmed) if sides is not None else None
            for k, (x, first) in enumerate(zip(inputs, firsts)):
                if first is not None:
                    out.append(self._post_process(first, None, add_special_tokens))
                elif _is_pair(x, is_pretokenized):
                    a = sides[0][k] if sides is not None else None
                    b = sides[1][k] if sides is not None else None
                    enc = self._laid_out(x, layout, a, b, add_special_tokens, trimmed)
                    if enc is not None:
                        out.append(enc)
                        continue
                    if trimmed:  # the general path trims: it encodes the texts again
                        a = b = None
                    if b is not None:
                        b.type_ids = [1] * len(b)
                    out.append(self._post_process(a if a is not None else self._encode_one(x[0], 0, is_pretokenized),
                                                  b if b is not None else self._encode_one(x[1], 1, is_pretokenized),
                                                  add_special_tokens))
                else:
                    out.append(self._post_process(self._encode_one(x, 0, is_pretokenized), None, add_special_tokens))
        if self._padding is not None:
            self._padding.pad(out)
        return out

    def encode_batch_fast(self, input: list, is_pretokenized: bool = False,  # noqa: A002
                          add_special_tokens: bool = True, num_threads: int = 8) -> list[Encoding]:
        """As :meth:`encode_batch` without offsets, as `tokenizers`: tokens are empty strings,
        offsets (0, 0) and word ids None; ids, type ids and masks are the same."""
        return self._encode_batch_fast(list(input), is_pretokenized, add_special_tokens, num_threads)

    def _encode_batch_fast(self, inputs: list, is_pretokenized: bool, add_special_tokens: bool,
                           num_threads: int) -> list[Encoding]:
        done = self._native_final(inputs, add_special_tokens, num_threads, fast=True) if not is_pretokenized else None
        if done is not None:
            out = [e if e is not None and (self._untruncated(e, add_special_tokens) or self._cut(e, add_special_tokens))
                   else None for e in done]
            again = [k for k, e in enumerate(out) if e is None]
            if again:  # texts truncated where _cut cannot: their ids alone, cut and post-processed
                native = self._native_engine()
                ids_list = native.ids_batch([inputs[k] for k in again], num_threads)
                with gc_paused():
                    for k, ids in zip(again, ids_list):
                        out[k] = (self._post_process(IdsEncoding(ids), None, add_special_tokens) if ids is not None
                                  else self._fast_fallback(inputs[k], False, add_special_tokens))
            if self._padding is not None:
                self._padding.pad(out)
            return out
        native = self._native_engine() if not is_pretokenized else None
        ids_list: list = [None] * len(inputs)
        if native is not None and all(isinstance(x, str) for x in inputs):
            ids_list = native.ids_batch(inputs, num_threads)
        sides = self._native_pair_sides(inputs, num_threads, fast=True) if native is not None else None
        # (without a post-processor tokenizers leaves an offset-free pair's second text type id 0)
        layout = (self._pair_layout(add_special_tokens, 0 if self.post_processor is None else 1, trimmed=True)
                  if sides is not None else None)  # (trimming changes no offset-free field)
        out = []
        with gc_paused():  # many small lists per item, none of them cyclic
            for k, (x, ids) in enumerate(zip(inputs, ids_list)):
                enc = None
                if layout is not None and sides[0][k] is not None and sides[1][k] is not None:
                    enc = self._pair_encoding(layout, sides[0][k], sides[1][k], add_special_tokens,
                                              self._fast_windows(x, add_special_tokens))
                if enc is None and ids is not None:
                    enc = IdsEncoding(ids)
                    if self.post_processor is not None or self._truncation is not None:
                        enc = self._post_process(enc, None, add_special_tokens)
                elif enc is None:
                    enc = self._fast_fallback(x, is_pretokenized, add_special_tokens)
                out.append(enc)
        if self._padding is not None:
            self._padding.pad(out)
        return out

    def _fast_windows(self, x: tuple[str, str], add_special_tokens: bool):
        """The `again` of _pair_encoding for sides without offsets: the windows _fast_fallback gives."""
        return lambda: self._fast_fallback(x, False, add_special_tokens).overflowing

    def _fast_fallback(self, x, is_pretokenized: bool, add_special_tokens: bool) -> Encoding:
        """An encode_batch_fast item the native ids path did not take: encoded with offsets,
        then blanked (a post-processor's special tokens keep their text, as in tokenizers),
        its overflowing windows too.  As in tokenizers, whose offset-free encoding gives every
        token of a sequence type id 0, a pair's second sequence enters the post-processor with
        type id 0; its first window gets 1 (_post_process), and the windows made from its own
        overflow keep 0 but where a template sets them (tokenizers 0.23.3)."""
        if _is_pair(x, is_pretokenized):
            enc = self._post_process(self._encode_one(x[0], 0, is_pretokenized),
                                     self._encode_one(x[1], 0, is_pretokenized), add_special_tokens)
        else:
            enc = self._encode_batch([x], is_pretokenized, add_special_tokens, 1)[0]
        _blank(enc)
        return enc

    # ---- decoding ----

    def decode(self, ids, skip_special_tokens: bool = True) -> str:
        """The text of `ids` through the decoder.

        Raises:
            ValueError: an id that is neither in the vocab nor an added token (tokenizers
                drops such ids silently; dropping would lose text without a sign).
        """
        toks = []
        for i in ids:
            if i in self.added.tokens:
                s = self.added.content_of(i)
            else:
                s = self.model.id_to_token(i) if isinstance(i, int) and i >= 0 else None
                if s is None:
                    raise ValueError(f"decode: id {i!r} is not in the vocabulary (size {self.get_vocab_size()})")
            if not (skip_special_tokens and self.added.is_special(s)):
                toks.append(s)
        if self.decoder is not None:
            return self.decoder.decode(toks)
        return " ".join(toks)

    def decode_batch(self, sequences, skip_special_tokens: bool = True) -> list[str]:
        return [self.decode(s, skip_special_tokens) for s in sequences]

    # ---- asyncio faces (tokenizers' async_* methods): the work runs on a worker thread ----

    async def async_encode(self, sequence, pair=None, is_pretokenized: bool = False,
                           add_special_tokens: bool = True) -> Encoding:
        return await asyncio.to_thread(self.encode, sequence, pair, is_pretokenized, add_special_tokens)

    async def async_encode_batch(self, input: list, is_pretokenized: bool = False,  # noqa: A002
                                 add_special_tokens: bool = True) -> list[Encoding]:
        return await asyncio.to_thread(self.encode_batch, input, is_pretokenized, add_special_tokens)

    async def async_encode_batch_fast(self, input: list, is_pretokenized: bool = False,  # noqa: A002
                                      add_special_tokens: bool = True) -> list[Encoding]:
        return await asyncio.to_thread(self.encode_batch_fast, input, is_pretokenized, add_special_tokens)

    async def async_decode_batch(self, sequences, skip_special_tokens: bool = True) -> list[str]:
        return await asyncio.to_thread(self.decode_batch, sequences, skip_special_tokens)


def _is_pair(x, is_pretokenized: bool) -> bool:
    """Whether a batch item is a (sequence, pair): a tuple, or a list of two texts (a list
    is one pre-tokenized sequence with is_pretokenized)."""
    return isinstance(x, tuple) or (isinstance(x, list) and not is_pretokenized)


def _blank(enc: Encoding) -> None:
    """An Encoding as encode_batch_fast gives it: no offsets, word ids or tokens, except the
    text of the special tokens a post-processor added; its overflowing windows too (a pair's
    windows have windows of their own)."""
    n = len(enc.ids)
    enc.tokens = [t if m else "" for t, m in zip(enc.tokens, enc.special_tokens_mask)]
    enc.offsets, enc.word_ids = [(0, 0)] * n, [None] * n
    enc.each_overflowing(_blank)
