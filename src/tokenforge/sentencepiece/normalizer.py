"""`SentencePieceNormalizer`: sentencepiece's normalizer on its own, as in sentencepiece 0.2.3.

It normalizes text as a model would before segmenting it: the precompiled charsmap of a
model's ``NormalizerSpec``, of a built-in rule (``nmt_nfkc``, ``nfkc``, ``nmt_nfkc_cf``,
``nfkc_cf``, ``identity``) or of a serialized spec, then the spec's whitespace options
(a dummy ▁ prefix, extra whitespace removed, spaces escaped as ▁).  As in 0.2.3, those
options come from the spec (a built-in rule's spec has protobuf's defaults: all three on)
and the constructor's ``add_dummy_prefix``/``escape_whitespaces``/``remove_extra_whitespaces``
change them only when given; 0.2.0/0.2.1 set all three to False unless given.

The work is the native normalizer's (the one :class:`~tokenforge.SentencePieceProcessor`
uses, over a one-piece model made for it); this module keeps the spec.

What it leaves out: ``rule_tsv`` and ``norm_map`` (compiling a charsmap from rules) and
``Decompile``: they raise ``ValueError``.

Example:
    >>> SentencePieceNormalizer(rule_name="nfkc_cf").normalize("ＡＢＣ  x")
    '▁abc▁x'
    >>> SentencePieceNormalizer(rule_name="identity", add_dummy_prefix=False).normalize(["a b"], with_offsets=True)
    [('a▁b', [0, 1, 2, 3])]
"""

from __future__ import annotations

import os
from typing import Any

from tokenforge.formats.sentencepiece_model import ModelProto, NormalizerSpec, PieceType, SentencePiece
from tokenforge.sentencepiece.processor import SentencePieceProcessor
from tokenforge.spm_train.charsmaps import RULES, load_charsmap

__all__ = ["SentencePieceNormalizer"]


class SentencePieceNormalizer:
    """Normalizes text as a SentencePiece model's normalizer does.

    Give exactly one source: ``model_file`` or ``model_proto`` (a ``.model``; its
    ``NormalizerSpec`` is used), ``normalizer_spec`` (a serialized ``NormalizerSpec`` or a
    :class:`~tokenforge.sentencepiece.NormalizerSpec`) or ``rule_name``.

    Raises:
        ValueError: no source, an unknown rule name, ``rule_tsv``/``norm_map`` (not built),
            or data that is not a model or spec.
        OSError: ``model_file`` cannot be read.
    """

    def __init__(self, model_file: str | os.PathLike | None = None, model_proto: bytes | None = None,
                 normalizer_spec: Any = None, rule_tsv: str | None = None, rule_name: str | None = None,
                 norm_map: Any = None, add_dummy_prefix: bool | None = None, escape_whitespaces: bool | None = None,
                 remove_extra_whitespaces: bool | None = None) -> None:
        if model_file:
            with open(model_file, "rb") as f:
                spec = ModelProto.from_bytes(f.read()).normalizer_spec
        elif model_proto:
            spec = _model_of(model_proto).normalizer_spec
        elif normalizer_spec:
            spec = normalizer_spec if isinstance(normalizer_spec, NormalizerSpec) else \
                NormalizerSpec.from_bytes(_bytes_of(normalizer_spec))
        elif rule_tsv or norm_map:
            raise ValueError("SentencePieceNormalizer: rule_tsv and norm_map (compiling a charsmap from rules) are "
                             "not supported; use rule_name, a model or a normalizer_spec")
        elif rule_name:
            if rule_name not in RULES:
                raise ValueError(f"No precompiled charsmap is found: {rule_name} (built in: {', '.join(RULES)})")
            spec = NormalizerSpec(name=rule_name, precompiled_charsmap=load_charsmap(rule_name))
        else:
            raise ValueError("no model is specified")
        for name, value in (("add_dummy_prefix", add_dummy_prefix), ("escape_whitespaces", escape_whitespaces),
                            ("remove_extra_whitespaces", remove_extra_whitespaces)):
            if value is not None:
                setattr(spec, name, bool(value))
        self._load(spec)

    def _load(self, spec: NormalizerSpec) -> None:
        self._spec = spec
        model = ModelProto()
        model.normalizer_spec = spec
        # The processor needs a vocabulary; one <unk> piece, never used by normalize().
        runner = ModelProto.from_bytes(model.to_bytes())
        runner.pieces.append(SentencePiece(piece="<unk>", score=0.0, type=PieceType.UNKNOWN))
        self._model = model
        self._processor = SentencePieceProcessor(model_proto=runner.to_bytes())

    def normalize(self, input: Any, with_offsets: bool | None = None) -> Any:
        """The normalized text (``str`` or ``bytes``, as given, or a list of them); with
        offsets, ``(text, offsets)``: one offset per character of the result (per byte for
        bytes) plus one, into the input.

        >>> SentencePieceNormalizer(rule_name="nfkc").normalize("ｶ".encode(), with_offsets=True)
        (b'\\xe2\\x96\\x81\\xe3\\x82\\xab', [0, 0, 0, 0, 0, 0, 3])
        """
        return self._processor.normalize(input, with_offsets=with_offsets)

    def serialized_normalizer_spec(self) -> bytes:
        """The ``NormalizerSpec`` in use, serialized."""
        return self._spec.to_bytes()

    def serialized_model_proto(self) -> bytes:
        """A ``ModelProto`` holding only that ``NormalizerSpec``, as sentencepiece 0.2.3 gives it."""
        return self._model.to_bytes()

    def __getstate__(self) -> bytes:
        return self.serialized_model_proto()

    def __setstate__(self, state: bytes) -> None:
        self._load(ModelProto.from_bytes(state).normalizer_spec)


def _bytes_of(x: Any) -> bytes:
    return x.SerializeToString() if hasattr(x, "SerializeToString") else x.to_bytes() if hasattr(x, "to_bytes") \
        else bytes(x)


def _model_of(x: Any) -> ModelProto:
    return x if isinstance(x, ModelProto) else ModelProto.from_bytes(_bytes_of(x))  # type: ignore[return-value]


SentencePieceNormalizer.Normalize = SentencePieceNormalizer.normalize  # type: ignore[attr-defined]  # sentencepiece's name
