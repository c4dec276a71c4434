"""Finished Encodings over a native document: the single-sequence template applied in C++,
each list built the first time it is read.

The native BERT and SentencePiece-style paths (:mod:`tokenforge.tokenizer.native_bert`,
:mod:`tokenforge.tokenizer.native_spm`) encode single texts to documents (`BertDoc`,
`SpmDoc`: C++ arrays of the text's tokens, framed by the special tokens before and after
``$A``); :class:`DocEncoding` turns a document's arrays into the Python lists of an
:class:`~tokenforge.tokenizer.encoding.Encoding` only when a field is read, so a caller that
reads only `offsets` never pays for `tokens` or `word_ids`.  :func:`single_template` reads
the frame off a post-processor.  Pairs are laid out over two unframed documents by
:mod:`tokenforge.tokenizer.pair_encoding`; other post-processors take the Encoding path.

Example:
    >>> from tokenforge.processors import from_dict
    >>> single_template(from_dict({"type": "BertProcessing", "sep": ["[SEP]", 102], "cls": ["[CLS]", 101]}))
    ([(101, '[CLS]', 0)], [(102, '[SEP]', 0)], 0)
"""

from __future__ import annotations

from tokenforge.processors import BertProcessing, TemplateProcessing
from tokenforge.tokenizer.encoding import _FIELDS, Encoding, window_bounds


def _spread(self, pre, mid, post) -> list:
    a, b = len(self._shape[0]), len(self._shape[2])
    return pre + [mid] * (len(self._doc) - a - b) + post


def _slot_copy(enc: Encoding) -> Encoding:
    """A shallow copy of enc's set slots, read through the slots themselves (copy.copy reads
    them by name, which runs the lazy fields' properties and makes every list)."""
    out = object.__new__(type(enc))
    for cls in type(enc).__mro__:
        for name in cls.__dict__.get("__slots__", ()):
            slot = cls.__dict__[name]
            try:
                slot.__set__(out, slot.__get__(enc))
            except AttributeError:
                pass
    return out


_BIT = {f: 1 << i for i, f in enumerate(_FIELDS)}


def padded_field(field: str, make):
    """A property over Encoding's slot `field` for DocEncodings: the first read makes the list
    (make, then the paddings recorded while it was not yet made, in order).  Which fields are
    made is kept in `_made` bits, so nothing probes an unset slot (each probe raises, and
    costs more than the read)."""
    slot, bit = Encoding.__dict__[field], _BIT[field]

    def get(self) -> list:
        if self._made & bit:
            return slot.__get__(self)
        value = make(self)
        for k, direction, fill in self._pads:
            value = value + [fill[field]] * k if direction == "right" else [fill[field]] * k + value
        slot.__set__(self, value)
        self._made |= bit
        return value

    def put(self, value) -> None:
        slot.__set__(self, value)
        self._made |= bit

    return property(get, put)


class DocEncoding(Encoding):
    """An Encoding over a native document: each list is made the first time it is read.
    Padding is recorded and applied to each list as it is made (a list already made is
    padded at once), so a caller that reads only `ids` and `attention_mask` of a padded
    batch never builds the other six."""

    __slots__ = ("_doc", "_shape", "_pads", "_padded", "_made")

    def __init__(self, doc, shape) -> None:
        self._doc, self._shape = doc, shape  # shape: (prefix type ids, A's type id, suffix type ids)
        self._made = 0  # a bit per made field (_BIT)
        self._pads: tuple = ()  # (k, direction, fill per field) of each pad() so far
        self._padded = 0  # tokens those paddings added
        Encoding.overflowing.__set__(self, [])
        Encoding._trim.__set__(self, None)

    ids = padded_field("ids", lambda self: self._doc.ids())
    tokens = padded_field("tokens", lambda self: self._doc.tokens())
    offsets = padded_field("offsets", lambda self: self._doc.offsets())
    word_ids = padded_field("word_ids", lambda self: self._doc.word_ids())
    type_ids = padded_field("type_ids", lambda self: _spread(self, self._shape[0], self._shape[1], self._shape[2]))
    special_tokens_mask = padded_field("special_tokens_mask", lambda self: _spread(
        self, [1] * len(self._shape[0]), 0, [1] * len(self._shape[2])))
    attention_mask = padded_field("attention_mask", lambda self: [1] * len(self._doc))
    sequence_ids = padded_field("sequence_ids", lambda self: _spread(
        self, [None] * len(self._shape[0]), 0, [None] * len(self._shape[2])))

    def __len__(self) -> int:
        return len(self._doc) + self._padded

    def frame_size(self) -> int:
        """How many of the tokens are the template's (before and after the text)."""
        return len(self._shape[0]) + len(self._shape[2])

    def cut(self, max_length: int, stride: int, direction: str, kept_only: bool = False) -> bool:
        """Truncation of the text inside the frame, as tokenizers truncates a single text to
        max_length (the limit less the template's tokens) and then applies the template to the
        kept window and to each overflowing one: the kept window becomes this Encoding and the
        others its `overflowing`, each the native document's `window` (the text's tokens
        [a, b) in the same frame), so that only the lists read are made.  False, with nothing
        done, when it cannot be cut so (a list already made, padding recorded, a subclass that
        says no): the caller truncates the text's own Encoding instead."""
        n = len(self._doc) - self.frame_size()
        if (max_length <= 0 or n <= max_length or self._pads or not self._can_cut(kept_only)
                or self._made):
            return False
        parts = window_bounds(n, max_length, stride, direction)
        proto, place = _slot_copy(self), self._placer()

        def window(a: int, b: int) -> DocEncoding:
            w = _slot_copy(proto)
            w.overflowing = []
            place(w, a, b)
            return w

        place(self, *parts[0])
        self._pending = (lambda: [window(a, b) for a, b in parts[1:]], [])
        self._overflowing = []
        return True

    def _can_cut(self, kept_only: bool) -> bool:
        """Whether cut may cut this Encoding (with kept_only, when only the kept window is
        read: a pair's windows come from the general path)."""
        return True

    def _placer(self):
        """A function (enc, a, b) making enc the window of this Encoding's text tokens [a, b)."""
        doc = self._doc

        def place(enc: DocEncoding, a: int, b: int) -> None:
            enc._doc = doc.window(a, b)

        return place

    def pad(self, length: int, pad_id: int, pad_type_id: int, pad_token: str, direction: str = "right") -> None:
        """As Encoding.pad; a list not yet made gets the padding when it is made."""
        self.each_overflowing(lambda o: o.pad(length, pad_id, pad_type_id, pad_token, direction))
        k = length - len(self)
        if k <= 0:
            return
        fill = {"ids": pad_id, "tokens": pad_token, "offsets": (0, 0), "word_ids": None, "type_ids": pad_type_id,
                "special_tokens_mask": 1, "attention_mask": 0, "sequence_ids": None}
        if self._made:  # the lists not made yet are made with this padding (padded_field)
            for f, v in fill.items():
                if self._made & _BIT[f]:
                    slot = Encoding.__dict__[f]
                    cur = slot.__get__(self)
                    slot.__set__(self, cur + [v] * k if direction == "right" else [v] * k + cur)
        self._pads += ((k, direction, fill),)
        self._padded += k


def single_template(processor) -> tuple[list, list, int] | None:
    """The special tokens before and after `$A` in a single-sequence template, as
    [(id, token, type_id)], and A's type id; None for a processor that is not a template
    (no processor: nothing around A, type id 0)."""
    if processor is None:
        return [], [], 0
    if type(processor) not in (TemplateProcessing, BertProcessing):
        return None
    pre: list = []
    post: list = []
    a_type = None
    for piece in processor.single:
        kind, v = processor._piece(piece)
        if kind == "Sequence":
            if v["id"] != "A" or a_type is not None:
                return None
            a_type = v["type_id"]
            continue
        st = processor.special_tokens[v["id"]]
        (post if a_type is not None else pre).extend((i, t, v["type_id"]) for i, t in zip(st["ids"], st["tokens"]))
    return None if a_type is None else (pre, post, a_type)


def frame_args(template, add_special_tokens: bool) -> tuple[tuple[list, list, list, list], tuple]:
    """The frame of `template` (single_template's result) as native encoders take it (prefix
    ids, prefix tokens, suffix ids, suffix tokens: nothing without add_special_tokens), and the
    shape of its DocEncodings (prefix type ids, the text's type id, suffix type ids)."""
    pre, post, a_type = template if add_special_tokens else ([], [], template[2])
    return (([p[0] for p in pre], [p[1] for p in pre], [p[0] for p in post], [p[1] for p in post]),
            ([p[2] for p in pre], a_type, [p[2] for p in post]))


def frame_docs(encode_docs, template, texts: list[str], add_special_tokens: bool, threads: int, **kw) -> list:
    """DocEncodings of `texts` from a native `encode_docs(texts, threads, prefix_ids,
    prefix_tokens, suffix_ids, suffix_tokens, **kw)`, framed by `template` (single_template's
    result) when add_special_tokens; None in place of a text the native path leaves.

    Raises:
        ValueError: a text holding a lone surrogate.
    """
    frame, shape = frame_args(template, add_special_tokens)
    try:
        docs = encode_docs(texts, threads, *frame, **kw)
    except UnicodeEncodeError as e:
        raise ValueError(f"text holds a lone surrogate at character {e.start}") from None
    return [None if d is None else DocEncoding(d, shape) for d in docs]
