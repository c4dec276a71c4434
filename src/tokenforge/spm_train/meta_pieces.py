"""The pieces sentencepiece puts at fixed ids before the learned ones.

``<unk>``, ``<s>``, ``</s>`` and ``<pad>`` go to ``unk_id``/``bos_id``/``eos_id``/``pad_id``
(a negative id leaves the piece out); then the control symbols, the user-defined symbols and,
with ``byte_fallback``, ``<0x00>``..``<0xFF>`` fill the lowest free ids in that order.
A control or user-defined symbol spelled like ``<s>``/``</s>``/``<pad>`` retypes that
piece instead of adding one.  This mirrors sentencepiece's trainer (InitMetaPieces).

Example:
    >>> from tokenforge.formats.sentencepiece_model import TrainerSpec
    >>> meta = meta_pieces(TrainerSpec(vocab_size=100, user_defined_symbols=["<x>"]))
    >>> [(i, p, int(t)) for i, (p, t) in sorted(meta.items())]
    [(0, '<unk>', 2), (1, '<s>', 3), (2, '</s>', 3), (3, '<x>', 4)]
"""

from __future__ import annotations

from tokenforge.formats.sentencepiece_model import PieceType, TrainerSpec


def meta_pieces(ts: TrainerSpec) -> dict[int, tuple[str, PieceType]]:
    """id -> (piece, type) of every meta piece.

    Raises:
        ValueError: an id out of range or used twice, no ``<unk>``, a symbol given twice.
    """
    meta: dict[int, tuple[str, PieceType]] = {}
    for name in ("unk", "bos", "eos", "pad"):
        pid, piece = getattr(ts, f"{name}_id"), getattr(ts, f"{name}_piece")
        if pid < 0:
            if name == "unk":
                raise ValueError("unk_id must be >= 0: <unk> must be defined")
            continue
        if pid >= ts.vocab_size:
            raise ValueError(f"{name}_id={pid} is not below vocab_size={ts.vocab_size}")
        if pid in meta:
            raise ValueError(f"{name}_id={pid} is already the id of {meta[pid][0]}")
        meta[pid] = (piece, PieceType.UNKNOWN if name == "unk" else PieceType.CONTROL)
    specials = {getattr(ts, f"{n}_piece"): getattr(ts, f"{n}_id") for n in ("bos", "eos", "pad")}
    seen: set[str] = set()
    next_id = 0

    def insert(piece: str, kind: PieceType) -> None:
        nonlocal next_id
        if not piece:
            raise ValueError("an empty control or user-defined symbol")
        if piece in seen:
            raise ValueError(f"{piece!r} is defined twice")
        seen.add(piece)
        if piece == ts.unk_piece:
            raise ValueError(f"{piece} must not be given as a control or user-defined symbol")
        if specials.get(piece, -1) >= 0:
            pid = specials[piece]
            meta[pid] = (meta[pid][0], kind)
            return
        while next_id in meta:
            next_id += 1
        meta[next_id] = (piece, kind)

    for piece in ts.control_symbols:
        insert(piece, PieceType.CONTROL)
    for piece in ts.user_defined_symbols:
        insert(piece, PieceType.USER_DEFINED)
    if ts.byte_fallback:
        for b in range(256):
            insert(f"<0x{b:02X}>", PieceType.BYTE)
    return meta
