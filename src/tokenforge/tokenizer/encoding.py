"""Encoding: the result of `Tokenizer.encode`, field for field as `tokenizers.Encoding`.

Offsets are character offsets into the input text (for pre-tokenized input, into each word).
`word_ids` is the pre-tokenized piece each token came from (None for tokens a post-processor
added); `overflowing` holds the windows truncation cut off.  The position queries
(`char_to_token`, `word_to_tokens`, `token_to_chars`, ...) answer as tokenizers' do.

Example:
    >>> e = Encoding([5, 6], ["a", "b"], [(0, 1), (1, 2)], [0, 1])
    >>> e.attention_mask, e.special_tokens_mask, e.type_ids
    ([1, 1], [0, 0], [0, 0])
"""

from __future__ import annotations


class Encoding:
    """Token ids with their tokens, offsets and masks (module docstring)."""

    __slots__ = ("ids", "tokens", "offsets", "word_ids", "type_ids", "special_tokens_mask",
                 "attention_mask", "_overflowing", "_pending", "sequence_ids", "_trim", "_seqs")

    def __init__(self, ids, tokens, offsets, word_ids, type_ids=None, special_tokens_mask=None,
                 attention_mask=None, sequence_ids=None) -> None:
        n = len(ids)
        self.ids: list[int] = ids
        self.tokens: list[str] = tokens
        self.offsets: list[tuple[int, int]] = offsets
        self.word_ids: list[int | None] = word_ids
        self.type_ids: list[int] = type_ids if type_ids is not None else [0] * n
        self.special_tokens_mask: list[int] = special_tokens_mask if special_tokens_mask is not None else [0] * n
        self.attention_mask: list[int] = attention_mask if attention_mask is not None else [1] * n
        self.sequence_ids: list[int | None] = sequence_ids if sequence_ids is not None else [0] * n
        self.overflowing = []
        self._trim = None  # set by the native path: what its numpy offset trimming needs
        # The sequences set on it (set_sequence_id), kept even when they hold no token: a
        # pair's empty text is still a sequence to tokenizers (an empty range of its own).
        self._seqs: tuple[int, ...] = ()

    # The windows truncation cut off are made when `overflowing` is first read: a 4 KB text
    # truncated to GPT-2's 50 tokens has some twenty windows, which most callers never read.
    # Until then `_pending` holds (make, ops): make() gives the windows, and each of ops
    # (post-processing, padding: `each_overflowing`) is applied to each window, in order.
    @property
    def overflowing(self) -> list["Encoding"]:
        pending = self._pending
        if pending is not None:
            self._pending = None
            make, ops = pending
            windows = make()
            for op in ops:
                for w in windows:
                    op(w)
            self._overflowing = windows
        return self._overflowing

    @overflowing.setter
    def overflowing(self, windows: list["Encoding"]) -> None:
        self._pending = None
        self._overflowing = windows

    def each_overflowing(self, op) -> None:
        """op(window) for each overflowing window: now, or when the windows are made."""
        if self._pending is not None:
            self._pending[1].append(op)
        else:
            for w in self._overflowing:
                op(w)

    @classmethod
    def special(cls, ids: list[int], tokens: list[str], type_id: int) -> "Encoding":
        n = len(ids)
        return cls(list(ids), list(tokens), [(0, 0)] * n, [None] * n, [type_id] * n, [1] * n, [1] * n, [None] * n)

    @property
    def words(self) -> list[int | None]:
        return self.word_ids

    @property
    def n_sequences(self) -> int:
        return len({s for s in self.sequence_ids if s is not None} | set(self._sequences_set())) or 1

    def _sequences_set(self) -> tuple[int, ...]:
        return getattr(self, "_seqs", ())

    def __len__(self) -> int:
        return len(self.ids)

    # ---- where tokens, words and characters are (tokenizers' Encoding methods of these names) ----

    def set_sequence_id(self, sequence_id: int) -> None:
        """Marks every token as of sequence `sequence_id` (an empty Encoding too: its sequence
        then has no tokens, and the queries of it answer None)."""
        self.sequence_ids = [sequence_id] * len(self.ids)
        self._seqs = (sequence_id,)

    def _sequence_range(self, sequence_id: int) -> tuple[int, int]:
        """The tokens [a, b) of one sequence; all of them when it is no sequence of this
        Encoding, none when it is one without tokens (a pair's empty text), as tokenizers."""
        seq = self.sequence_ids
        first = next((i for i, s in enumerate(seq) if s == sequence_id), None)
        if first is None:
            return (0, 0) if sequence_id in self._sequences_set() else (0, len(seq))
        last = max(i for i, s in enumerate(seq) if s == sequence_id)
        return first, last + 1

    def token_to_sequence(self, token_index: int) -> int | None:
        """The sequence the token belongs to (None for a token a post-processor added)."""
        # (tokenizers answers 0 for the index one past the end of a single text encoded with
        # no post-processor; None here, as for every other.)
        return self.sequence_ids[token_index] if 0 <= token_index < len(self.ids) else None

    def token_to_chars(self, token_index: int) -> tuple[int, int] | None:
        """The character offsets of the token, in the sequence that holds it."""
        return None if self.token_to_sequence(token_index) is None else self.offsets[token_index]

    def token_to_word(self, token_index: int) -> int | None:
        """The word the token belongs to, in the sequence that holds it."""
        return None if self.token_to_sequence(token_index) is None else self.word_ids[token_index]

    def word_to_tokens(self, word_index: int, sequence_index: int = 0) -> tuple[int, int] | None:
        """The tokens [start, end) of a word of one sequence, or None."""
        a, b = self._sequence_range(sequence_index)
        start = end = None
        for i, w in enumerate(self.word_ids[a:b]):
            if w is not None and w > word_index:
                break  # (tokenizers stops at the first later word)
            if w == word_index:
                start = i if start is None else start
                end = i + 1
        return None if start is None else (a + start, a + end)

    def word_to_chars(self, word_index: int, sequence_index: int = 0) -> tuple[int, int] | None:
        """The character offsets of a word of one sequence, or None."""
        span = self.word_to_tokens(word_index, sequence_index)
        if span is None or span[1] == 0:
            return None
        return self.offsets[span[0]][0], self.offsets[span[1] - 1][1]

    def char_to_token(self, char_pos: int, sequence_index: int = 0) -> int | None:
        """The first token of one sequence whose offsets hold the character, or None."""
        a, b = self._sequence_range(sequence_index)
        for i in range(a, b):
            start, end = self.offsets[i]
            if start <= char_pos < end:
                return i
        return None

    def char_to_word(self, char_pos: int, sequence_index: int = 0) -> int | None:
        """The word of one sequence that holds the character, or None."""
        token = self.char_to_token(char_pos, sequence_index)
        return None if token is None else self.token_to_word(token)

    def __repr__(self) -> str:
        return f"Encoding(num_tokens={len(self.ids)}, overflowing={len(self.overflowing)})"

    def extend(self, other: "Encoding") -> None:
        """Appends `other`'s tokens (offsets kept as they are, as tokenizers' merge)."""
        for f in ("ids", "tokens", "offsets", "word_ids", "type_ids", "special_tokens_mask",
                  "attention_mask", "sequence_ids"):
            getattr(self, f).extend(getattr(other, f))
        self._trim = None

    def merge_with(self, pair: "Encoding") -> None:
        """Appends `pair` in place, as tokenizers' `Encoding::merge_with`: the overflowing
        windows become every combination — each of ours with `pair` and with each of its
        windows, then ourselves (windows and all) with each of its windows — each window
        merged the same way, windows and all.

        A pair truncated to a few tokens has tens of thousands of such windows, nested: they
        are made level by level as `overflowing` is read (`_joined`), each from the two
        encodings as they were here, which nothing changes afterwards (the lists of this
        Encoding are replaced, not extended)."""
        _join_into(self, self._frozen(), pair._frozen())

    @staticmethod
    def merge(encodings, growing_offsets: bool = True) -> "Encoding":
        """The encodings joined into one, as tokenizers' static `Encoding.merge`: each appended
        in turn with its overflowing windows crossed as in `merge_with`; with growing_offsets,
        each one's offsets are moved past the end offset of what it is appended to."""
        out = Encoding([], [], [], [])
        for e in encodings:
            out = _merged(out, e, growing_offsets)
        return out

    def _frozen(self) -> "Encoding":
        """An Encoding holding this one's lists and overflowing windows as they are now (not
        copies): for merges made later, which only read them."""
        e = Encoding(*self._fields())
        e._overflowing = self.overflowing
        e._seqs = self._sequences_set()
        return e

    def slice(self, a: int, b: int) -> "Encoding":
        e = _window(self._fields(), a, b)
        e._seqs = self._sequences_set()
        return e

    def _fields(self) -> tuple:
        return (self.ids, self.tokens, self.offsets, self.word_ids, self.type_ids, self.special_tokens_mask,
                self.attention_mask, self.sequence_ids)

    def copy(self) -> "Encoding":
        e = self.slice(0, len(self.ids))
        e.overflowing = [o.copy() for o in self.overflowing]
        return e

    def truncate(self, max_length: int, stride: int = 0, direction: str = "right") -> None:
        """Keeps `max_length` tokens; the rest go to `overflowing` in windows that overlap by
        `stride` tokens, as tokenizers' `Encoding::truncate`."""
        n = len(self.ids)
        if max_length >= n:
            return
        if max_length == 0:
            whole = self.copy()
            for f in _FIELDS:
                setattr(self, f, [])
            self.overflowing = [whole]
            return
        parts = window_bounds(n, max_length, stride, direction)
        fields = self._fields()  # the whole lists: the windows are cut from them when read
        main = _window(fields, *parts[0])
        for f in _FIELDS:
            setattr(self, f, getattr(main, f))
        self._pending = (lambda: [_window(fields, a, b) for a, b in parts[1:]], [])
        self._overflowing = []
        self._trim = None

    def pad(self, length: int, pad_id: int, pad_type_id: int, pad_token: str, direction: str = "right") -> None:
        """Pads to `length` tokens (nothing when already as long), overflowing too."""
        self.each_overflowing(lambda o: o.pad(length, pad_id, pad_type_id, pad_token, direction))
        k = length - len(self.ids)
        if k <= 0:
            return
        fill = {"ids": pad_id, "tokens": pad_token, "offsets": (0, 0), "word_ids": None, "type_ids": pad_type_id,
                "special_tokens_mask": 1, "attention_mask": 0, "sequence_ids": None}
        # every field read before any is padded: a lazily made one (IdsEncoding) takes the
        # length of `ids`, which must not be the padded one yet
        current = {f: getattr(self, f) for f in fill}
        for f, v in fill.items():
            cur = current[f]
            setattr(self, f, cur + [v] * k if direction == "right" else [v] * k + cur)


_FIELDS = ("ids", "tokens", "offsets", "word_ids", "type_ids", "special_tokens_mask", "attention_mask",
           "sequence_ids")


def window_bounds(n: int, max_length: int, stride: int, direction: str) -> list[tuple[int, int]]:
    """The tokens [a, b) of each window `truncate` cuts from n > max_length > 0 tokens, the
    kept one first, each overlapping the one before by `stride`."""
    if stride >= max_length:
        raise ValueError(f"truncation stride {stride} must be below max_length {max_length}")
    step = max_length - stride
    parts: list[tuple[int, int]] = []
    if direction == "right":
        for start in range(0, n, step):
            stop = min(start + max_length, n)
            parts.append((start, stop))
            if stop == n:
                break
    else:
        for stop in range(n, 0, -step):
            start = max(stop - max_length, 0)
            parts.append((start, stop))
            if start == 0:
                break
    return parts


def _window(fields: tuple, a: int, b: int) -> Encoding:
    """The tokens [a, b) of an Encoding's lists (as `Encoding._fields` gives them)."""
    return Encoding(*(f[a:b] for f in fields))


def _join_into(e: Encoding, x: Encoding, y: Encoding) -> None:
    """Sets e's lists to x's joined with y's (new lists), and its windows to those of the
    merge, made when first read (_crossed); x and y are only read."""
    for f, a, b in zip(_FIELDS, x._fields(), y._fields()):
        setattr(e, f, a + b)
    e._overflowing, e._trim = [], None
    e._seqs = _union(x, y)
    e._pending = (lambda: _crossed(x, y), [])


def _joined(x: Encoding, y: Encoding) -> Encoding:
    """x.copy().merge_with(y.copy()) without the copies."""
    e = Encoding.__new__(Encoding)  # no __init__: its lists are set by _join_into
    _join_into(e, x, y)
    return e


def _union(*encodings: Encoding) -> tuple[int, ...]:
    """The sequences set on any of the encodings (see Encoding._seqs)."""
    return tuple(sorted({s for e in encodings for s in e._sequences_set()}))


def _merged(x: Encoding, y: Encoding, growing_offsets: bool) -> Encoding:
    """x with y appended, windows crossed as `merge_with` crosses them (Encoding.merge)."""
    windows = []
    for mine in x.overflowing:
        windows.append(_merged(mine, y, growing_offsets))
        windows.extend(_merged(mine, theirs, growing_offsets) for theirs in y.overflowing)
    windows.extend(_merged(x, theirs, growing_offsets) for theirs in y.overflowing)
    shift = x.offsets[-1][1] if growing_offsets and x.offsets else 0
    e = Encoding(*(a + b for a, b in zip(x._fields(), y._fields())))
    e._seqs = _union(x, y)
    if shift:
        e.offsets = x.offsets + [(a + shift, b + shift) for a, b in y.offsets]
    e.overflowing = windows
    return e


def _crossed(x: Encoding, y: Encoding) -> list[Encoding]:
    """The overflowing windows of x merged with y, in `Encoding.merge_with`'s order."""
    out = []
    ys = y.overflowing
    for mine in x.overflowing:
        out.append(_joined(mine, y))
        out.extend(_joined(mine, theirs) for theirs in ys)
    out.extend(_joined(x, theirs) for theirs in ys)
    return out


def lazy_field(field: str, make):
    """A property over Encoding's slot `field` that, when the slot is unset, fills it with
    make(encoding) first (for subclasses that build their lists on first access)."""
    slot = Encoding.__dict__[field]

    def get(self):
        try:
            return slot.__get__(self)
        except AttributeError:
            value = make(self)
            slot.__set__(self, value)
            return value

    return property(get, slot.__set__)


def _lazy(field: str, default):
    return lazy_field(field, lambda self: default(len(self.ids)))


class JoinedEncoding(Encoding):
    """Encodings without overflowing windows joined one after another (processors.merge):
    every list joined at once but the word ids, joined from the parts when first read (a
    byte-level text's are computed from its pieces; most callers of a pair never read them)."""

    __slots__ = ("_parts",)

    def __init__(self, parts: list[Encoding]) -> None:
        for f in _FIELDS:
            if f != "word_ids":
                setattr(self, f, [x for e in parts for x in getattr(e, f)])
        Encoding.overflowing.__set__(self, [])
        Encoding._trim.__set__(self, None)
        self._seqs = _union(*parts)
        self._parts = parts

    word_ids = lazy_field("word_ids", lambda self: [w for e in self._parts for w in e.word_ids])


class IdsEncoding(Encoding):
    """An Encoding without offsets (`encode_batch_fast`): tokens "", offsets (0, 0), word ids
    None, as `tokenizers`; every list but `ids` is made on first access."""

    __slots__ = ()

    def __init__(self, ids: list[int]) -> None:
        Encoding.ids.__set__(self, ids)
        Encoding.overflowing.__set__(self, [])
        Encoding._trim.__set__(self, False)

    tokens = _lazy("tokens", lambda n: [""] * n)
    offsets = _lazy("offsets", lambda n: [(0, 0)] * n)
    word_ids = _lazy("word_ids", lambda n: [None] * n)
    type_ids = _lazy("type_ids", lambda n: [0] * n)
    special_tokens_mask = _lazy("special_tokens_mask", lambda n: [0] * n)
    attention_mask = _lazy("attention_mask", lambda n: [1] * n)
    sequence_ids = _lazy("sequence_ids", lambda n: [0] * n)


class NativeEncoding(Encoding):
    """An Encoding from the native byte-level path: its word ids are computed on first access
    (from `_words`, a function of no arguments), masks likewise."""

    __slots__ = ("_words",)

    def __init__(self, ids, tokens, offsets, words_fn, type_ids) -> None:
        Encoding.ids.__set__(self, ids)
        Encoding.tokens.__set__(self, tokens)
        Encoding.offsets.__set__(self, offsets)
        Encoding.type_ids.__set__(self, type_ids)
        Encoding.overflowing.__set__(self, [])
        Encoding._trim.__set__(self, None)
        self._words = words_fn

    @property
    def word_ids(self):
        try:
            return Encoding.word_ids.__get__(self)
        except AttributeError:
            value = self._words()
            Encoding.word_ids.__set__(self, value)
            return value

    @word_ids.setter
    def word_ids(self, value) -> None:
        Encoding.word_ids.__set__(self, value)

    def truncate(self, max_length: int, stride: int = 0, direction: str = "right") -> None:
        """As Encoding.truncate, but word ids not yet made stay so: the whole list is made
        once, when the kept window's or a window of `overflowing`'s is first read (a 4 KB text
        cut to GPT-2's 50 tokens needs the word ids of none of its other windows)."""
        n = len(self.ids)
        try:
            Encoding.word_ids.__get__(self)
            made = True
        except AttributeError:
            made = False
        if made or max_length >= n or max_length == 0:
            Encoding.truncate(self, max_length, stride, direction)
            return
        parts = window_bounds(n, max_length, stride, direction)
        others = {f: getattr(self, f) for f in _FIELDS if f != "word_ids"}
        whole = once(self._words)

        def cut(enc: "NativeEncoding", a: int, b: int) -> "NativeEncoding":
            for f, value in others.items():
                Encoding.__dict__[f].__set__(enc, value[a:b])
            enc._words = lambda: whole()[a:b]
            return enc

        def window(a: int, b: int) -> "NativeEncoding":
            w = NativeEncoding.__new__(NativeEncoding)
            Encoding.overflowing.__set__(w, [])
            Encoding._trim.__set__(w, None)
            return cut(w, a, b)

        cut(self, *parts[0])
        self._pending = (lambda: [window(a, b) for a, b in parts[1:]], [])
        self._overflowing = []
        self._trim = None

    special_tokens_mask = _lazy("special_tokens_mask", lambda n: [0] * n)
    attention_mask = _lazy("attention_mask", lambda n: [1] * n)
    sequence_ids = _lazy("sequence_ids", lambda n: [0] * n)


def once(make):
    """A function of no arguments giving make(), called the first time only."""
    made: list = []

    def get():
        if not made:
            made.append(make())
        return made[0]

    return get
