"""Added tokens: matched in the text before the model sees it, as `tokenizers`' AddedVocabulary.

Tokens with `normalized: false` are searched in the raw text, the others in each normalized
piece (as their own normalized form).  At each position the longest token wins (leftmost
longest); `single_word` tokens need a non-word character (or the text's edge) on both sides,
`lstrip`/`rstrip` swallow the whitespace before/after.  Ids follow `tokenizers`: a token in the
model's vocab has that id; a new one gets max(added ids) + 1, or the vocab size when all added
ids are below it — so a file's id for a token absent from the vocab is not kept.

Example:
    >>> from tokenforge.models import WordLevel
    >>> av = AddedVocabulary()
    >>> av.add([AddedToken("<x>", special=True)], WordLevel({"a": 0}))
    1
    >>> av.find("a<x>a", normalized=False)
    [(None, (0, 1)), (1, (1, 4)), (None, (4, 5))]
"""

from __future__ import annotations

from dataclasses import dataclass

import regex

from tokenforge.normalizers.bert import WHITE_SPACE


@dataclass
class AddedToken:
    """One added token and how it matches."""

    content: str
    single_word: bool = False
    lstrip: bool = False
    rstrip: bool = False
    normalized: bool | None = None  # default: not special
    special: bool = False

    def __post_init__(self) -> None:
        if self.normalized is None:
            self.normalized = not self.special

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
        self._matchers: dict[bool, object] = {}
        self._normalizer = None

    def __len__(self) -> int:
        return len(self.tokens)

    def add(self, tokens: list[AddedToken], model) -> int:
        """Adds tokens (updating the flags of ones already added); returns how many are new."""
        new = 0
        for t in tokens:
            if not t.content:
                continue
            if t.content in self.ids:
                i = self.ids[t.content]
            else:
                i = model.token_to_id(t.content)
                if i is None:
                    size = len(model.vocab)
                    top = max(self.tokens, default=None)
                    i = size if top is None else (top + 1 if top >= size or size == 0 else size)
                new += 1
            self.tokens[i] = t
            self.ids[t.content] = i
        self._matchers.clear()
        return new

    def set_normalizer(self, normalizer) -> None:
        self._normalizer = normalizer
        self._matchers.clear()

    def content_of(self, i: int) -> str:
        """The text of added token i as id_to_token and decode give it: a `normalized` token's
        content through the normalizer (tokenizers keeps that form for them), else as written."""
        t = self.tokens[i]
        if t.normalized and self._normalizer is not None:
            return self._normalizer.normalize_str(t.content)
        return t.content

    def is_special(self, token: str) -> bool:
        i = self.ids.get(token)
        return i is not None and self.tokens[i].special

    def _matcher(self, normalized: bool):
        m = self._matchers.get(normalized)
        if m is None:
            keys: dict[str, int] = {}
            for i, t in self.tokens.items():
                if bool(t.normalized) != normalized:
                    continue
                key = t.content
                if normalized and self._normalizer is not None:
                    key = self._normalizer.normalize_str(key)
                if key:
                    keys.setdefault(key, i)
            if keys:
                alts = sorted(keys, key=lambda k: (-len(k), k))
                m = (regex.compile("|".join(regex.escape(k) for k in alts)), keys)
            else:
                m = (None, keys)
            self._matchers[normalized] = m
        return m

    def find(self, text: str, normalized: bool) -> list[tuple[int | None, tuple[int, int]]]:
        """(id or None, (start, end)) pieces covering `text`; ids mark added tokens."""
        pattern, keys = self._matcher(normalized)
        if pattern is None or not text:
            return [(None, (0, len(text)))]
        out: list[tuple[int | None, tuple[int, int]]] = []
        done = 0
        pos = 0
        while True:
            m = pattern.search(text, pos)
            if m is None:
                break
            start, stop = m.span()
            i = keys[m.group()]
            t = self.tokens[i]
            pos = stop  # non-overlapping, as an Aho-Corasick leftmost-longest scan
            if t.single_word:
                if (start > 0 and _is_word_char(text[start - 1])) or (stop < len(text) and _is_word_char(text[stop])):
                    continue
            if t.lstrip:
                s = start
                while s > 0 and text[s - 1] in WHITE_SPACE:
                    s -= 1
                start = max(s, done)
            if t.rstrip:
                while stop < len(text) and text[stop] in WHITE_SPACE:
                    stop += 1
            if start > done:
                out.append((None, (done, start)))
            out.append((i, (start, stop)))
            done = stop
            pos = max(pos, stop)
        if done < len(text):
            out.append((None, (done, len(text))))
        return out
