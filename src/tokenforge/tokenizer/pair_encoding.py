"""A pair of texts framed by a post-processor's pair template, each list joined when first read.

`Tokenizer.encode_batch` of (text, pair) tuples on a native path gets each side's Encoding
from native threads (`Tokenizer._native_pair_sides`: documents whose lists are built only
when read).  The post-processor's work on them is then a fixed layout: special tokens and the
two sides in the pair template's order, each with its type id.  :func:`pair_layout` reads that
layout off the post-processor once; :class:`PairEncoding` holds the two sides and the layout,
and makes each of its lists from theirs (list concatenation in C) the first time it is read, so
a caller reading `ids` and `attention_mask` pays for nothing else.  Truncation cuts the sides
first (`Tokenizer._pair_encoding`: DocEncoding.cut, as truncation.pair_keep says); the
overflowing windows, read by few callers, come from the general path when first read.  Every
field is what the general path (`Tokenizer._post_process`, then `processors.merge`) gives the
same pair.

Example:
    >>> from tokenforge.processors import from_dict
    >>> p = from_dict({"type": "BertProcessing", "sep": ["[SEP]", 102], "cls": ["[CLS]", 101]})
    >>> [(s[0], s[1]) if s[0] is not None else s[1]["ids"] for s in pair_layout(p, True)]
    [[101], (0, 0), [102], (1, 1), [102]]
"""

from __future__ import annotations

from tokenforge.processors import BertProcessing, RobertaProcessing, TemplateProcessing
from tokenforge.processors import ByteLevel as ByteLevelProcessor
from tokenforge.processors import Sequence as ProcSeq
from tokenforge.tokenizer.doc_encoding import DocEncoding, padded_field
from tokenforge.tokenizer.encoding import Encoding


def _special(ids: list[int], tokens: list[str], type_id: int) -> tuple[None, dict]:
    """A layout segment of special tokens: (None, each field's list)."""
    e = Encoding.special(ids, tokens, type_id)
    return None, {f: getattr(e, f) for f in ("ids", "tokens", "offsets", "word_ids", "type_ids",
                                             "special_tokens_mask", "attention_mask", "sequence_ids")}


def pair_layout(processor, add_special_tokens: bool, second_type: int = 1, trimmed: bool = False) -> tuple | None:
    """The segments a pair becomes under `processor`: (side, type id) for the first (0) or
    second (1) text, (None, fields) for special tokens; None for a processor whose work on a
    pair is not such a layout (offsets trimmed while the sides are not, two templates, a
    template without each sequence exactly once).  As the general path: without a template
    the second text has type id `second_type` (1, but 0 for encode_batch_fast without a
    post-processor); BertProcessing and RobertaProcessing frame as their templates do
    (RoBERTa's type ids all 0), and without add_special_tokens leave the type ids as they
    were.  With trimmed, the sides' offsets are already trimmed as the processor's one
    trimming step (ByteLevel's or RoBERTa's) trims each sequence, so that step is done."""
    steps = processor.processors if isinstance(processor, ProcSeq) else [] if processor is None else [processor]
    layout = None
    for p in steps:
        if isinstance(p, ByteLevelProcessor) and (trimmed or not p.trim_offsets):
            continue
        if layout is not None:
            return None
        if type(p) is RobertaProcessing and (trimmed or not p.trim_offsets):
            second = 0
        elif type(p) in (TemplateProcessing, BertProcessing):
            second = 1
        else:
            return None
        if not add_special_tokens and type(p) is not TemplateProcessing:
            layout = ((0, 0), (1, second))
            continue
        segments = []
        for piece in p.pair:
            kind, v = p._piece(piece)
            if kind == "Sequence":
                segments.append((0 if v["id"] == "A" else 1, v["type_id"]))
            elif add_special_tokens:
                st = p.special_tokens[v["id"]]
                segments.append(_special(st["ids"], st["tokens"], v["type_id"]))
        if sorted(s[0] for s in segments if s[0] is not None) != [0, 1]:
            return None
        layout = tuple(segments)
    return layout if layout is not None else ((0, 0), (1, second_type))


def _joined(field: str, side):
    """The maker of one field: the segments' lists one after another, side(encoding, type id,
    sequence) giving a text's."""

    def make(self) -> list:
        out: list = []
        for s, v in self._layout:
            out += v[field] if s is None else side(self._sides[s], v, s)
        return out

    return padded_field(field, make)


class PairEncoding(DocEncoding):
    """Two texts' Encodings (any kind, as a native path gives them before the post-processor)
    laid out by :func:`pair_layout`; padding as :class:`DocEncoding`.  Not cut again: the
    tokenizer gives it sides already truncated, and its windows (`_pending`)."""

    __slots__ = ("_layout", "_sides", "_size")

    def __init__(self, layout: tuple, a: Encoding, b: Encoding) -> None:
        self._layout, self._sides = layout, (a, b)
        self._size = sum(len(v["ids"]) if s is None else len((a, b)[s]) for s, v in layout)
        self._made, self._pads, self._padded = 0, (), 0
        Encoding.overflowing.__set__(self, [])
        Encoding._trim.__set__(self, None)
        self._seqs = (0, 1)

    def __len__(self) -> int:
        return self._size + self._padded

    def frame_size(self) -> int:
        return sum(len(v["ids"]) for s, v in self._layout if s is None)

    def cut(self, max_length: int, stride: int, direction: str, kept_only: bool = False) -> bool:
        return False

    ids = _joined("ids", lambda e, t, s: e.ids)
    tokens = _joined("tokens", lambda e, t, s: e.tokens)
    offsets = _joined("offsets", lambda e, t, s: e.offsets)
    word_ids = _joined("word_ids", lambda e, t, s: e.word_ids)
    type_ids = _joined("type_ids", lambda e, t, s: [t] * len(e))
    special_tokens_mask = _joined("special_tokens_mask", lambda e, t, s: e.special_tokens_mask)
    attention_mask = _joined("attention_mask", lambda e, t, s: [1] * len(e))
    sequence_ids = _joined("sequence_ids", lambda e, t, s: [s] * len(e))
