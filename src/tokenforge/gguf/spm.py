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

import struct

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
    m = ModelProto()
    for text, score, kind in _piece_list(tokens, scores, token_types, model, special_ids, pad_bytes):
        m.pieces.append(SentencePiece(piece=text, score=score, type=kind))
    _fill_specs(m, len(m.pieces), tokens, token_types, model, precompiled_charsmap=precompiled_charsmap,
                add_space_prefix=add_space_prefix, remove_extra_whitespaces=remove_extra_whitespaces,
                special_ids=special_ids)
    return m


def _piece_list(tokens: list[str], scores: list[float] | None, token_types: list[int] | None, model: str,
                special_ids: dict[str, int] | None, pad_bytes: bool) -> list[tuple[str, float, int]]:
    """(text, score, SentencePiece type) of every piece, padding bytes included."""
    if model not in ("llama", "t5"):
        raise ValueError(f"model {model!r} is not a SentencePiece model (llama or t5)")
    types = list(token_types or [PieceType.NORMAL] * len(tokens))
    # SentencePiece wants one UNKNOWN piece: the unk id's.  Other UNKNOWN-typed tokens (Phi-3's
    # padding) become UNUSED, which encoding never emits, as in llama.cpp.
    unk = (special_ids or {}).get("unk")
    if unk is None and PieceType.UNKNOWN in types:
        unk = types.index(PieceType.UNKNOWN)
    types = [PieceType.UNUSED if t == PieceType.UNKNOWN else (t or PieceType.NORMAL) for t in types]
    if unk is not None and 0 <= unk < len(tokens):
        types[unk] = PieceType.UNKNOWN
    pieces = list(zip(tokens, scores if scores else [0.0] * len(tokens), types))
    if PieceType.BYTE in types:
        pieces += [(f"<0x{b:02X}>", 0.0, PieceType.BYTE) for b in _missing_bytes(tokens, types, pad_bytes)]
    return pieces


def _fill_specs(m: ModelProto, n_pieces: int, tokens: list[str], token_types: list[int] | None, model: str, *,
                precompiled_charsmap: bytes | None, add_space_prefix: bool, remove_extra_whitespaces: bool,
                special_ids: dict[str, int] | None) -> None:
    """The trainer and normalizer specs of the proto (everything but the pieces)."""
    types = token_types or ()
    ts, ns = m.trainer_spec, m.normalizer_spec
    ts.model_type = ModelType.BPE if model == "llama" else ModelType.UNIGRAM
    ts.byte_fallback = PieceType.BYTE in types
    ts.vocab_size = n_pieces
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


def _missing_bytes(tokens: list[str], types: list[int], pad: bool) -> list[int]:
    """The bytes without a ``<0xXX>`` piece, to pad with (if `pad` and each is spelled)."""
    have = {tokens[i] for i, t in enumerate(types) if t == PieceType.BYTE}
    missing = [b for b in range(256) if f"<0x{b:02X}>" not in have]
    if not missing:
        return []
    normal = {tokens[i] for i, t in enumerate(types) if t in (PieceType.NORMAL, PieceType.USER_DEFINED)}
    unspelled = [b for b in missing if b >= 0x80 or chr(b) not in normal]
    if not pad or unspelled:
        raise ValueError(f"byte fallback without the <0x{(unspelled or missing)[0]:02X}> token"
                         + (" (a SentencePiece model needs all 256)" if not unspelled else
                            ": text holding that byte has no tokens"))
    return missing


def _pieces_bytes(pieces: list[tuple[str, float, int]]) -> bytes:
    """The serialized ``pieces`` field (number 1) of a ModelProto, every piece in order."""
    out = bytearray()
    pack = struct.Struct("<f").pack
    for text, score, kind in pieces:
        raw = text.encode("utf-8")
        body = b"\x0a" + _varint(len(raw)) + raw + b"\x15" + pack(score) + b"\x18" + _varint(kind)
        out += b"\x0a" + _varint(len(body)) + body
    return bytes(out)


def _varint(n: int) -> bytes:
    if n < 0x80:
        return _SMALL[n]
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


_SMALL = [bytes([n]) for n in range(0x80)]


def spm_processor(tokens: list[str], scores: list[float] | None, token_types: list[int] | None, model: str,
                  **options) -> SentencePieceProcessor:
    """A :class:`SentencePieceProcessor` over the vocabulary (see :func:`model_proto`).

    Raises:
        ValueError: the vocabulary is not a usable SentencePiece model.
    """
    pieces = _piece_list(tokens, scores, token_types, model, options.get("special_ids"), True)
    specs = ModelProto()
    _fill_specs(specs, len(pieces), tokens, token_types, model, **{"precompiled_charsmap": None,
                "add_space_prefix": False, "remove_extra_whitespaces": False, "special_ids": None, **options})
    # Fields in number order, as protobuf writes them: the pieces (1), then the specs.
    return SentencePieceProcessor(model_proto=_pieces_bytes(pieces) + specs.to_bytes())
