"""SentencePiece models from a GGUF: ``llama`` (BPE by score) and ``t5`` (Unigram).

The GGUF's tokens, scores and types become a SentencePiece ``ModelProto`` built in memory
and loaded into :class:`tokenforge.SentencePieceProcessor`, so encoding runs tokenforge's
native SentencePiece code.  GGUF token types have SentencePiece's numbers (NORMAL 1 ...
BYTE 6); ``UNDEFINED`` (0) becomes NORMAL.

``llama``: llama.cpp normalizes nothing but spaces (each becomes ``▁``) and adds the space
prefix itself, per text fragment (see :mod:`.engine`), so the proto has no charsmap, no
dummy prefix and keeps extra whitespace; byte fallback is on when the vocabulary has BYTE
tokens.  ``t5``: the proto carries ``tokenizer.ggml.precompiled_charsmap`` and the
``add_space_prefix`` / ``remove_extra_whitespaces`` flags (llama.cpp's defaults: off).

What this module leaves out: special-token handling and BOS/EOS (:mod:`.engine`).

Example:
    >>> sp = spm_processor(["<unk>", "<s>", "</s>", "▁", "a", "▁a"], [0, 0, 0, -1, -2, -0.5], [2, 3, 3, 1, 1, 1], "llama")
    >>> sp.encode(" a a")
    [5, 5]
"""

from __future__ import annotations

from tokenforge.sentencepiece import ModelProto, ModelType, PieceType, SentencePieceProcessor

SentencePiece = ModelProto.MESSAGES["pieces"]  # one vocabulary entry of the proto


def model_proto(tokens: list[str], scores: list[float] | None, token_types: list[int] | None, model: str, *,
                precompiled_charsmap: bytes | None = None, add_space_prefix: bool = False,
                remove_extra_whitespaces: bool = False, special_ids: dict[str, int] | None = None,
                pad_bytes: bool = False) -> ModelProto:
    """A SentencePiece ModelProto for a GGUF ``llama`` or ``t5`` vocabulary.

    SentencePiece's byte fallback wants all 256 ``<0xXX>`` pieces; a vocabulary that lacks
    some (Gemma has no ``<0x09>``: its tab is a token) gets them after its last id with
    `pad_bytes` -- never emitted, as llama.cpp spells such a byte as its one-character token.

    Raises:
        ValueError: `model` is neither ``llama`` nor ``t5``, or byte pieces are missing (and
            not padded, or for a byte no one-character token spells).
    """
    if model not in ("llama", "t5"):
        raise ValueError(f"model {model!r} is not a SentencePiece model (llama or t5)")
    m = ModelProto()
    types = list(token_types or [PieceType.NORMAL] * len(tokens))
    # SentencePiece wants one UNKNOWN piece: the unk id's.  Other UNKNOWN-typed tokens (Phi-3's
    # padding) become UNUSED, which encoding never emits, as in llama.cpp.
    unk = (special_ids or {}).get("unk")
    if unk is None and PieceType.UNKNOWN in types:
        unk = types.index(PieceType.UNKNOWN)
    types = [PieceType.UNUSED if t == PieceType.UNKNOWN else t for t in types]
    if unk is not None and 0 <= unk < len(tokens):
        types[unk] = PieceType.UNKNOWN
    for i, text in enumerate(tokens):
        kind = types[i] or PieceType.NORMAL
        m.pieces.append(SentencePiece(piece=text, score=scores[i] if scores else 0.0, type=kind))
    if PieceType.BYTE in types:
        _pad_byte_pieces(m, tokens, types, pad_bytes)
    ts, ns = m.trainer_spec, m.normalizer_spec
    ts.model_type = ModelType.BPE if model == "llama" else ModelType.UNIGRAM
    ts.byte_fallback = PieceType.BYTE in types
    ts.vocab_size = len(m.pieces)
    for short in ("unk", "bos", "eos", "pad"):
        i = (special_ids or {}).get(short)
        setattr(ts, f"{short}_id", i if i is not None and 0 <= i < len(tokens) else -1)
        if i is not None and 0 <= i < len(tokens):
            setattr(ts, f"{short}_piece", tokens[i])
    if model == "llama":
        ns.name = "identity"
        ns.add_dummy_prefix = False
        ns.remove_extra_whitespaces = False
    else:
        ns.name = "user_defined" if precompiled_charsmap else "identity"
        if precompiled_charsmap:
            ns.precompiled_charsmap = precompiled_charsmap
        ns.add_dummy_prefix = add_space_prefix
        ns.remove_extra_whitespaces = remove_extra_whitespaces
    ns.escape_whitespaces = True
    return m


def _pad_byte_pieces(m: ModelProto, tokens: list[str], types: list[int], pad: bool) -> None:
    have = {tokens[i] for i, t in enumerate(types) if t == PieceType.BYTE}
    missing = [b for b in range(256) if f"<0x{b:02X}>" not in have]
    if not missing:
        return
    normal = {tokens[i] for i, t in enumerate(types) if t in (PieceType.NORMAL, PieceType.USER_DEFINED)}
    unspelled = [b for b in missing if b >= 0x80 or chr(b) not in normal]
    if not pad or unspelled:
        raise ValueError(f"byte fallback without the <0x{(unspelled or missing)[0]:02X}> token"
                         + (" (a SentencePiece model needs all 256)" if not unspelled else
                            ": text holding that byte has no tokens"))
    for b in missing:
        m.pieces.append(SentencePiece(piece=f"<0x{b:02X}>", score=0.0, type=PieceType.BYTE))


def spm_processor(tokens: list[str], scores: list[float] | None, token_types: list[int] | None, model: str,
                  **options) -> SentencePieceProcessor:
    """A :class:`SentencePieceProcessor` over the vocabulary (see :func:`model_proto`).

    Raises:
        ValueError: the vocabulary is not a usable SentencePiece model.
    """
    proto = model_proto(tokens, scores, token_types, model, pad_bytes=True, **options)
    return SentencePieceProcessor(model_proto=proto.to_bytes())
