"""SentencePiece models: load a ``.model`` file and encode/decode exactly as ``sentencepiece``.

The pieces, one concept per module:

* :mod:`tokenforge.formats.sentencepiece_model` — the ``.model`` file format (protobuf wire format, read and write);
* :mod:`.processor` — :class:`SentencePieceProcessor`, sentencepiece's Python API;
* :mod:`.proto` — encodings with alignment (``ImmutableSentencePieceText``), whose wire
  format is :mod:`tokenforge.formats.sentencepiece_text`;
* :mod:`.normalizer` — :class:`SentencePieceNormalizer`, the normalizer on its own;
* :mod:`.reference` — a slow pure-Python normalizer and BPE/Unigram encoder, the oracle of
  the property tests.

The per-byte work (normalization, BPE merging, the Viterbi lattice, decoding) runs in the
C++ core, ``tokenforge._native.SentencePieceProcessor``.
"""

from tokenforge.formats.sentencepiece_model import ModelProto, ModelType, NormalizerSpec, PieceType, TrainerSpec
from tokenforge.sentencepiece.processor import (
    EncodedPiece,
    EncodedText,
    SentencePieceProcessor,
    set_random_generator_seed,
)
from tokenforge.sentencepiece.proto import (
    ImmutableNBestSentencePieceText,
    ImmutableSentencePiece,
    ImmutableSentencePieceText,
)
from tokenforge.sentencepiece.normalizer import SentencePieceNormalizer  # noqa: I001 (after the processor it uses)

__all__ = [
    "EncodedPiece",
    "EncodedText",
    "ImmutableNBestSentencePieceText",
    "ImmutableSentencePiece",
    "ImmutableSentencePieceText",
    "ModelProto",
    "ModelType",
    "NormalizerSpec",
    "PieceType",
    "SentencePieceNormalizer",
    "SentencePieceProcessor",
    "TrainerSpec",
    "set_random_generator_seed",
]
