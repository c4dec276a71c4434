"""Added tokens: matched in the text before the model sees it, as `tokenizers`' AddedVocabulary.

Tokens with `normalized: false` are searched in the raw text, the others in each normalized
piece (as their own normalized form).  At each position the longest token wins (leftmost
longest); `single_word` tokens need a non-word character (or the text's edge) on both sides,
`lstrip`/`rstrip` swallow the whitespace before/after.  Ids follow `tokenizers`: a token in the
model's vocab has that id; a new one gets max(added ids) + 1, or the vocab size when all added
ids are below it — so a file's id for a token absent from the vocab is not kept.

A content added again takes the new flags (an equal token is not counted).  As in tokenizers,
a content once added as special stays special for decoding and `encode_special_tokens`, and
decode tests the text a token decodes to, so a `normalized` special token whose normalized
form differs is not skipped.  The scan goes on from a match's end even where rstrip took the
whitespace after it, so the next token may take that whitespace again (its span overlaps).

A `normalized` token that the normalizer turns into "" (a zero-width space under BERT's
normalizer) is an empty pattern of `tokenizers`' Aho-Corasick scan, which matches it at every
byte no longer match covers: the piece is cut into its single characters (the empty matches
themselves give no token), and a character of two or more UTF-8 bytes outside every match is
cut inside, where `tokenizers` panics ("AddedVocabulary bad split"); ValueError here.  When the
piece ends in the middle of another `normalized` token's key (text "xa", a key "ab"), its scan
never ends (it grows a list until memory runs out); ValueError here too.

With `encode_special_tokens` set (tokenizers' flag of the same name), a match of a special
token is passed over and its text goes to the model like any other; the match still takes its
span, so a non-special token inside it is not matched either, as in `tokenizers`.

Example:
    >>> from tokenforge.models import WordLevel
    >>> av = AddedVocabulary()
    >>> av.add([AddedToken("<x>", special=True)], WordLevel({"a": 0}))
    1
    >>> av.find("a<x>a", normalized=False)
    [(None, (0, 1)), (1, (1, 4)), (None, (4, 5))]
"""

from __future__ import annotations

import regex

from tokenforge.normalizers.bert import WHITE_SPACE


class AddedToken:
    """One added token and how it matches.

    `normalized` not given follows `special` (not special: normalized), also when `special`
    changes later, as tokenizers' AddedToken does. The vocabulary keeps a copy taken when the
    token is added (frozen()), so changing a token afterwards changes nothing there.
    """

    __slots__ = ("_normalized", "content", "lstrip", "rstrip", "single_word", "special")

    def __init__(self, content: str, single_word: bool = False, lstrip: bool = False, rstrip: bool = False,
                 normalized: bool | None = None, special: bool = False) -> None:
        self.content = content
        self.single_word, self.lstrip, self.rstrip = single_word, lstrip, rstrip
        self._normalized = normalized
        self.special = special

    @property
    def normalized(self) -> bool:
        return not self.special if self._normalized is None else bool(self._normalized)

    @normalized.setter
    def normalized(self, value: bool | None) -> None:
        self._normalized = value

    def frozen(self) -> AddedToken:
        """A copy with `normalized` fixed at its present value."""
        return AddedToken(self.content, self.single_word, self.lstrip, self.rstrip, self.normalized, self.special)

    def _fields(self) -> tuple:
        return (self.content, self.single_word, self.lstrip, self.rstrip, self.normalized, self.special)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AddedToken) and self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        return ("AddedToken(content={!r}, single_word={}, lstrip={}, rstrip={}, normalized={}, special={})"
                .format(*self._fields()))

    def to_dict(self, id: int) -> dict:
        return {"id": id, "content": self.content, "single_word": self.single_word, "lstrip": self.lstrip,
                "rstrip": self.rstrip, "normalized": self.normalized, "special": self.special}


# A word character of `single_word` as tokenizers decides it (the Rust regex crate's Unicode
# \w, UTS #18: alphabetic, marks, decimal digits, connector punctuation, joiners), not
# str.isalnum(), which also takes other numbers ("½", "⁷") and leaves out marks.
_WORD_CHAR = regex.compile(r"[\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\p{Join_Control}]")


def _is_word_char(c: str) -> bool:
    return c.isascii() and (c.isalnum() or c == "_") or (not c.isascii() and _WORD_CHAR.match(c) is not None)


class AddedVocabulary:
    """The added tokens of a tokenizer and the matcher over them (module docstring)."""

    def __init__(self) -> None:
        self.tokens: dict[int, AddedToken] = {}  # id -> token
        self.ids: dict[str, int] = {}  # content -> id
        # Contents ever added as special: what decode's skip_special_tokens tests, by the text
        # a token decodes to (as tokenizers does; a token added again as not special stays here).
        self.special_contents: set[str] = set()
        self._matchers: dict[bool, object] = {}
        self._normalizer = None
        self._forms: dict[int, str] = {}  # id -> normalized form, where it differs (content_of)
        self.encode_special_tokens = False  # special tokens' matches passed over (module docstring)

    def __len__(self) -> int:
        return len(self.tokens)

    def add(self, tokens: list[AddedToken], model) -> int:
        """Adds tokens (a token added again takes its new flags); returns how many were taken:
        all but the empty ones and those equal in every field to one already there."""
        tokens = [t.frozen() for t in tokens]
        taken = 0
        for t in tokens:
            if not t.content or (t.content in self.ids and self.tokens[self.ids[t.content]] == t):
                continue
            taken += 1
            if t.special:
                self.special_contents.add(t.content)
            if t.content in self.ids:
                i = self.ids[t.content]
            else:
                i = model.token_to_id(t.content)
                if i is None:
                    size = len(model.vocab)
                    top = max(self.tokens, default=None)
                    i = size if top is None else (top + 1 if top >= size or size == 0 else size)
            self.tokens[i] = t
            self.ids[t.content] = i
            self._keep_form(i, t)
        self._matchers.clear()
        return taken

    def set_normalizer(self, normalizer) -> None:
        self._normalizer = normalizer
        self._matchers.clear()
        self._forms.clear()
        for i, t in self.tokens.items():
            self._keep_form(i, t)

    def _keep_form(self, i: int, t: AddedToken) -> None:
        if t.normalized and self._normalizer is not None:
            form = self._normalizer.normalize_str(t.content)
            if form != t.content:
                self._forms[i] = form

    def content_of(self, i: int) -> str:
        """The text of added token i as id_to_token and decode give it: a `normalized` token's
        content through the normalizer, else as written. The normalized form is kept when the
        token is added (and made again when the normalizer changes), as tokenizers keeps it: a
        token added again as not normalized still decodes to the form it had."""
        return self._forms.get(i, self.tokens[i].content)

    def is_special(self, token: str) -> bool:
        """Whether decode skips a token that decodes to `token`: it was added as special at
        some time. A `normalized` special token whose normalized form differs (`ABC` under
        Lowercase) is not skipped, as in tokenizers, which tests the form it decodes to."""
        return token in self.special_contents

    def _matcher(self, normalized: bool):
        """(pattern of the non-empty keys or None, key -> id, id of the empty key or None)."""
        m = self._matchers.get(normalized)
        if m is None:
            keys: dict[str, int] = {}
            for i, t in self.tokens.items():
                if bool(t.normalized) != normalized:
                    continue
                keys.setdefault(self.content_of(i) if normalized else t.content, i)  # (the form kept at add)
            empty = keys.pop("", None)
            if keys:
                alts = sorted(keys, key=lambda k: (-len(k), k))
                m = (regex.compile("|".join(regex.escape(k) for k in alts)), keys, empty)
            else:
                m = (None, keys, empty)
            self._matchers[normalized] = m
        return m

    def _passed_over(self, i: int) -> bool:
        """Whether a match of token i is left as text (encode_special_tokens and i special)."""
        return self.encode_special_tokens and self.tokens[i].content in self.special_contents

    def _placed(self, text: str, i: int, start: int, stop: int, done: int) -> tuple[int, int] | None:
        """The span token i takes for its match text[start:stop] (lstrip/rstrip), or None when
        single_word turns it down; `done` is where the previous piece ended."""
        t = self.tokens[i]
        at = start
        if t.single_word:
            if (start > 0 and _is_word_char(text[start - 1])) or (stop < len(text) and _is_word_char(text[stop])):
                return None
        if t.lstrip:
            s = start
            while s > 0 and text[s - 1] in WHITE_SPACE:
                s -= 1
            start = max(s, done)
        if t.rstrip:
            while stop < len(text) and text[stop] in WHITE_SPACE:
                stop += 1
        if start > stop:
            raise ValueError(f"added token {t.content!r} found at character {at} of the text searched lies inside "
                             "whitespace an rstrip token before it took, and its lstrip would start it after its "
                             "end: tokenizers panics there ('AddedVocabulary bad split')")
        return start, stop

    def find(self, text: str, normalized: bool) -> list[tuple[int | None, tuple[int, int]]]:
        """(id or None, (start, end)) pieces covering `text`; ids mark added tokens."""
        pattern, keys, empty = self._matcher(normalized)
        if (pattern is None and empty is None) or not text:
            return [(None, (0, len(text)))]
        if empty is not None:
            return self._find_with_empty(text, pattern, keys, empty)
        out: list[tuple[int | None, tuple[int, int]]] = []
        done = 0
        pos = 0
        while True:
            m = pattern.search(text, pos)
            if m is None:
                break
            i = keys[m.group()]
            pos = m.end()  # non-overlapping, as an Aho-Corasick leftmost-longest scan
            if self._passed_over(i):
                continue
            span = self._placed(text, i, m.start(), m.end(), done)
            if span is None:
                continue
            start, stop = span
            if start > done:
                out.append((None, (done, start)))
            out.append((i, (start, stop)))
            done = stop  # the scan goes on from the match's end, even where rstrip took more
        if done < len(text):
            out.append((None, (done, len(text))))
        return out

    def _find_with_empty(self, text: str, pattern, keys: dict[str, int], empty: int):
        """find() when one token's key is "" (module docstring): at each position the longest
        key that starts there, else the empty one unless the previous match ended there."""
        out: list[tuple[int | None, tuple[int, int]]] = []
        done = 0
        pos = 0
        last_end = -1
        longest = max(map(len, keys), default=0)
        cut_inside = None

        def place(i: int, start: int, stop: int) -> None:
            nonlocal done
            if self._passed_over(i):
                return
            span = self._placed(text, i, start, stop, done)
            if span is not None:
                if span[0] > done:
                    out.append((None, (done, span[0])))
                out.append((i, span))
                done = span[1]

        while pos <= len(text):
            m = pattern.match(text, pos) if pattern is not None else None
            if m is not None:
                place(keys[m.group()], pos, m.end())
                pos = last_end = m.end()
                continue
            if 0 < len(text) - pos < longest and any(k.startswith(text[pos:]) for k in keys):
                raise ValueError(f"added token {self.tokens[empty].content!r} normalizes to an empty string, and the "
                                 f"text ends inside another added token at {pos}: tokenizers never returns there")
            if pos != last_end:
                place(empty, pos, pos)
                last_end = pos
            if pos < len(text) and not text[pos].isascii() and cut_inside is None:
                cut_inside = pos  # tokenizers panics on it after the scan, which may not end
            pos += 1
        if cut_inside is not None:
            raise ValueError(f"added token {self.tokens[empty].content!r} normalizes to an empty string, which "
                             f"tokenizers matches inside the character {text[cut_inside]!r} at {cut_inside} and "
                             "panics on (AddedVocabulary bad split)")
        if done < len(text):
            out.append((None, (done, len(text))))
        return out
