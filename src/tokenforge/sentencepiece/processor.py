"""`SentencePieceProcessor`: sentencepiece's Python API over tokenforge's native core.

Loading parses the ``.model`` file here (:mod:`tokenforge.formats.sentencepiece_model`) and hands the pieces and the
normalizer settings to ``tokenforge._native.SentencePieceProcessor``, which normalizes,
segments (BPE or Unigram) and decodes.  This module keeps the policy: argument handling
as in sentencepiece 0.2.3, BOS/EOS/reverse, the vocabulary queries, and the shapes of the
results.

What it leaves to others: the wire format (:mod:`tokenforge.formats.sentencepiece_model`), every per-byte loop (the
C++ core), and the pure-Python oracle (:mod:`.reference`).

Example (needs a model file):
    >>> sp = SentencePieceProcessor(model_file="llama2_tokenizer.model")  # doctest: +SKIP
    >>> sp.encode("Hello world", out_type=str)  # doctest: +SKIP
    ['▁Hello', '▁world']
"""

from __future__ import annotations

import math
import os
import random
from typing import Any

from tokenforge import _native
from tokenforge._threads import resolve_threads
from tokenforge.formats.sentencepiece_model import ModelProto, ModelType, PieceType
from tokenforge.sentencepiece._aliases import add_aliases
from tokenforge.sentencepiece.proto import (
    ImmutableNBestSentencePieceText,
    ImmutableSentencePiece,
    ImmutableSentencePieceText,
    finish,
    from_offsets,
    pieces_of,
)

__all__ = ["EncodedPiece", "EncodedText", "SentencePieceProcessor", "set_random_generator_seed"]

_PROTOS = ("proto", "immutable_proto", "serialized_proto")
_RETURN_TYPES = (int, str, bytes, *_PROTOS, "offset_mapping")
_NO_REWRITE = "add_bos, add_eos, reverse, and emit_unk_piece is not supported in proto API"
_MAX_NBEST = 512  # sentencepiece's limit for n-best search and sampling
_seed_source = random.Random()


def set_random_generator_seed(seed: int) -> None:
    """Seeds sampling (``enable_sampling=True``) in every processor, like sentencepiece's function.

    >>> set_random_generator_seed(7)
    """
    _seed_source.seed(seed)


# The names of earlier tokenforge releases.
EncodedPiece = ImmutableSentencePiece
EncodedText = ImmutableSentencePieceText


# A text this long (characters or bytes) or longer is encoded in parts on the native pool
# (cut where no piece crosses, see tokenforge.sentencepiece.cuts); shorter ones are not
# worth the hand-off.
PARALLEL_MIN_CHARS = 1 << 18


def _default_threads(num_threads: int | None) -> int:
    """sentencepiece's num_threads (< 0 or None: automatic, 0: one) resolved as tokenforge
    does: the argument, else TOKENFORGE_NUM_THREADS, else the CPUs this process may use."""
    if num_threads is None or (isinstance(num_threads, int) and not isinstance(num_threads, bool) and num_threads < 0):
        return resolve_threads(None)
    return resolve_threads(max(1, num_threads) if isinstance(num_threads, int) else num_threads)


def _parts(text: str | bytes, num_threads: int | None) -> tuple[int, int]:
    """(parts, threads) for one text: (1, 1) below PARALLEL_MIN_CHARS or with one thread."""
    if len(text) < PARALLEL_MIN_CHARS:
        return 1, 1
    threads = _default_threads(num_threads)
    if threads < 2:
        return 1, 1
    return min(16 * threads, max(2, len(text) // max(1, PARALLEL_MIN_CHARS // 8))), threads


class SentencePieceProcessor:
    """Loads a SentencePiece ``.model`` and encodes/decodes exactly as ``sentencepiece`` does.

    Example (a four-piece BPE model built on the spot; ids 0-2 are <unk>, <s>, </s>):
        >>> from tokenforge.formats.sentencepiece_model import ModelProto, ModelType, PieceType, SentencePiece
        >>> m = ModelProto()
        >>> for text, score, kind in [("<unk>", 0, PieceType.UNKNOWN), ("<s>", 0, PieceType.CONTROL),
        ...                           ("</s>", 0, PieceType.CONTROL), ("▁", -1, 1), ("a", -2, 1), ("b", -3, 1),
        ...                           ("▁a", -1.5, 1)]:
        ...     m.pieces.append(SentencePiece(piece=text, score=score, type=kind))
        >>> m.trainer_spec.model_type = ModelType.BPE
        >>> sp = SentencePieceProcessor(model_proto=m.to_bytes())
        >>> sp.encode("a ab", out_type=str)
        ['▁a', '▁a', 'b']
        >>> sp.encode("a ab", add_bos=True)
        [1, 6, 6, 5]
        >>> sp.decode([6, 6, 5])
        'a ab'
    """

    def __init__(self, model_file: str | os.PathLike | None = None, model_proto: bytes | None = None,
                 out_type: Any = int, add_bos: bool = False, add_eos: bool = False, reverse: bool = False,
                 emit_unk_piece: bool = False, enable_sampling: bool = False, nbest_size: int = -1,
                 alpha: float = 0.1, num_threads: int = -1) -> None:
        """Creates a processor, loading ``model_file`` or ``model_proto`` if given.

        The keyword arguments are defaults for :meth:`encode`, as in sentencepiece.
        """
        self._defaults = dict(out_type=out_type, add_bos=add_bos, add_eos=add_eos, reverse=reverse,
                              emit_unk_piece=emit_unk_piece, enable_sampling=enable_sampling,
                              nbest_size=nbest_size, alpha=alpha, num_threads=num_threads)
        self._core: Any = None
        # True when the defaults ask for nothing but the best segmentation.
        self._plain = not (add_bos or add_eos or reverse or emit_unk_piece or enable_sampling)
        if model_file is not None or model_proto is not None:
            self.load(model_file=model_file, model_proto=model_proto)

    # ---- loading ----

    def load(self, model_file: str | os.PathLike | None = None, model_proto: bytes | None = None) -> bool:
        """Loads a model from a file or from serialized bytes.

        Raises:
            OSError: the file cannot be read.
            ValueError: the data is not a usable SentencePiece model.
        """
        if model_file is not None and model_proto is not None:
            raise ValueError("model_file and model_proto must be exclusive.")
        if model_file is not None:
            return self.load_from_file(model_file)
        if model_proto is not None:
            return self.load_from_serialized_proto(model_proto)
        raise ValueError("Either model_file or model_proto must be specified.")

    def load_from_file(self, filename: str | os.PathLike) -> bool:
        """Loads a ``.model`` file."""
        with open(filename, "rb") as f:
            return self.load_from_serialized_proto(f.read())

    def load_from_serialized_proto(self, serialized: bytes) -> bool:
        """Loads a model from the bytes of a ``.model`` file (or a :class:`ModelProto`)."""
        if isinstance(serialized, ModelProto):
            self._init_from_model(serialized)
            return True
        data = bytes(serialized)
        # Fast path: the native code reads the pieces; Python parses only the other fields.
        rest = _native.spm_model_rest(data)
        if rest is None:  # an unusual or malformed file: the full parser (and its errors)
            self._init_from_model(ModelProto.from_bytes(data))
        else:
            self._init_from_model(ModelProto.from_bytes(rest), data)
        return True

    @property
    def _model(self) -> ModelProto:
        """The loaded ModelProto, parsed in full on first use when loading took the fast path."""
        if self._model_obj is None:
            self._model_obj = ModelProto.from_bytes(self._model_data)
        return self._model_obj

    def _init_from_model(self, model: ModelProto, data: bytes | None = None) -> None:
        """Builds the processor from `model`; with `data`, `model` lacks the pieces and the
        native code reads them from `data`, the whole serialized model."""
        ts, ns = model.trainer_spec, model.normalizer_spec
        if ts.model_type not in (ModelType.UNIGRAM, ModelType.BPE, ModelType.WORD, ModelType.CHAR):
            raise ValueError(f"unsupported model type {ts.model_type}")
        self._model_type = ModelType(ts.model_type)
        if data is None:
            raw = [p._values for p in model.pieces]  # direct reads: 32k attribute lookups add up
            piece_texts = [v.get("piece", "") for v in raw]
            piece_types = [v.get("type", PieceType.NORMAL) for v in raw]
            pieces: Any = [(p.encode("utf-8"), v.get("score", 0.0), t) for p, v, t in zip(piece_texts, raw, piece_types)]
        else:
            pieces = data
        denorm = None
        if model.has("denormalizer_spec") and model.denormalizer_spec.precompiled_charsmap:
            d = model.denormalizer_spec
            denorm = (d.precompiled_charsmap, d.add_dummy_prefix, d.remove_extra_whitespaces, d.escape_whitespaces)
        self._core = _native.SentencePieceProcessor(
            pieces, int(ts.model_type), ts.byte_fallback, ts.unk_surface.encode("utf-8"), ns.precompiled_charsmap,
            (ns.add_dummy_prefix, ns.remove_extra_whitespaces, ns.escape_whitespaces, ts.treat_whitespace_as_suffix),
            denorm)
        if data is None:
            self._pieces, self._types = piece_texts, piece_types
            self._scores = [p[1] for p in pieces]
            self._model_obj: ModelProto | None = model
        else:
            self._pieces, self._scores, self._types = self._core.vocab_lists()
            self._model_obj, self._model_data = None, data
        # sentencepiece's PieceToId: reserved pieces (UNKNOWN, CONTROL, BYTE) win over the
        # others; among equals the last wins.
        reserved = (PieceType.UNKNOWN, PieceType.CONTROL, PieceType.BYTE)
        self._piece_ids: dict[str, int] = dict(zip(self._pieces, range(len(self._pieces))))
        self._piece_ids.update((self._pieces[i], i) for i, t in enumerate(self._types) if t in reserved)
        self._unk = self._types.index(PieceType.UNKNOWN) if PieceType.UNKNOWN in self._types else -1
        self._special_ids = {name: self._special_id(getattr(ts, f"{name}_piece"), ok)
                             for name, ok in (("unk", PieceType.UNKNOWN), ("bos", PieceType.CONTROL),
                                              ("eos", PieceType.CONTROL), ("pad", PieceType.CONTROL))}

    def _special_id(self, piece: str, wanted: PieceType) -> int:
        i = self.piece_to_id(piece)
        return i if i >= 0 and self._types[i] == wanted else -1

    def _require(self) -> Any:
        if self._core is None:
            raise RuntimeError("no model is loaded: call load() first")
        return self._core

    def serialized_model_proto(self) -> bytes:
        """The loaded model as ``.model`` bytes."""
        self._require()
        return self._model.to_bytes()

    def override_normalizer_spec(self, **kwargs: Any) -> None:
        """Changes fields of the model's normalizer spec (``add_dummy_prefix``,
        ``remove_extra_whitespaces``, ``escape_whitespaces``, ...) and re-initializes, as
        sentencepiece 0.2.0/0.2.1's method did; values are parsed as spm_train's flags
        (``True``, ``"false"``, ``1``, ...).  ``serialized_model_proto()`` shows the change.

        Raises:
            ValueError: a field NormalizerSpec lacks, or a value of the wrong kind.
        """
        model = ModelProto.from_bytes(self.serialized_model_proto())
        spec = model.normalizer_spec
        for name, value in kwargs.items():
            spec_of_field = {v[0]: v[1] for v in type(spec).FIELDS.values()}
            kind = spec_of_field.get(name)
            if kind is None:
                raise ValueError(f"unknown field name \"{name}\" in NormalizerSpec")
            setattr(spec, name, _parse_field(name, kind, value))
        self._init_from_model(model)

    # ---- encoding ----

    def encode(self, input: str | bytes | list, out_type: Any = None, add_bos: bool | None = None,
               add_eos: bool | None = None, reverse: bool | None = None, emit_unk_piece: bool | None = None,
               enable_sampling: bool | None = None, nbest_size: int | None = None, alpha: float | None = None,
               num_threads: int | None = None, return_type: Any = None) -> Any:
        """Encodes text (``str``/``bytes``) or a list of texts (on native threads).

        Args:
            input: the text, or a list of texts.
            out_type: ``int`` (ids), ``str`` (pieces), ``bytes`` (pieces as UTF-8),
                ``"offset_mapping"`` (dict of ids, pieces and character offsets, as
                sentencepiece 0.2.3) or ``"proto"``/``"immutable_proto"`` (an
                :class:`EncodedText` with each piece's surface and byte span).
            add_bos, add_eos: put the BOS / EOS id around the result.
            reverse: reverse the pieces.
            emit_unk_piece: show unknown text as the ``<unk>`` piece (pieces output).
            enable_sampling: sample a segmentation (BPE-dropout with probability
                ``alpha``; Unigram over the ``nbest_size`` best or, with -1, all).
            num_threads: threads for a list input, and for one text of at least
                ``PARALLEL_MIN_CHARS`` characters, which is cut where no piece crosses and
                encoded in parts (same result; sampling stays on one thread).  None or
                < 0: ``TOKENFORGE_NUM_THREADS``, else the CPUs this process may use
                (``os.sched_getaffinity``); 0 or 1: one thread.

        Returns:
            The encoding, or a list of them for a list input.

        Raises:
            ValueError: a bad argument combination, or BOS/EOS the model does not have.
        """
        core = self._core
        if (core is not None and self._plain and add_bos is None and add_eos is None and reverse is None
                and emit_unk_piece is None and enable_sampling is None and return_type is None):
            # Fast path: the best segmentation as ids or pieces.
            kind = self._defaults["out_type"] if out_type is None else out_type
            threads_arg = self._defaults["num_threads"] if num_threads is None else num_threads
            if kind is int:
                if isinstance(input, str):
                    if len(input) < PARALLEL_MIN_CHARS:
                        return core.encode_ids(input)
                    return core.encode_ids(input, *_parts(input, threads_arg))
                if isinstance(input, list):
                    threads = _default_threads(threads_arg)
                    if len(input) < threads and _has_long(input):
                        return [core.encode_ids(x, *_parts(x, threads)) for x in input]
                    return core.encode_ids_batch(input, threads)
            elif kind is str and isinstance(input, str):
                return core.encode(input, True, False, -1, 0.0, 0, *_parts(input, threads_arg))
        core = self._require()
        opts = {k: v for k, v in dict(out_type=return_type if out_type is None else out_type, add_bos=add_bos,
                                      add_eos=add_eos, reverse=reverse, emit_unk_piece=emit_unk_piece,
                                      enable_sampling=enable_sampling, nbest_size=nbest_size, alpha=alpha,
                                      num_threads=num_threads).items() if v is not None}
        o = {**self._defaults, **opts}
        kind = o["out_type"]
        _check_kind(kind)
        if kind in _PROTOS:
            _check_no_rewrite(o)  # before the BOS/EOS checks, as sentencepiece
        sampling = bool(o["enable_sampling"])
        if sampling and self._model_type in (ModelType.WORD, ModelType.CHAR):
            raise RuntimeError("SampleEncode is not available for the current model (WORD and CHAR models).")
        if sampling and o["nbest_size"] in (None, 0, 1):
            raise ValueError('When enable_sampling is True, We must specify "nbest_size > 1" or "nbest_size = -1"')
        if sampling and not (math.isfinite(float(o["alpha"])) and float(o["alpha"]) >= 0.0):
            raise RuntimeError("alpha must be finite and >= 0 for sampling")
        if sampling and int(o["nbest_size"]) > _MAX_NBEST:
            raise RuntimeError(f"nbest_size must be nbest_size <= {_MAX_NBEST}")
        if o["add_bos"] and self.bos_id() < 0:
            raise ValueError("BOS token is not defined as a control symbol in this model.")
        if o["add_eos"] and self.eos_id() < 0:
            raise ValueError("EOS token is not defined as a control symbol in this model.")
        if o["emit_unk_piece"] and (kind is str or kind is bytes) and self.unk_id() < 0:
            raise ValueError("UNK token is not defined in this model.")  # a byte-fallback model may lack one
        args = (sampling, int(o["nbest_size"]), float(o["alpha"]))
        rewrite = o["add_bos"] or o["add_eos"] or o["reverse"] or o["emit_unk_piece"]
        if isinstance(input, list):
            threads = _default_threads(o["num_threads"])
            if kind == "serialized_proto":  # written natively, on threads
                return core.encode_serialized_batch(input, threads, *args, _seed_source.getrandbits(64))
            if kind == "offset_mapping" or kind in _PROTOS:
                return [self._encode_one(core, x, kind, o, args) for x in input]
            if not sampling and len(input) < threads and _has_long(input):
                # Fewer texts than threads, some long: each text on all the threads.
                return [self._encode_one(core, x, kind, o, args) for x in input]
            if kind is int and not sampling and not rewrite:
                return core.encode_ids_batch(input, threads)
            seed = _seed_source.getrandbits(64) if sampling else 0
            if o["emit_unk_piece"] or kind is bytes:
                results = core.encode_batch(input, threads, kind is not int, *args, seed, self._pieces, -1, -1, False)
                return [self._rewrite(r, kind, o) for r in results]
            # Reverse, BOS and EOS are applied natively, while the lists are built.
            return core.encode_batch(input, threads, kind is not int, *args, seed, self._pieces,
                                     self.bos_id() if o["add_bos"] else -1, self.eos_id() if o["add_eos"] else -1,
                                     bool(o["reverse"]))
        return self._encode_one(core, input, kind, o, args)

    def _encode_one(self, core: Any, text: str | bytes, kind: Any, o: dict, args: tuple) -> Any:
        seed = _seed_source.getrandbits(64) if args[0] else 0
        # A long text in parts on the pool; a sampled one stays on one thread (its draws
        # follow the text from the start), and so do the proto kinds.
        split = (1, 1) if args[0] else _parts(text, o["num_threads"])
        if kind == "serialized_proto":
            return core.encode_serialized(text, *args, seed)
        if kind == "offset_mapping" or kind in _PROTOS:
            _check_no_rewrite(o)
            if kind != "offset_mapping":  # the pieces come made, with the spans the kind asks for
                data = text.encode("utf-8") if isinstance(text, str) else bytes(text)
                raw = core.encode_proto_pieces(text, *args, seed, kind == "immutable_proto")
                return ImmutableSentencePieceText(data, pieces_of(raw))
            return self._offset_mapping(core.encode_with_offsets(text, *args, seed, *split), text)
        if kind is int and not args[0] and not (o["add_bos"] or o["add_eos"] or o["reverse"]):
            return core.encode_ids(text, *split)
        return self._rewrite(core.encode(text, kind is not int, *args, seed, *split), kind, o)

    def _rewrite(self, result: list, kind: Any, o: dict) -> list:
        """Applies emit_unk_piece, reverse, BOS and EOS, in sentencepiece's order."""
        pieces = kind is not int
        if pieces and o["emit_unk_piece"]:
            unk = self._unk
            result = [self._pieces[unk] if self.piece_to_id(p) == unk else p for p in result]
        if o["reverse"]:
            result.reverse()
        if o["add_bos"]:
            result.insert(0, self._pieces[self.bos_id()] if pieces else self.bos_id())
        if o["add_eos"]:
            result.append(self._pieces[self.eos_id()] if pieces else self.eos_id())
        if kind is bytes:
            result = [p.encode("utf-8") for p in result]
        return result

    @staticmethod
    def _offset_mapping(raw: list, text: str | bytes) -> dict:
        # Byte offsets -> character offsets, as sentencepiece does for str input.
        if isinstance(text, str):
            char_at = _char_index_of_bytes(text.encode("utf-8"))
            offsets = [(char_at[r[2]], char_at[r[3]]) for r in raw]
        else:
            offsets = [(r[2], r[3]) for r in raw]
        return {"ids": [r[0] for r in raw], "pieces": [r[1] for r in raw], "offsets": offsets}

    def nbest_encode(self, input: Any, out_type: Any = None, add_bos: bool | None = None, add_eos: bool | None = None,
                     reverse: bool | None = None, emit_unk_piece: bool | None = None,
                     nbest_size: int | None = None, return_type: Any = None) -> Any:
        """The ``nbest_size`` best segmentations, best first (Unigram models only).

        With a proto ``out_type`` the result is one :class:`ImmutableNBestSentencePieceText`
        (or its bytes) whose ``nbests`` carry their scores.

        Raises:
            RuntimeError: the model is BPE, which has no n-best search (as in sentencepiece).
        """
        core = self._require()
        o = {**self._defaults, **{k: v for k, v in dict(out_type=return_type if out_type is None else out_type,
                                                         add_bos=add_bos, add_eos=add_eos,
                                                         reverse=reverse, emit_unk_piece=emit_unk_piece,
                                                         nbest_size=nbest_size).items() if v is not None}}
        n = max(1, int(o["nbest_size"]))
        if n > _MAX_NBEST:
            raise RuntimeError(f"nbest_size must be nbest_size <= {_MAX_NBEST}")
        kind = _check_kind(o["out_type"])
        if kind in _PROTOS:
            _check_no_rewrite(o)

        def one(text: Any) -> Any:
            try:
                if kind == "serialized_proto":
                    return core.nbest_serialized(text, n)
                results = core.nbest(text, n, kind is not int, kind in _PROTOS)
            except ValueError as e:
                raise RuntimeError(str(e)) from None
            if kind in _PROTOS:
                return self._nbest_proto(results, text, kind)
            return [self._rewrite(seg, kind, o) for seg, _score in results]

        return [one(x) for x in input] if isinstance(input, list) else one(input)

    @staticmethod
    def _nbest_proto(results: list, text: str | bytes, kind: str) -> Any:
        data = text.encode("utf-8") if isinstance(text, str) else bytes(text)
        return finish(ImmutableNBestSentencePieceText(from_offsets(raw, data, score) for raw, score in results), kind)

    def sample_encode_and_score(self, input: Any, out_type: Any = None, add_bos: bool | None = None,
                                add_eos: bool | None = None, reverse: bool | None = None,
                                emit_unk_piece: bool | None = None, num_samples: int | None = None,
                                alpha: float | None = None, wor: bool | None = None,
                                include_best: bool | None = None) -> Any:
        """Several sampled segmentations with their scores (Unigram models only).

        sentencepiece's C++ ``SampleEncodeAndScore``: with ``wor`` (without replacement),
        up to ``num_samples`` distinct segmentations drawn with probability proportional to
        ``exp(alpha * score)``, each with the log of its probability of being in the sample
        (``include_best`` puts the best segmentation first, with score 0); without ``wor``,
        ``num_samples`` independent draws, each with its log probability.  Fewer are
        returned when the text has fewer segmentations.

        Args:
            input: the text, or a list of texts.
            out_type: ``int`` (ids) or ``str`` (pieces); ``bytes`` for UTF-8 pieces; a proto
                type gives one :class:`ImmutableNBestSentencePieceText` (or its bytes) per text.
            num_samples: how many to draw (default 1).
            alpha: the inverse temperature (default 1, as sentencepiece 0.2.1).
            wor: sample without replacement (default False).
            include_best: always include the best segmentation (needs ``wor``).

        Returns:
            A list of ``(ids or pieces, score)``, or one such list per text.

        Raises:
            ValueError: a BPE model, ``num_samples < 1``, ``include_best`` without ``wor``,
                or nothing to return (an empty text, or ``wor`` on a text with a single
                segmentation), as sentencepiece fails on these.
        """
        core = self._require()
        o = {**self._defaults, **{k: v for k, v in dict(out_type=out_type, add_bos=add_bos, add_eos=add_eos,
                                                         reverse=reverse, emit_unk_piece=emit_unk_piece).items()
                                  if v is not None}}
        kind = _check_kind(o["out_type"])
        if kind == "offset_mapping":
            raise ValueError("Invalid out_type: offset_mapping. Must be int, str, bytes or a proto type")
        if kind in _PROTOS:
            _check_no_rewrite(o)
        n = 1 if num_samples is None else int(num_samples)
        theta = 1.0 if alpha is None else float(alpha)

        def one(text: Any) -> Any:
            seed = _seed_source.getrandbits(64)
            if kind == "serialized_proto":
                return core.sample_encode_and_score_serialized(text, n, theta, bool(wor), bool(include_best), seed)
            results = core.sample_encode_and_score(text, n, theta, bool(wor), bool(include_best), kind is not int,
                                                   seed, kind in _PROTOS)
            if kind in _PROTOS:
                return self._nbest_proto(results, text, kind)
            return [(self._rewrite(seg, kind, o), score) for seg, score in results]

        return [one(x) for x in input] if isinstance(input, list) else one(input)

    def calculate_entropy(self, input: Any, alpha: float, num_threads: int | None = None) -> Any:
        """Entropy of the Unigram segmentation distribution p(x) ∝ exp(alpha * score(x)).

        A list gives one entropy per text; ``num_threads`` is accepted for sentencepiece's
        signature (the texts are done one after another, with the same results).
        """
        core = self._require()
        if isinstance(input, list):
            return [core.entropy(x, alpha) for x in input]
        return core.entropy(input, alpha)

    def normalize(self, input: Any, with_offsets: bool | None = None) -> Any:
        """The normalized text (with ▁ for spaces); with offsets, one per character plus one."""
        core = self._require()

        def one(text: Any) -> Any:
            if not with_offsets:
                return core.normalize(text, False)
            norm, n2o = core.normalize(text, True)
            if isinstance(text, bytes):
                return norm.encode("utf-8"), n2o if norm else []  # sentencepiece: no offsets for no text
            # Byte alignment -> one original character offset per normalized character.
            char_at = _char_index_of_bytes(text.encode("utf-8"))
            nbytes = norm.encode("utf-8")
            starts = [i for i in range(len(nbytes)) if (nbytes[i] & 0xC0) != 0x80] + [len(nbytes)]
            return norm, [char_at[n2o[i]] for i in starts] if n2o else [0]

        return [one(x) for x in input] if isinstance(input, list) else one(input)

    # ---- decoding ----

    def decode(self, input: Any, out_type: Any = str, num_threads: int | None = None, return_type: Any = None) -> Any:
        """Decodes ids or pieces; a list of lists decodes each (ids on native threads).

        ``out_type`` is ``str``, ``bytes`` or a proto type (each piece with the text it
        became and that text's span, as sentencepiece's decoded ``SentencePieceText``).

        Raises:
            IndexError: an id outside the vocabulary.
        """
        core = self._require()
        if return_type is not None:
            out_type = return_type
        if out_type is None:
            out_type = str
        if hasattr(input, "tolist"):
            input = input.tolist()
        if input is None or isinstance(input, (str, bytes)) and len(input) == 0:
            input = []
        if isinstance(input, (int, str, bytes)):
            input = [input]
        input = list(input)
        if out_type in _PROTOS:
            if input and (isinstance(input[0], (list, tuple)) or hasattr(input[0], "tolist")):
                return [self._decode_proto(core, x.tolist() if hasattr(x, "tolist") else list(x), out_type)
                        for x in input]
            return self._decode_proto(core, input, out_type)
        if out_type not in (str, bytes):
            raise ValueError(f"Invalid out_type: {out_type}. Must be str, bytes or one of {_PROTOS}")
        finish = (lambda b: b) if out_type is bytes else (lambda b: b.decode("utf-8"))
        try:
            if input and isinstance(input[0], (list, tuple)) or input and hasattr(input[0], "tolist"):
                seqs = [x.tolist() if hasattr(x, "tolist") else list(x) for x in input]
                first = next((x for x in seqs if x), [])
                if first and isinstance(first[0], (str, bytes)):
                    return [finish(core.decode_pieces(x)) for x in seqs]
                threads = _default_threads(self._defaults["num_threads"] if num_threads is None else num_threads)
                return [finish(b) for b in core.decode_ids_batch(seqs, threads)]
            if input and isinstance(input[0], (str, bytes)):
                return finish(core.decode_pieces(input))
            return finish(core.decode_ids(input))
        except KeyError:
            raise IndexError("piece id is out of range.") from None

    def _decode_proto(self, core: Any, seq: list, kind: str) -> Any:
        """sentencepiece's decoded SentencePieceText: each piece (id looked up again from its
        text, as sentencepiece does) with its surface and span in the decoded text."""
        are_pieces = bool(seq) and isinstance(seq[0], (str, bytes))
        if kind == "serialized_proto":
            return core.decode_serialized(seq, are_pieces)
        text, raw, bounds = core.decode_with_spans(seq, are_pieces)
        strs = [p.decode("utf-8", "surrogateescape") if isinstance(p, bytes) else p for p in seq] if are_pieces \
            else self.id_to_piece(seq)
        pieces = [ImmutableSentencePiece(p.encode("utf-8", "surrogateescape"), self.piece_to_id(p),
                                         raw[bounds[2 * i]:bounds[2 * i + 1]], bounds[2 * i], bounds[2 * i + 1])
                  for i, p in enumerate(strs)]
        return finish(ImmutableSentencePieceText(text, pieces), kind)

    def decode_ids(self, input: Any, out_type: Any = str, **kwargs: Any) -> Any:
        """``decode`` for ids."""
        return self.decode(input, out_type=out_type, **kwargs)

    def decode_pieces(self, input: Any, out_type: Any = str, **kwargs: Any) -> Any:
        """``decode`` for pieces."""
        return self.decode(input, out_type=out_type, **kwargs)

    # ---- vocabulary ----

    def get_piece_size(self) -> int:
        """The number of pieces."""
        self._require()
        return len(self._pieces)

    vocab_size = piece_size = get_piece_size

    def __len__(self) -> int:
        return self.get_piece_size()

    def piece_to_id(self, piece: Any) -> Any:
        """The id of a piece (or list of pieces); text that is no piece gives ``unk_id()``."""
        self._require()
        if isinstance(piece, (list, tuple)):
            return [self.piece_to_id(p) for p in piece]
        if isinstance(piece, bytes):
            piece = piece.decode("utf-8", "surrogateescape")
        return self._piece_ids.get(piece, self._unk)

    __getitem__ = piece_to_id

    def _per_id(self, id: Any, table: list) -> Any:
        self._require()
        if isinstance(id, (list, tuple)) or hasattr(id, "tolist"):
            return [self._per_id(i, table) for i in (id.tolist() if hasattr(id, "tolist") else id)]
        if not 0 <= id < len(table):
            raise IndexError("piece id is out of range.")
        return table[id]

    def id_to_piece(self, id: Any) -> Any:
        """The piece of an id (or list of ids).

        Raises:
            IndexError: an id outside the vocabulary.
        """
        return self._per_id(id, self._pieces)

    def get_score(self, id: Any) -> Any:
        """The score of an id (or list of ids)."""
        return self._per_id(id, self._scores)

    def _is_type(self, id: Any, t: PieceType) -> Any:
        r = self._per_id(id, self._types)
        return [x == t for x in r] if isinstance(r, list) else r == t

    def is_unknown(self, id: Any) -> Any:
        """Whether the id is the UNKNOWN piece."""
        return self._is_type(id, PieceType.UNKNOWN)

    def is_control(self, id: Any) -> Any:
        """Whether the id is a CONTROL piece (``<s>``, ``</s>``, ...)."""
        return self._is_type(id, PieceType.CONTROL)

    def is_unused(self, id: Any) -> Any:
        """Whether the id is an UNUSED piece."""
        return self._is_type(id, PieceType.UNUSED)

    def is_byte(self, id: Any) -> Any:
        """Whether the id is a BYTE piece (``<0xXX>``)."""
        return self._is_type(id, PieceType.BYTE)

    def unk_id(self) -> int:
        """The id of ``<unk>``."""
        self._require()
        return self._special_ids["unk"]

    def bos_id(self) -> int:
        """The id of the BOS piece, or -1 if the model has none."""
        self._require()
        return self._special_ids["bos"]

    def eos_id(self) -> int:
        """The id of the EOS piece, or -1 if the model has none."""
        self._require()
        return self._special_ids["eos"]

    def pad_id(self) -> int:
        """The id of the PAD piece, or -1 if the model has none."""
        self._require()
        return self._special_ids["pad"]

    def to_gguf(self, path: Any, *, name: str | None = None) -> None:
        """Writes the model as a tokenizer-only GGUF file (BPE -> ``llama``, Unigram -> ``t5``;
        see :func:`tokenforge.gguf.vocab_from_sentencepiece`), atomically.

        Raises:
            ValueError: a model llama.cpp would encode differently (a normalizer on BPE, ...).
            OSError: the file cannot be written.
            ImportError: the `gguf` package is missing (pip install 'tokenforge[gguf]').
        """
        from tokenforge.gguf import vocab_from_sentencepiece, write_vocab

        self._require()
        write_vocab(vocab_from_sentencepiece(self._model, name=name), path)

    def __getstate__(self) -> dict:
        return {"model_proto": self.serialized_model_proto(), "defaults": self._defaults}

    def __setstate__(self, state: dict) -> None:
        self.__init__(**state["defaults"])
        self.load_from_serialized_proto(state["model_proto"])


def _parse_field(name: str, kind: str, value: Any) -> Any:
    """A NormalizerSpec value from a Python value or spm_train's string spelling."""
    text = str(value).strip().lower()
    if kind == "bool":
        if isinstance(value, bool):
            return value
        if text in ("1", "t", "true", "y", "yes", ""):
            return True
        if text in ("0", "f", "false", "n", "no"):
            return False
        raise ValueError(f"cannot parse \"{value}\" as bool for {name}")
    if kind == "bytes":
        return value if isinstance(value, bytes) else str(value).encode("utf-8")
    return str(value)


def _check_kind(kind: Any) -> Any:
    if kind not in _RETURN_TYPES:
        raise ValueError(f"Invalid return_type: {kind}. Must be one of {_RETURN_TYPES}")
    return kind


def _check_no_rewrite(o: dict) -> None:
    """sentencepiece's proto results cannot be rewritten: BOS, EOS, reverse and unknown pieces fail."""
    if o["add_bos"] or o["add_eos"] or o["reverse"] or o["emit_unk_piece"]:
        raise RuntimeError(_NO_REWRITE)


def _has_long(texts: list) -> bool:
    return any(isinstance(t, (str, bytes)) and len(t) >= PARALLEL_MIN_CHARS for t in texts)


def _char_index_of_bytes(data: bytes) -> list[int]:
    """For each byte offset of UTF-8 ``data`` (and its end), the index of the character it is in."""
    out = []
    chars = 0
    for b in data:
        if (b & 0xC0) != 0x80 and out:
            chars += 1
        out.append(chars)
    out.append(chars + 1 if data else 0)
    return out


add_aliases(SentencePieceProcessor, [
    "encode", "nbest_encode", "sample_encode_and_score", "decode", "decode_ids", "decode_pieces", "normalize",
    "get_piece_size", "piece_to_id", "id_to_piece", "get_score", "is_unknown", "is_control", "is_unused", "is_byte",
    "load", "load_from_file", "load_from_serialized_proto", "calculate_entropy", "override_normalizer_spec"])
