"""``SentencePieceTrainer.train(...)`` and ``train_sentencepiece(...)``: the training API.

The flow is sentencepiece's: options (options.py) -> meta pieces (meta_pieces.py) -> read,
normalize and count the input, choose the alphabet (front_end.py) -> learn pieces (BPE in
the native ``SpmBpeMerger``; Unigram in unigram.py) -> write ``<prefix>.model`` and
``<prefix>.vocab`` atomically, or hand the model bytes to ``model_writer``.

Errors are ``ValueError`` (options, input, sizes) or ``OSError`` (files), never a crash;
nothing is written unless training succeeds.  ``char`` and ``word`` models are not built.
Progress goes to stderr unless ``minloglevel >= 2`` or ``show_progress=False``.

Example:
    >>> import tempfile, os
    >>> d = tempfile.mkdtemp()
    >>> text = ["the cat sat on the mat", "the dog sat on the log"] * 20
    >>> SentencePieceTrainer.train(sentence_iterator=iter(text), model_prefix=os.path.join(d, "m"),
    ...                            vocab_size=30, model_type="bpe", minloglevel=2)
    >>> sp = tokenforge.SentencePieceProcessor(model_file=os.path.join(d, "m.model"))
    >>> sp.get_piece_size(), sp.decode(sp.encode("the cat"))
    (30, 'the cat')
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from typing import Any

import tokenforge
from tokenforge import _native
from tokenforge.formats.sentencepiece_model import ModelProto, ModelType
from tokenforge.sentencepiece.processor import SentencePieceProcessor
from tokenforge.spm_train.charsmaps import denormalizer_spec, fill_normalizer_spec
from tokenforge.spm_train.front_end import Corpus, count_corpus, f32
from tokenforge.spm_train.meta_pieces import meta_pieces
from tokenforge.spm_train.model_file import build_model, save_model
from tokenforge.spm_train.options import parse_options
from tokenforge.training.progress import run_with_progress


def _logger(extra: dict[str, Any]):
    show = extra["show_progress"] and extra["minloglevel"] < 2

    def log(msg: str) -> None:
        if show:
            print(f"spm_train: {msg}", file=sys.stderr, flush=True)

    return log, show


def _learn_bpe(corpus: Corpus, ts: Any, n: int, show: bool) -> list[str]:
    rules = (ts.max_sentencepiece_length, ts.split_by_unicode_script, ts.split_by_whitespace, ts.split_by_number,
             ts.split_digits, ts.treat_whitespace_as_suffix, ts.allow_whitespace_only_pieces)
    merger = _native.SpmBpeMerger(corpus.counter, sorted(corpus.alphabet), rules)
    run_with_progress(lambda: merger.train(n), lambda: merger.merges_done, n, "merges", show)
    return merger.pieces()


def train_model(flags: str | None = None, *, sentence_iterator: Iterable[str] | None = None,
                **options: Any) -> ModelProto:
    """Trains and returns the model without writing it (see :meth:`SentencePieceTrainer.train`)."""
    ts, ns, extra = parse_options(flags, options)
    fill_normalizer_spec(ns)
    denormalizer = denormalizer_spec(extra["denormalization_rule_tsv"]) if extra["denormalization_rule_tsv"] else None
    log, show = _logger(extra)
    if ts.model_type in (ModelType.WORD, ModelType.CHAR):
        raise ValueError(f"model_type={ModelType(ts.model_type).name.lower()} is not supported yet: use bpe or unigram")
    files = list(ts.input)
    if sentence_iterator is None and not files:
        raise ValueError("no input: give input= (files) or sentence_iterator=")
    if sentence_iterator is not None and files:
        raise ValueError("give input= or sentence_iterator=, not both")
    meta = meta_pieces(ts)
    corpus = count_corpus(ts, ns, [p for p, _ in meta.values()], files, sentence_iterator, log)
    alphabet_size = len(corpus.alphabet)
    if alphabet_size + len(meta) > ts.vocab_size:
        raise ValueError(f"vocab_size={ts.vocab_size} is smaller than the {alphabet_size} required characters plus "
                         f"{len(meta)} meta pieces: raise vocab_size or lower character_coverage")
    chars_by_count = sorted(corpus.alphabet.items(), key=lambda kv: (-kv[1], kv[0]))
    if ts.model_type == ModelType.BPE:
        learned = _learn_bpe(corpus, ts, ts.vocab_size - len(meta) - alphabet_size, show)
        pieces = learned + [chr(c) for c, _ in chars_by_count]
        scored = [(p, -f32(float(i))) for i, p in enumerate(pieces)]
        log(f"learned {len(learned)} pieces")
    else:
        from tokenforge.spm_train.unigram import learn_unigram

        scored = learn_unigram(corpus, ts, len(meta), log, show)
    model = build_model(ts, ns, meta, scored, ns.precompiled_charsmap)
    if denormalizer is not None:
        model.denormalizer_spec = denormalizer
    return model


class SentencePieceTrainer:
    """sentencepiece's ``SentencePieceTrainer``, training with tokenforge's trainer."""

    @staticmethod
    def train(arg: str | None = None, *, sentence_iterator: Iterable[str] | None = None,
              model_writer: Any = None, logstream: Any = None, **options: Any) -> None:
        """Trains a model as ``spm_train`` does and writes ``<model_prefix>.model``/``.vocab``.

        Args:
            arg: spm_train's flags as one string (``"--input=a.txt --vocab_size=8000"``).
            sentence_iterator: an iterable of str, one sentence each, instead of ``input``.
            model_writer: an object with ``write(bytes)`` that receives the model instead of
                files (then ``model_prefix`` is not needed).
            logstream: accepted for compatibility; progress goes to stderr.
            **options: any spm_train option by name (``input``, ``model_prefix``,
                ``vocab_size``, ``model_type``, ``user_defined_symbols`` as a list, ...).

        Raises:
            ValueError: a bad option, input or size.
            OSError: an input file is missing or the output cannot be written.
        """
        if arg is not None and not isinstance(arg, str):
            raise ValueError("the first argument must be spm_train's flag string")
        prefix = options.get("model_prefix")
        if arg and "--model_prefix" in arg:
            from tokenforge.spm_train.options import split_flags

            prefix = split_flags(arg).get("model_prefix", prefix)
        if model_writer is None and not prefix:
            raise ValueError("model_prefix is required (or give model_writer=)")
        model = train_model(arg, sentence_iterator=sentence_iterator, **options)
        if model_writer is not None:
            model_writer.write(model.to_bytes())
            return
        save_model(model, prefix, model.trainer_spec.vocabulary_output_piece_score)

    Train = train


class TrainedSentencePieceProcessor(SentencePieceProcessor):
    """A :class:`SentencePieceProcessor` fresh from training, which can ``save(prefix)``."""

    def save(self, prefix: str | os.PathLike) -> None:
        """Writes ``<prefix>.model`` and ``<prefix>.vocab`` atomically."""
        save_model(self._model, prefix, self._model.trainer_spec.vocabulary_output_piece_score)


def train_sentencepiece(data: str | os.PathLike | Iterable[str], vocab_size: int, *, model_type: str = "unigram",
                        **options: Any) -> TrainedSentencePieceProcessor:
    """Trains a SentencePiece model and returns it ready to encode.

    Args:
        data: a file path, a list of file paths, or an iterable of str sentences.
        vocab_size: the number of pieces, meta pieces included.
        model_type: "unigram" or "bpe".
        **options: any spm_train option (see :meth:`SentencePieceTrainer.train`).

    Raises:
        ValueError, OSError: as :meth:`SentencePieceTrainer.train`.

    >>> sp = train_sentencepiece(["low lower lowest"] * 10, 18, model_type="bpe", minloglevel=2)
    >>> sp.get_piece_size(), sp.decode(sp.encode("lowest"))
    (18, 'lowest')
    """
    if isinstance(data, (str, os.PathLike)):
        model = train_model(input=[os.fspath(data)], vocab_size=vocab_size, model_type=model_type, **options)
    elif isinstance(data, (list, tuple)) and data and all(isinstance(x, os.PathLike) or
                                                            (isinstance(x, str) and os.path.isfile(x)) for x in data):
        model = train_model(input=[os.fspath(x) for x in data], vocab_size=vocab_size, model_type=model_type, **options)
    else:
        model = train_model(sentence_iterator=iter(data), vocab_size=vocab_size, model_type=model_type, **options)
    return TrainedSentencePieceProcessor(model_proto=model.to_bytes())


__all__ = ["SentencePieceTrainer", "TrainedSentencePieceProcessor", "train_sentencepiece"]
