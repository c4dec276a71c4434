"""Byte-level BPE files whose pre-tokenizer cuts with several steps, then ByteLevel.

DeepSeek V3's tokenizer.json splits with a Sequence of Split regexes (Isolated), each applied
to the pieces of the one before, then ByteLevel(use_regex=false).  No native scanner does that
split, so here Python's regex engines make the pieces (the same compiled patterns the readable
`Split` uses, whose classes are Oniguruma's written out), and the native byte-level BPE (`_native.Encoding.encode_pieces`) merges every
piece in one call.  Added tokens are found first with the native special-token matcher.  The
rest — ranks from the vocab, offsets from token lengths, word ids from piece ends — is
:class:`tokenforge.tokenizer.native.NativeByteLevel`'s.

The written-out classes are slow to match; a stretch of text holding none of the code points
where the `regex` module's classes differ from Oniguruma's (`disputed_ranges`: Oniguruma's
unassigned ones, its ``\\w`` quirks, ...) is cut by the patterns as written instead, compiled by
the `regex` module, with the same pieces.

Other steps that only cut the text (Split with any behavior but Removed, Digits, Punctuation,
FixedLength; a lone Digits or Punctuation step ahead of a native scanner's regex, as StarCoder's
files have, takes tokenizer/native_cut.py instead) cut with one regex class over tokenizers' own tables (Digits,
Punctuation isolating or joining runs) or else with their own readable `split`, and a last
ByteLevel with its regex adds GPT-2's split: the pieces still join to the text, so the native BPE
and the offsets from token lengths serve.  Cutting steps may also follow the ByteLevel step
(Falcon's Digits and Split of three digits): they see each piece as ByteLevel leaves it, one
character per UTF-8 byte, so they cut its bytes, also inside a character where a byte's
character is in their class (a continuation byte 0xB2 is ``²``, a digit to Digits), as
tokenizers cuts them; such a piece goes to the BPE as bytes, and its tokens' offsets span the
characters their bytes belong to.  Left out: normalizers (only none or an empty Sequence),
steps that drop or change characters, ByteLevel's prefix space.

Example:
    >>> NativeSplits.build(object()) is None
    True
"""

from __future__ import annotations

import functools

import numpy as np

from tokenforge import _native
from tokenforge.formats.byte_map import BYTE_TO_CHAR
from tokenforge.patterns import Scanner
from tokenforge.normalizers.normalized_string import NormalizedString
from tokenforge.pre_tokenizers import ByteLevel, Digits, FixedLength, Punctuation, Sequence, Split
from tokenforge.tokenizer.encoding import Encoding
from tokenforge.tokenizer.native import NativeByteLevel, _check_surrogates, _scanner, rank_tables


def _keeps_text(step) -> bool:
    """Whether a pre-tokenizer step only cuts (its pieces, joined, are its input): then its
    pieces can go to the native BPE with offsets from token lengths."""
    if isinstance(step, (Split, Punctuation)):
        return step.behavior != "Removed"
    return isinstance(step, (Digits, FixedLength))


def split_steps(pre) -> list | None:
    """The steps that cut the text of a Sequence of cutting steps (_keeps_text) with one
    ByteLevel without prefix space (with its regex: GPT-2's split, as a step `GPT2_STEP`), the
    steps after it wrapped in `AfterBytes`; or None."""
    steps = pre.pretokenizers if isinstance(pre, Sequence) else []
    at = [k for k, step in enumerate(steps) if isinstance(step, ByteLevel)]
    if len(steps) < 2 or len(at) != 1 or steps[at[0]].add_prefix_space:
        return None
    k = at[0]
    if not all(_keeps_text(step) for step in steps[:k] + steps[k + 1:]):
        return None
    return list(steps[:k]) + ([GPT2_STEP] if steps[k].use_regex else []) + [AfterBytes(st) for st in steps[k + 1:]]


GPT2_STEP = "ByteLevel's own regex"


class AfterBytes:
    """A cutting step after ByteLevel: it cuts a piece's bytes, each seen as its character."""

    def __init__(self, step) -> None:
        self.step = step


_AFTER_CACHE_SIZE = 1 << 16  # pieces whose cut NativeSplits remembers (then it starts over)

# str.translate tables between a piece's UTF-8 read as Latin-1 and ByteLevel's characters.
_TO_BYTE_CHARS = {b: BYTE_TO_CHAR[b] for b in range(256)}
_FROM_BYTE_CHARS = {ord(c): b for b, c in BYTE_TO_CHAR.items()}


def after_bytes(data: bytes, splitters: list) -> list[bytes]:
    """A piece's UTF-8 cut by the steps after ByteLevel (module docstring).

    Example:
        >>> import re
        >>> after_bytes("x1234ò".encode(), [splitter(re.compile("[0-9²]+"))])
        [b'x', b'1234', b'\xc3', b'\xb2']
    """
    chars = data.decode("latin-1").translate(_TO_BYTE_CHARS)
    parts = pieces(chars, splitters)
    if len(parts) == 1:
        return [data]
    return [part.translate(_FROM_BYTE_CHARS).encode("latin-1") for part in parts]


def _isolated_splits(steps: list) -> list | None:
    """The steps, if all are Isolated regex Splits (which fast_regexes can speed up), or None."""
    if all(isinstance(sp, Split) and "Regex" in sp.pattern and sp.behavior == "Isolated" and not sp.invert
           for sp in steps):
        return steps
    return None


def split_regexes(pre) -> list | None:
    """The Split steps of a Sequence of Isolated regex Splits ending in ByteLevel without
    prefix space or regex (DeepSeek V3's form), or None."""
    steps = split_steps(pre)
    if steps is None or GPT2_STEP in steps or any(isinstance(st, AfterBytes) for st in steps):
        return None
    return _isolated_splits(steps)


def cut_of(step) -> tuple[list[tuple[int, int]], bool] | None:
    """(code point ranges, whether a run of them is one piece) of a step that isolates one
    class of characters: Digits, or Punctuation isolating or joining runs, over tokenizers'
    own tables of those characters; or None.

    Example:
        >>> cut_of(Digits(individual_digits=True))[1], cut_of(Punctuation("contiguous"))[1]
        (False, True)
        >>> cut_of(Punctuation("merged_with_previous")) is None
        True
    """
    from tokenforge.normalizers import hf_unicode_tables as tables

    if isinstance(step, Digits):
        return tables.NUMERIC, not step.individual_digits
    if isinstance(step, Punctuation) and step.behavior in ("Isolated", "Contiguous"):
        return tables.PUNCTUATION, step.behavior == "Contiguous"
    return None


@functools.cache
def whitespace_classes() -> _native.WhitespaceClasses:
    """The Whitespace pre-tokenizer's classes (the Rust regex crate's `\\w` and `\\s`, as
    tokenizers has them) for the native encoders that split with them; made once."""
    from tokenforge.normalizers.hf_unicode_tables import RUST_SPACE, RUST_WORD

    return _native.WhitespaceClasses(list(RUST_WORD), list(RUST_SPACE))


def _class_of(step):
    """A step of cut_of as one regex class (the same pieces as its `split`), or None."""
    import re

    from tokenforge.normalizers.pattern import ranges_text

    cut = cut_of(step)
    if cut is None:
        return None
    ranges, runs = cut
    return re.compile("[" + ranges_text(ranges) + "]" + ("+" if runs else ""))


def step_splitter(step):
    """A function cutting a str as the step cuts it (module docstring)."""
    if step is GPT2_STEP:
        from tokenforge.normalizers.pattern import compile_onig
        from tokenforge.pre_tokenizers.byte_level import GPT2_SPLIT_SOURCE

        return splitter(compile_onig(GPT2_SPLIT_SOURCE))
    if isinstance(step, Split) and step.behavior == "Isolated" and not step.invert:
        return splitter(step._re)
    char_class = _class_of(step)
    if char_class is not None:
        return splitter(char_class)

    def cut(text: str) -> list[str]:
        return [p.text for p in step.split(NormalizedString.from_text(text)) if p.text]

    return cut


def fast_regexes(splits: list):
    """(patterns as written, compiled by the `regex` module; a `re` search for the code
    points where that may differ from Oniguruma) for these Split steps, or None."""
    import re

    import regex

    from tokenforge.normalizers.pattern import disputed_ranges, ranges_text, regex_version, ruby_syntax

    disputed: set[tuple[int, int]] = set()
    for sp in splits:
        ranges = disputed_ranges(sp.pattern["Regex"])
        if ranges is None:
            return None
        disputed.update(ranges)
    try:
        compiled = [regex.compile(ruby_syntax(sp.pattern["Regex"]), regex.MULTILINE | regex_version(sp.pattern["Regex"]))
                    for sp in splits]
    except regex.error:
        return None
    guard = re.compile("[" + ranges_text(sorted(disputed)) + "]") if disputed else re.compile("(?!)")
    return compiled, guard


_PROBE = "Ab c1 23\n\n  x\t!!\"#'s 中文かな é\u0301 😀\r\n  "


def splitter(rx):
    """A function cutting a string into the matches of `rx` and the gaps between them.

    The split of the pattern in one capturing group gives exactly those, in C; it serves
    when the pattern has no groups of its own and matches nothing empty on a probe text,
    else a finditer loop does (empty matches skipped, as tokenizers' Split).
    """
    import re

    import regex

    if rx.groups == 0 and all(m.end() > m.start() for m in rx.finditer(_PROBE)):
        engine = re if isinstance(rx, re.Pattern) else regex  # as compile_pattern chose
        whole = engine.compile("(" + rx.pattern + ")", rx.flags)
        return lambda p: [x for x in whole.split(p) if x]

    def loop(p: str) -> list[str]:
        cut, pos = [], 0
        for m in rx.finditer(p):
            a, b = m.span()
            if b == a:
                continue
            if a > pos:
                cut.append(p[pos:a])
            cut.append(p[a:b])
            pos = b
        if pos < len(p):
            cut.append(p[pos:])
        return cut

    return loop


def pieces(text: str, splitters: list) -> list[str]:
    """`text` cut by each splitter in turn (Isolated: matches and the gaps between them).

    Example:
        >>> import regex
        >>> pieces("ab12345cd", [splitter(regex.compile(r"\\d{1,3}"))])
        ['ab', '123', '45', 'cd']
    """
    parts = [text]
    for cut in splitters:
        parts = cut(parts[0]) if len(parts) == 1 else [q for p in parts for q in cut(p)]
    return parts


def _native_split_of(steps: list) -> tuple | None:
    """(the CutClass or None,) when `steps` are GPT-2's split alone or after a class cut
    (cut_of), which the native scanner does; else None."""
    if len(steps) == 1 and steps[0] is GPT2_STEP:
        return (None,)
    cut = cut_of(steps[0]) if len(steps) == 2 and steps[1] is GPT2_STEP else None
    return None if cut is None else (_native.CutClass(*cut),)


class NativeSplits(NativeByteLevel):
    """Regex splits in Python, byte-level BPE in C++ (module docstring)."""

    def __init__(self, tok, steps: list, form: str, ranks: dict[bytes, int], specials: dict[str, int]) -> None:
        super().__init__(tok, int(Scanner.GPT2), form, ranks, specials)
        after = [st for st in steps if isinstance(st, AfterBytes)]
        steps = [st for st in steps if not isinstance(st, AfterBytes)]
        self.regexes = [step_splitter(step) for step in steps]
        self.after = [step_splitter(st.step) for st in after]
        self._after_cache: dict[bytes, list[bytes]] = {}
        self.native_split = _native_split_of(steps)
        regexes = _isolated_splits(steps)
        fast = fast_regexes(regexes) if regexes is not None else None
        self.fast = None if fast is None else [splitter(rx) for rx in fast[0]]
        self.guard = None if fast is None else fast[1]
        self.bpe = _native.Encoding(ranks, {}, int(Scanner.GPT2))
        self.special_ids = dict(specials)
        self.special_set = _native.SpecialSet(list(specials.items())) if specials else None

    @classmethod
    def build(cls, tok) -> "NativeSplits | None":
        pre = getattr(tok, "pre_tokenizer", None)
        if pre is None or _scanner(pre) is not None:
            return None
        steps = split_steps(pre)
        tables = rank_tables(tok) if steps is not None else None
        if tables is None or tables[0]:
            return None
        try:
            return cls(tok, steps, *tables)
        except ValueError:
            return None

    # The document paths of NativeByteLevel (finished Encodings made in C++) cut text with the
    # engine's own scanner, GPT-2's, not with these splits: they take no text here.
    def encode_final(self, texts: list[str], add_special_tokens: bool, threads: int, ids_only: bool = False) -> None:
        return None

    def encode_final_one(self, text: str, add_special_tokens: bool) -> None:
        return None

    def _segments(self, text: str) -> list[tuple[str, int | None]]:
        """(stretch, None) and (added token, id) in order."""
        out: list[tuple[str, int | None]] = []
        while text:
            found = self.special_set.find(text) if self.special_set is not None else None
            if found is None:
                out.append((text, None))
                break
            content = found[1].decode("utf-8")
            at = text.find(content)
            if at > 0:
                out.append((text[:at], None))
            out.append((content, found[0]))
            text = text[at + len(content):]
        return out

    def _pieces(self, seg: str) -> list[str]:
        """The pieces of a stretch without added tokens (fast patterns where they agree)."""
        if self.fast is not None and self.guard.search(seg) is None:
            return pieces(seg, self.fast)
        return pieces(seg, self.regexes)

    def _byte_pieces(self, seg: str) -> list[bytes]:
        """The pieces of a stretch as UTF-8, cut further by the steps after ByteLevel (each
        piece's cut remembered: words recur, and cutting one is several regex calls).  When
        the steps before them are GPT-2's split, alone or after a class cut (Falcon's
        Punctuation), the native scanner makes the pieces, as native_cut.py's engine does."""
        if self.native_split is not None:
            data = seg.encode("utf-8")
            ends = _native._split(int(Scanner.GPT2), data, self.native_split[0])[0]
            found = [data[a:b] for a, b in zip([0, *ends], ends)]
        else:
            found = [p.encode("utf-8") for p in self._pieces(seg)]
        if not self.after:
            return found
        cache, out = self._after_cache, []
        for p in found:
            cut = cache.get(p)
            if cut is None:
                if len(cache) >= _AFTER_CACHE_SIZE:
                    cache.clear()
                cut = cache[p] = after_bytes(p, self.after)
            out.extend(cut)
        return out

    def _ids(self, text: str) -> list[int]:
        ids: list[int] = []
        for seg, sid in self._segments(text):
            if sid is not None:
                ids.append(sid)
            else:
                ids.extend(self.bpe.encode_pieces(self._byte_pieces(seg)))
        return ids

    def encode(self, text: str, type_id: int = 0) -> Encoding | None:
        _check_surrogates(text)
        return self.to_encoding(text, text.encode("utf-8"), self._ids(text), type_id)

    def encode_batch(self, texts: list[str], threads: int) -> list[Encoding | None]:
        return [self.encode(t) for t in texts]

    def ids_batch(self, texts: list[str], threads: int) -> list[list[int] | None]:
        out = []
        for t in texts:
            _check_surrogates(t)
            out.append(self._ids(t))
        return out

    def _words(self, data: bytes, arr, starts) -> list[int]:
        ends: list[int] = []
        at = 0
        for seg, sid in self._segments(data.decode("utf-8")):
            for p in ([seg.encode("utf-8")] if sid is not None else self._byte_pieces(seg)):
                at += len(p)
                ends.append(at)
        return np.searchsorted(np.array(ends, dtype=np.int64), starts, side="right").tolist()
