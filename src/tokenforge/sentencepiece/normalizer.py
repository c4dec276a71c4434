"""`SentencePieceNormalizer`: sentencepiece's normalizer on its own, as in sentencepiece 0.2.3.

It normalizes text as a model would before segmenting it: the precompiled charsmap of a
model's ``NormalizerSpec``, of a built-in rule (``nmt_nfkc``, ``nfkc``, ``nmt_nfkc_cf``,
``nfkc_cf``, ``identity``), of a serialized spec, of a rule TSV (``rule_tsv``) or of
``(source, target)`` pairs (``norm_map``), compiled as sentencepiece compiles them, then the spec's whitespace options
(a dummy ▁ prefix, extra whitespace removed, spaces escaped as ▁).  As in 0.2.3, those
options come from the spec (a built-in rule's spec has protobuf's defaults: all three on)
and the constructor's ``add_dummy_prefix``/``escape_whitespaces``/``remove_extra_whitespaces``
change them only when given; 0.2.0/0.2.1 set all three to False unless given.

The work is the native normalizer's (the one :class:`~tokenforge.SentencePieceProcessor`
uses, over a one-piece model made for it); this module keeps the spec.

``Decompile()`` lists the charsmap's rules.  What it leaves out: nothing of 0.2.3's API.

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
from tokenforge.spm_train.charsmap_compiler import compile_charsmap, decompile_charsmap
from tokenforge.spm_train.charsmaps import RULES, fill_normalizer_spec, load_charsmap

__all__ = ["SentencePieceNormalizer"]


class SentencePieceNormalizer:
    """Normalizes text as a SentencePiece model's normalizer does.

    Give exactly one source: ``model_file`` or ``model_proto`` (a ``.model``; its
    ``NormalizerSpec`` is used), ``normalizer_spec`` (a serialized ``NormalizerSpec`` or a
    :class:`~tokenforge.sentencepiece.NormalizerSpec`), ``rule_tsv`` (a rule file, see
    :mod:`tokenforge.spm_train.charsmap_compiler`), ``rule_name`` or ``norm_map`` (a list
    of ``(source, target)`` strings).

    Raises:
        ValueError: no source, an unknown rule name, a bad rule line (named) or pair, or
            data that is not a model or spec.
        OSError: ``model_file`` or ``rule_tsv`` cannot be read.
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
        elif rule_tsv:
            spec = fill_normalizer_spec(NormalizerSpec(normalization_rule_tsv=os.fspath(rule_tsv)))
        elif rule_name:
            if rule_name not in RULES:
                raise ValueError(f"No precompiled charsmap is found: {rule_name} (built in: {', '.join(RULES)})")
            spec = NormalizerSpec(name=rule_name, precompiled_charsmap=load_charsmap(rule_name))
        elif norm_map:
            spec = NormalizerSpec(precompiled_charsmap=_compile_pairs(norm_map))
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

    def decompile(self) -> list[tuple[str, str]]:
        """The charsmap's rules as ``(source, target)`` pairs, in the UTF-8 order of the sources.

        Raises:
            ValueError: the spec has no charsmap (the ``identity`` rule).

        >>> SentencePieceNormalizer(norm_map=[("b", "B"), ("a", "")]).decompile()
        [('a', ''), ('b', 'B')]
        """
        if not self._spec.precompiled_charsmap:
            raise ValueError("no precompiled charsmap in this normalizer spec")
        return decompile_charsmap(self._spec.precompiled_charsmap)

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


def _compile_pairs(pairs: Any) -> bytes:
    """The charsmap of ``norm_map``: (source, target) string pairs, each source once."""
    rules: dict[str, str] = {}
    for pair in pairs:
        if not (isinstance(pair, (tuple, list)) and len(pair) == 2 and all(isinstance(x, str) for x in pair)):
            raise ValueError(f"norm_map must hold (source, target) string pairs, not {pair!r}")
        source, target = pair
        if not source:
            raise ValueError("norm_map: a source string cannot be empty")
        if source in rules:
            raise ValueError(f"norm_map: duplicate source string {source!r}")
        rules[source] = target
    return compile_charsmap(rules)


def _bytes_of(x: Any) -> bytes:
    return x.SerializeToString() if hasattr(x, "SerializeToString") else x.to_bytes() if hasattr(x, "to_bytes") \
        else bytes(x)


def _model_of(x: Any) -> ModelProto:
    return x if isinstance(x, ModelProto) else ModelProto.from_bytes(_bytes_of(x))  # type: ignore[return-value]


SentencePieceNormalizer.Normalize = SentencePieceNormalizer.normalize  # type: ignore[attr-defined]  # sentencepiece's name
SentencePieceNormalizer.Decompile = SentencePieceNormalizer.decompile  # type: ignore[attr-defined]
