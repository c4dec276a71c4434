"""The ``.model`` and ``.vocab`` files a training run writes, as sentencepiece writes them.

Pieces go in id order: a meta piece at its id (score 0), else the next learned piece (with
its score and type NORMAL, which is left unwritten).  The trainer spec holds the options the
caller set, the normalizer spec its rule name, charsmap and the options set.  The
``.vocab`` file has ``piece<TAB>score`` lines, scores printed as C++ streams print a float
(six significant digits, ``-0`` for the first BPE piece).  Both are written atomically.

Example:
    >>> vocab_text([("<unk>", 0.0), ("▁t", -0.0), ("he", -1.0)])
    '<unk>\\t0\\n▁t\\t-0\\nhe\\t-1\\n'
"""

from __future__ import annotations

import os

from tokenforge._files import write_atomic
from tokenforge.formats.sentencepiece_model import ModelProto, NormalizerSpec, PieceType, SentencePiece, TrainerSpec


def build_model(ts: TrainerSpec, ns: NormalizerSpec, meta: dict[int, tuple[str, PieceType]],
                learned: list[tuple[str, float]], charsmap: bytes) -> ModelProto:
    """The ModelProto of a finished training.

    Raises:
        ValueError: fewer pieces than ``vocab_size`` with ``hard_vocab_limit``, or a piece
            that is also a meta piece.
    """
    total = len(meta) + len(learned)
    if total < ts.vocab_size and ts.hard_vocab_limit:
        raise ValueError(f"vocab_size={ts.vocab_size} is too large: the input gives only {total} pieces "
                         f"(lower vocab_size, or set hard_vocab_limit=False)")
    m = ModelProto()
    seen: set[str] = set()
    it = iter(learned)
    for pid in range(max(total, ts.vocab_size)):
        if pid in meta:
            piece, kind = meta[pid]
            sp = SentencePiece.of(piece, 0.0, kind)
        else:
            nxt = next(it, None)
            if nxt is None:
                continue
            piece = nxt[0]
            sp = SentencePiece.of(piece, nxt[1])
        if piece in seen:
            raise ValueError(f"piece {piece!r} is defined twice")
        seen.add(piece)
        m.pieces.append(sp)
    spec = TrainerSpec.from_bytes(ts.to_bytes())
    if not ts.hard_vocab_limit:
        spec.vocab_size = len(m.pieces)
    m.trainer_spec = spec
    norm = NormalizerSpec(name=ns.name, precompiled_charsmap=charsmap)
    for name, value in ns._values.items():
        if name not in ("name", "precompiled_charsmap"):
            setattr(norm, name, value)
    m.normalizer_spec = norm
    return m


def vocab_text(pieces: list[tuple[str, float]]) -> str:
    """The ``.vocab`` file's text."""
    return "".join(f"{p}\t{s:g}\n" for p, s in pieces)


def save_model(model: ModelProto, prefix: str | os.PathLike, with_scores: bool = True) -> None:
    """Writes ``<prefix>.model`` and ``<prefix>.vocab`` atomically.

    Raises:
        OSError: the folder is not writable.
    """
    prefix = os.fspath(prefix)
    write_atomic(prefix + ".model", model.to_bytes())
    pieces = [(p.piece, p.score) for p in model.pieces]
    text = vocab_text(pieces) if with_scores else "".join(p + "\n" for p, _ in pieces)
    write_atomic(prefix + ".vocab", text.encode("utf-8"))
