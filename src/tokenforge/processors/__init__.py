"""Post-processors: add special tokens around the encoded sequence(s), set type ids, trim offsets.

`TemplateProcessing` (`$A`/`$B` and special tokens with type ids), `BertProcessing`,
`RobertaProcessing`, `ByteLevel` (trims spaces out of offsets) and `Sequence`.  Each has
`process(encodings, add_special_tokens) -> encodings` and `added_tokens(is_pair)`; the
tokenizer then joins the encodings.  As in tokenizers, Bert and Roberta give one encoding per
sequence, framed; TemplateProcessing gives its pieces one by one (what a processor after it in a
Sequence sees).

Example:
    >>> from tokenforge.tokenizer.encoding import Encoding
    >>> p = from_dict({"type": "BertProcessing", "sep": ["[SEP]", 102], "cls": ["[CLS]", 101]})
    >>> [e.ids for e in p.process([Encoding([7], ["x"], [(0, 1)], [0])], True)]
    [[101, 7, 102]]
"""

from __future__ import annotations

import functools

from tokenforge._component import build
from tokenforge.normalizers.bert import WHITE_SPACE
from tokenforge.pre_tokenizers.byte_level import BYTE_CHARS
from tokenforge.processors import template_text
from tokenforge.tokenizer.encoding import Encoding, JoinedEncoding

_SPACE_CHAR = BYTE_CHARS[32]


def trim_offsets(enc: Encoding, add_prefix_space: bool) -> None:
    """Moves offsets past leading/trailing spaces of byte-level tokens, as tokenizers' ByteLevel."""
    if enc._trim is False:  # an encoding without offsets (encode_batch_fast)
        return
    if enc._trim is not None and enc._trim[-1].trim(enc, add_prefix_space):
        return
    offs = enc.offsets
    for i, tok in enumerate(enc.tokens):
        lead = 0
        for c in tok:
            if c == _SPACE_CHAR or c in WHITE_SPACE:
                lead += 1
            else:
                break
        trail = 0
        for c in reversed(tok):
            if c == _SPACE_CHAR or c in WHITE_SPACE:
                trail += 1
            else:
                break
        if not lead and not trail:
            continue
        a, b = offs[i]
        if lead:
            if (i == 0 or a == 0) and add_prefix_space and lead == 1:
                lead = 0
            a = min(a + lead, b)
        if trail and b >= trail:
            b = max(b - trail, a)
        offs[i] = (a, b)


class ByteLevel:
    """Trims offsets (with `trim_offsets`); adds no tokens."""

    def __init__(self, add_prefix_space: bool = True, trim_offsets: bool = True, use_regex: bool = True) -> None:
        self.add_prefix_space, self.trim_offsets, self.use_regex = add_prefix_space, trim_offsets, use_regex

    def num_special_tokens_to_add(self, is_pair: bool) -> int:
        """tokenizers' name of added_tokens."""
        return self.added_tokens(is_pair)

    def added_tokens(self, is_pair: bool) -> int:
        return 0

    def process(self, encodings: list[Encoding], add_special_tokens: bool) -> list[Encoding]:
        if self.trim_offsets:
            trim = functools.partial(trim_offsets, add_prefix_space=self.add_prefix_space)
            for e in encodings:
                trim(e)
                e.each_overflowing(trim)
        return encodings

    def to_dict(self) -> dict:
        return {"type": "ByteLevel", "add_prefix_space": self.add_prefix_space,
                "trim_offsets": self.trim_offsets, "use_regex": self.use_regex}


class TemplateProcessing:
    """Lays out `$A` / `$B` and special tokens by the single and pair templates."""

    def __init__(self, single: str | list | None = None, pair: str | list | None = None,
                 special_tokens: list | dict | None = None) -> None:
        """Templates as strs ("[CLS] $A [SEP]"), lists of piece strs or of the file's piece
        objects; special tokens as (token, id) pairs, dicts, or the file's dict by name
        (processors/template_text.py).  Without a template, tokenizers' defaults: `$A`, and
        `$A $B:1`.

        Raises:
            ValueError: a piece that cannot be read, a pair template without both sequences,
                a special token used but not defined.
            TypeError: a template or special token of another type.
        """
        python_form = not (isinstance(special_tokens, dict) and isinstance(single, list) and isinstance(pair, list))
        special_tokens = template_text.parse_special_tokens(special_tokens)
        single_t = template_text.default_single() if single is None else template_text.parse_template(single, "single")
        pair_t = template_text.default_pair() if pair is None else template_text.parse_template(pair, "pair")
        if python_form:
            template_text.check_pieces(single_t, pair_t, pair is not None, special_tokens)
        single, pair = single_t, pair_t
        self.single, self.pair, self.special_tokens = single, pair, special_tokens
        for piece in list(single) + list(pair):
            kind, v = self._piece(piece)
            if kind == "SpecialToken" and v["id"] not in special_tokens:
                raise ValueError(f"TemplateProcessing: special token {v['id']!r} is used but not defined")
        for name, st in special_tokens.items():
            if len(st.get("ids", [])) != len(st.get("tokens", [])):
                raise ValueError(f"TemplateProcessing: special token {name!r} has ids and tokens of different lengths")

    @staticmethod
    def _piece(piece: dict) -> tuple[str, dict]:
        if not isinstance(piece, dict) or len(piece) != 1:
            raise ValueError(f"TemplateProcessing: bad template piece {piece!r}")
        (kind, v), = piece.items()
        if kind not in ("Sequence", "SpecialToken"):
            raise ValueError(f"TemplateProcessing: bad template piece {piece!r}")
        return kind, v

    def num_special_tokens_to_add(self, is_pair: bool) -> int:
        """tokenizers' name of added_tokens."""
        return self.added_tokens(is_pair)

    def added_tokens(self, is_pair: bool) -> int:
        n = 0  # (asked for every text a truncating tokenizer encodes: no _piece checks here)
        for piece in self.pair if is_pair else self.single:
            v = piece.get("SpecialToken")
            if v is not None:
                n += len(self.special_tokens[v["id"]]["ids"])
        return n

    def _apply(self, encodings: list[Encoding], add_special_tokens: bool) -> list[Encoding]:
        out = []
        for piece in self.pair if len(encodings) == 2 else self.single:
            kind, v = self._piece(piece)
            if kind == "Sequence":
                i = 0 if v["id"] == "A" else 1
                e = encodings[i]
                e.type_ids = [v["type_id"]] * len(e.ids)
                e.set_sequence_id(i)
                out.append(e)
            elif add_special_tokens:
                st = self.special_tokens[v["id"]]
                out.append(Encoding.special(st["ids"], st["tokens"], v["type_id"]))
        return out

    def process(self, encodings: list[Encoding], add_special_tokens: bool) -> list[Encoding]:
        # The pieces in order; merging them (Encoding.merge_with) gives each overflowing window
        # of a sequence the template too, and a pair every combination of windows.
        return self._apply(encodings, add_special_tokens)

    def to_dict(self) -> dict:
        return {"type": "TemplateProcessing", "single": self.single, "pair": self.pair,
                "special_tokens": self.special_tokens}


def _template(cls_tok, sep_tok, pair_sep_twice: bool, pair_type: int) -> TemplateProcessing:
    (c, cid), (s, sid) = cls_tok, sep_tok
    tok = lambda name, t: {"SpecialToken": {"id": name, "type_id": t}}  # noqa: E731
    seq = lambda name, t: {"Sequence": {"id": name, "type_id": t}}  # noqa: E731
    single = [tok(c, 0), seq("A", 0), tok(s, 0)]
    pair = single + ([tok(s, pair_type)] if pair_sep_twice else []) + [seq("B", pair_type), tok(s, pair_type)]
    specials = {c: {"id": c, "ids": [cid], "tokens": [c]}, s: {"id": s, "ids": [sid], "tokens": [s]}}
    return TemplateProcessing(single, pair, specials)


def _framed(encodings: list[Encoding], cls_tok, sep_tok, sep_type: int, pair_head: bool,
            all_zero: bool) -> list[Encoding]:
    """BertProcessing's and RobertaProcessing's work, as tokenizers does it: each encoding
    (and each of its windows) framed on its own, the first as `cls e sep`, every other as
    `e sep` (`sep e sep` with pair_head), its own tokens marked not special; so a processor
    after them in a Sequence gets one encoding per sequence. Type ids: the encoding's, and
    sep_type on a later one's closing sep; all 0 with all_zero (RoBERTa)."""
    (c, cid), (sp, sid) = cls_tok, sep_tok
    out = []
    for i, e in enumerate(encodings):
        first = i == 0

        def frame(w: Encoding) -> Encoding:
            n = len(w.ids)
            w.special_tokens_mask = [0] * n
            w.set_sequence_id(0 if first else 1)
            if all_zero:
                w.type_ids = [0] * n
            head = [Encoding.special([cid], [c], 0)] if first else \
                [Encoding.special([sid], [sp], 0)] if pair_head else []
            tail = Encoding.special([sid], [sp], 0 if first or all_zero else sep_type)
            return merge([*head, w, tail])

        framed = frame(e.slice(0, len(e.ids)))  # (slices: copies of the lists, not of the windows)
        framed.overflowing = [frame(w.slice(0, len(w.ids))) for w in e.overflowing]
        out.append(framed)
    return out


class BertProcessing(TemplateProcessing):
    """`[CLS] A [SEP]` and `[CLS] A [SEP] B [SEP]` (B and its [SEP] with type id 1).

    Its template describes it (for truncation and the native paths); `process` frames each
    encoding on its own, as tokenizers does, which a Sequence of processors can tell apart.
    """

    def __init__(self, sep: tuple[str, int], cls_token: tuple[str, int]) -> None:
        self.sep, self.cls = tuple(sep), tuple(cls_token)
        t = _template(self.cls, self.sep, False, 1)
        super().__init__(t.single, t.pair, t.special_tokens)

    def process(self, encodings: list[Encoding], add_special_tokens: bool) -> list[Encoding]:
        if not add_special_tokens:
            return encodings
        return _framed(encodings, self.cls, self.sep, 1, pair_head=False, all_zero=False)

    def to_dict(self) -> dict:
        return {"type": "BertProcessing", "sep": list(self.sep), "cls": list(self.cls)}


class RobertaProcessing(TemplateProcessing):
    """`<s> A </s>` and `<s> A </s></s> B </s>` (type ids 0), offsets trimmed as ByteLevel."""

    def __init__(self, sep: tuple[str, int], cls_token: tuple[str, int], trim_offsets: bool = True,
                 add_prefix_space: bool = True) -> None:
        self.sep, self.cls = tuple(sep), tuple(cls_token)
        self.trim_offsets, self.add_prefix_space = trim_offsets, add_prefix_space
        t = _template(self.cls, self.sep, True, 0)
        super().__init__(t.single, t.pair, t.special_tokens)

    def process(self, encodings: list[Encoding], add_special_tokens: bool) -> list[Encoding]:
        for e in encodings:
            if self.trim_offsets:
                trim_offsets(e, self.add_prefix_space)
                for o in e.overflowing:
                    trim_offsets(o, self.add_prefix_space)
            e.type_ids = [0] * len(e.ids)  # (not its windows': tokenizers leaves those)
        if not add_special_tokens:
            return encodings
        return _framed(encodings, self.cls, self.sep, 0, pair_head=True, all_zero=True)

    def to_dict(self) -> dict:
        return {"type": "RobertaProcessing", "sep": list(self.sep), "cls": list(self.cls),
                "trim_offsets": self.trim_offsets, "add_prefix_space": self.add_prefix_space}


class Sequence:
    """Applies processors in order."""

    def __init__(self, processors: list) -> None:
        self.processors = list(processors)

    def num_special_tokens_to_add(self, is_pair: bool) -> int:
        """tokenizers' name of added_tokens."""
        return self.added_tokens(is_pair)

    def added_tokens(self, is_pair: bool) -> int:
        return sum(p.added_tokens(is_pair) for p in self.processors)

    def process(self, encodings: list[Encoding], add_special_tokens: bool) -> list[Encoding]:
        for p in self.processors:
            encodings = p.process(encodings, add_special_tokens)
        return encodings

    def to_dict(self) -> dict:
        return {"type": "Sequence", "processors": [p.to_dict() for p in self.processors]}


def merge(encodings: list[Encoding]) -> Encoding:
    """The encodings one after another, as tokenizers' `Encoding::merge` (see
    `Encoding.merge_with` for the overflowing windows).  Without windows (no truncation cut
    any of them) each field is joined in one pass: the same Encoding, fewer steps."""
    if not any(e._pending is not None or e._overflowing for e in encodings):
        return JoinedEncoding(list(encodings))
    out = encodings[0].copy()
    for e in encodings[1:]:
        out.merge_with(e)
    return out


def from_dict(d: dict | None):
    """The post-processor described by a tokenizer.json object (None for null).

    Raises:
        ValueError: an unknown type or a malformed field.
    """
    return build("post-processor", d, {
        "TemplateProcessing": lambda d: TemplateProcessing(d["single"], d["pair"], d.get("special_tokens") or {}),
        "BertProcessing": lambda d: BertProcessing(d["sep"], d["cls"]),
        "RobertaProcessing": lambda d: RobertaProcessing(d["sep"], d["cls"], d.get("trim_offsets", True),
                                                         d.get("add_prefix_space", True)),
        "ByteLevel": lambda d: ByteLevel(d.get("add_prefix_space", True), d.get("trim_offsets", True),
                                         d.get("use_regex", True)),
        "Sequence": lambda d: Sequence([from_dict(p) for p in d["processors"]]),
    })


__all__ = ["BertProcessing", "ByteLevel", "RobertaProcessing", "Sequence", "TemplateProcessing", "from_dict"]
