"""Normalizer steps ahead of a SentencePiece-style file's charsmap, run before the native encoder.

ALBERT's and XLNet's tokenizer.json put ``Replace("``", '"')``, ``Replace("''", '"')``, NFKD,
StripAccents and Lowercase before the ``Precompiled`` charsmap.  The native encoder
(:mod:`tokenforge.tokenizer.native_spm`) runs the charsmap and what follows it; a
:class:`PreChain` runs those first steps on each text and gives the native encoder the result,
with what is needed to read the encoder's offsets back to the original text:

* an ASCII text that no Replace pattern touches needs nothing but ``str.lower`` (when the chain
  lowercases): every other step leaves ASCII as it is, and each character stays one character,
  so the offsets need no mapping;
* a text whose every character the chain turns into exactly one character, each on its own,
  is mapped character by character (``str.translate`` over a table filled as characters are
  first met): again no offsets to map.  This holds for a chain of Lowercase, StripAccents,
  NFD/NFKD and plain-string Replace steps placed first whose patterns the text lacks; a
  character that is a combining mark, or that becomes none or several, sends the text on;
* a text those Replace steps change has them done by slices, each content character aligned
  with its match's last character as tokenizers aligns a replacement, and then the table;
* a chain of one Unicode form runs it natively (``_native.normalize_unicode``, `tokenizers`'
  Unicode 11.0 data and alignment, as :mod:`tokenforge.tokenizer.native` runs it); so does Nmt
  then a form (`tokenizers`' SentencePieceUnigramTokenizer), Nmt's spaces put in character for
  character first, unless the text holds a character Nmt drops;
* any other text runs the readable normalizers on a
  :class:`~tokenforge.normalizers.normalized_string.NormalizedString`, whose per-character
  alignment maps each token's span back (`original_span`), as tokenizers composes its
  alignments step by step.

Added tokens are matched in the original text, but the encoder would see the normalized one (a
lowercased ``[MASK]``): a text holding the content of any added token is left to the Python
pipeline (:meth:`PreChain.prepare` returns None).

Example:
    >>> from tokenforge.normalizers import Lowercase, Replace
    >>> chain = PreChain([Replace({"String": "``"}, '"'), Lowercase()], ["[MASK]"])
    >>> chain.prepare("Hello World")
    ('hello world', None)
    >>> text, ns = chain.prepare("``Ä``")
    >>> text, ns.original_span(1, 2)  # "ä" is the original's "Ä", characters 2..3
    ('"ä"', (2, 3))
    >>> chain.prepare("a [MASK] b") is None  # the Python pipeline's
    True
"""

from __future__ import annotations

import re
import unicodedata

from tokenforge import _native
from tokenforge.normalizers import NFC, NFD, NFKC, NFKD, Lowercase, Nmt, Replace, StripAccents
from tokenforge.normalizers.text import _NMT_DROP, _NMT_SPACE
from tokenforge.normalizers.normalized_string import NormalizedString

MARK = "\u2581"
_NMT_SPACES = {ord(c): " " for c in _NMT_SPACE}  # str.translate table of Nmt's spaces


def is_pre_step(n) -> bool:
    """Whether a normalizer step may run ahead of the native encoder: a Unicode form, Nmt,
    Lowercase, StripAccents, or a Replace of a plain string (not the space-to-▁ step the encoder
    runs itself)."""
    if type(n) in (NFC, NFD, NFKC, NFKD, Lowercase, StripAccents, Nmt):
        return True
    return (type(n) is Replace and isinstance(n.pattern, dict) and bool(n.pattern.get("String"))
            and not (n.pattern["String"] == " " and n.content == MARK))


class PreChain:
    """The steps ahead of the encoder, and the added tokens that send a text to Python."""

    def __init__(self, steps: list, guarded: list[str]) -> None:
        self.steps = list(steps)
        # One search for all the guarded contents: the compiled alternation skips the positions
        # where none of them can start (thousands of added tokens stay one pass over the text).
        guarded = sorted({g for g in guarded if g}, key=len, reverse=True)
        self.guard = re.compile("|".join(map(re.escape, guarded))) if guarded else None
        self.lower = any(type(n) is Lowercase for n in steps)
        self.patterns = [n.pattern["String"] for n in steps if type(n) is Replace]
        # Character by character only without composition, and with the Replace steps first.
        kinds = [type(n) is Replace for n in steps]
        self.by_char = (not any(type(n) in (NFC, NFKC) for n in steps)
                        and kinds == sorted(kinds, reverse=True))
        self.unsafe: set[str] = set()  # characters the table must not map (see module docstring)
        self.table = _CharTable(self)
        # A Unicode form, alone or after Nmt, runs natively with tokenizers' alignment (as
        # native.py runs it); Nmt elsewhere in a chain takes the readable steps for every text
        # (it changes ASCII, which the faster routes below assume unchanged).
        forms = (NFC, NFD, NFKC, NFKD)
        self.nmt = any(type(n) is Nmt for n in steps)
        lone = len(steps) == 1 and type(steps[0]) in forms
        after_nmt = len(steps) == 2 and type(steps[0]) is Nmt and type(steps[1]) in forms
        self.form = type(steps[-1]).__name__ if lone or after_nmt else None

    def prepare(self, text: str) -> tuple[str, NormalizedString | _Aligned | None] | None:
        """The text the encoder takes and, when its offsets need mapping back, the aligned
        normalized string; None for a text the Python pipeline must take (an added token's
        content in it)."""
        if self.guard is not None and self.guard.search(text):
            return None
        if not self.steps:
            return text, None
        if self.form is not None and not (self.nmt and not _NMT_DROP.isdisjoint(text)):
            if self.nmt:  # character for character (no character dropped): the alignment stays the form's
                text = text.translate(_NMT_SPACES)
            found = _native.normalize_unicode(text, self.form)
            return (text, None) if found is None else (found[0], _Aligned(found[1], found[2]))
        if self.nmt:
            return self._readable(text)
        if text.isascii():
            low = text.lower() if self.lower else text
            if not any(p in text or p in low for p in self.patterns):
                return low, None
        elif self.by_char and not any(p in text for p in self.patterns):
            mapped = text.translate(self.table)
            if self.unsafe.isdisjoint(text):
                return mapped, None
        if self.by_char:
            ns = self._replaced(text)
            mapped = ns.text.translate(self.table)
            if self.unsafe.isdisjoint(ns.text):
                ns.text = mapped
                return mapped, ns
        return self._readable(text)

    def _readable(self, text: str) -> tuple[str, NormalizedString]:
        """The readable normalizers on the text, with their alignment."""
        ns = NormalizedString.from_text(text)
        for n in self.steps:
            n.normalize(ns)
        return ns.text, ns

    def _replaced(self, text: str) -> NormalizedString:
        """The text after the chain's Replace steps (which come first, by_char), aligned as
        tokenizers aligns a replacement: each character of the content with the match's last
        character, the rest with themselves.  Slices, not a step per character."""
        size = len(text)
        align = list(zip(range(size), range(1, size + 1)))
        for n in self.steps:
            if type(n) is not Replace:
                break
            pattern, content = n.pattern["String"], n.content
            parts, spans, prev = [], [], 0
            at = text.find(pattern)
            while at >= 0:
                end = at + len(pattern)
                parts += [text[prev:at], content]
                spans += align[prev:at]
                spans += [align[end - 1]] * len(content)
                prev = end
                at = text.find(pattern, end)
            if prev:
                parts.append(text[prev:])
                spans += align[prev:]
                text, align = "".join(parts), spans
        return NormalizedString(text, align, 0, size)


class _Aligned:
    """A text under a Unicode form, as `_native.normalize_unicode` aligns it: each normalized
    character's original start and end (native uint32 bytes); reads spans back as
    NormalizedString.original_span does for the spans of tokens (never empty)."""

    def __init__(self, starts: bytes, ends: bytes) -> None:
        self.starts, self.ends = memoryview(starts).cast("I"), memoryview(ends).cast("I")

    def original_span(self, a: int, b: int) -> tuple[int, int]:
        return self.starts[a], self.ends[b - 1]


class _CharTable(dict):
    """ord -> the result of the chain's steps after its Replace steps on that character alone,
    made when first asked; a character whose result is not exactly one character, or that is a
    combining mark, joins the chain's `unsafe` set (its text then takes the aligned path)."""

    def __init__(self, chain: PreChain) -> None:
        super().__init__()
        self.chain = chain

    def __missing__(self, code: int) -> str:
        c = chr(code)
        ns = NormalizedString.from_text(c)
        for n in self.chain.steps:
            if type(n) is not Replace:  # (done before the table: they come first, and only once)
                n.normalize(ns)
        if len(ns.text) != 1 or unicodedata.combining(c):
            self.chain.unsafe.add(c)
        self[code] = ns.text
        return ns.text


def through(offsets: list, ns: NormalizedString | None, a: int = 0, b: int | None = None) -> list:
    """offsets with items [a, b) (a text's tokens, not a frame's specials) read back through ns."""
    if ns is None:
        return offsets
    b = len(offsets) if b is None else b
    return offsets[:a] + [ns.original_span(x, y) for x, y in offsets[a:b]] + offsets[b:]
