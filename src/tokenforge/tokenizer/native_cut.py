"""Byte-level files that cut out digits or punctuation before a regex tokenforge has a scanner for.

StarCoder's tokenizer.json (and others trained the same way) pre-tokenizes with
``Sequence([Digits(individual_digits=True), ByteLevel(use_regex=True)])``: each digit becomes a
piece, and GPT-2's regex then runs on every piece on its own, so the end of the text before a
digit is the end of the regex's input (``"a  1"`` gives ``a``, two spaces, ``1``, where GPT-2's
regex on the whole text gives ``a``, a space, `` 1``).  The native engine does the same: a
`_native.CutClass` (cpp/pretokenize/cut_class.h) cuts each stretch between added tokens at the
class's characters, and the scanner splits each part alone; ids, offsets and word ids then come
as for any :class:`tokenforge.tokenizer.native.NativeByteLevel` file, on native threads.

The first step is Digits (``individual_digits``: each digit a part, else runs of them) or
Punctuation isolating or joining runs, over tokenizers' own tables of those characters; the
rest is ByteLevel with its regex, or a Split that a native scanner does exactly, then ByteLevel
without it.  Other pipelines take :class:`tokenforge.tokenizer.native_splits.NativeSplits`,
the regexes in Python, which is the oracle of this path's property test.

Left out, as for DeepSeek V3's scanner: one long text is not cut for several threads.

Example:
    >>> NativeCutSplit.build(object()) is None
    True
"""

from __future__ import annotations

from tokenforge import _native
from tokenforge.pre_tokenizers import Sequence
from tokenforge.tokenizer.native import _scanner, rank_tables
from tokenforge.tokenizer.native_deepseek import AllSpecialsPath
from tokenforge.tokenizer.native_splits import cut_of


class NativeCutSplit(AllSpecialsPath):
    """A class cut out, then a native scanner, then byte-level BPE, all in C++ (module docstring)."""

    def __init__(self, tok, cut: tuple[list[tuple[int, int]], bool], scanner: int, form: str,
                 ranks: dict[bytes, int], specials: dict[str, int]) -> None:
        self.cut = _native.CutClass(*cut)
        super().__init__(tok, scanner, form, ranks, specials)

    def make_engine(self, scanner: int, ranks: dict[bytes, int], specials: dict[str, int]):
        engine = super().make_engine(scanner, ranks, specials)
        engine.core.set_cut(self.cut)
        return engine

    @classmethod
    def build(cls, tok) -> "NativeCutSplit | None":
        pre = getattr(tok, "pre_tokenizer", None)
        steps = pre.pretokenizers if isinstance(pre, Sequence) else []
        cut = cut_of(steps[0]) if len(steps) >= 2 else None
        if cut is None:
            return None
        scanner = _scanner(Sequence(steps[1:]) if len(steps) > 2 else steps[1])
        tables = rank_tables(tok) if scanner is not None else None
        if tables is None:
            return None
        try:
            return cls(tok, cut, scanner, *tables)
        except ValueError:
            return None
