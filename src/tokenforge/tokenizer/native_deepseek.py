r"""DeepSeek V3's tokenizer.json on the native path: its three Split regexes as one C++ scanner.

DeepSeek V3 pre-tokenizes with a Sequence of three Isolated Splits that `tokenizers` runs on
Oniguruma — numbers three at a time, runs of CJK ideographs and kana, then a GPT-like word
pattern over Oniguruma's ``\p{L}``, ``\p{M}``, ``\p{P}``, ``\p{S}`` and ``\s`` — and then
ByteLevel without its own regex.  The C++ scanner ``next_piece_deepseek_v3``
(cpp/pretokenize/deepseek_v3_scanner.h, ``Scanner.DEEPSEEK_V3``) cuts the same pieces in one
pass, so the byte-level engine runs the file as it runs cl100k's: ids on native threads,
offsets and word ids from :class:`tokenforge.tokenizer.native.NativeByteLevel`.

The route is taken when the Split steps are exactly these three patterns, whatever the file
is called; another Sequence of Splits takes
:class:`tokenforge.tokenizer.native_splits.NativeSplits` (the regexes in Python), which is
also the oracle of the scanner's property tests.

Left out: one long text is not cut into parts for several threads (a text is one thread's).

Example:
    >>> NativeDeepSeekV3.build(object()) is None
    True
"""

from __future__ import annotations

from tokenforge import _native
from tokenforge.patterns import Scanner
from tokenforge.tokenizer.native import NativeByteLevel, rank_tables
from tokenforge.tokenizer.native_splits import split_regexes

# The three Split regexes, as the file spells them (CR and LF are literal characters).
DEEPSEEK_V3_SPLITS = (
    r"\p{N}{1,3}",
    "[\u4e00-\u9fa5\u3040-\u309f\u30a0-\u30ff]+",
    r"""[!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^""" "\r\n" r"""\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+"""
    r"""| ?[\p{P}\p{S}]+[""" "\r\n" r"""]*|\s*[""" "\r\n" r"""]+|\s+(?!\S)|\s+""",
)


class AllSpecialsEngine:
    """The native byte-level engine with every added token matched, called as NativeByteLevel
    calls a `tokenforge.Encoding` (which needs a pattern string; this scanner has none)."""

    def __init__(self, ranks: dict[bytes, int], specials: dict[str, int], scanner: int) -> None:
        self.core = _native.Encoding(ranks, specials, scanner)
        self.all = _native.SpecialSet(list(specials.items()))

    def encode_to_numpy(self, text: str, allowed_special: str = "all"):
        return self.core.encode_to_numpy(text, self.all)

    def encode_batch(self, texts: list[str], allowed_special: str = "all", num_threads: int = 1) -> list[list[int]]:
        return self.core.encode_batch(texts, self.all, None, num_threads)


class AllSpecialsPath(NativeByteLevel):
    """NativeByteLevel on an AllSpecialsEngine: for scanners that no tiktoken pattern string
    names, or engines cut before they split (tokenizer/native_cut.py)."""

    def make_engine(self, scanner: int, ranks: dict[bytes, int], specials: dict[str, int]) -> AllSpecialsEngine:
        return AllSpecialsEngine(ranks, specials, scanner)

    def engine_and_specials(self):
        return self.engine.core, self.engine.all


class NativeDeepSeekV3(AllSpecialsPath):
    """DeepSeek V3's Splits on the native scanner, byte-level BPE in C++ (module docstring)."""

    @classmethod
    def build(cls, tok) -> "NativeDeepSeekV3 | None":
        """The native path for `tok` if it splits exactly as DeepSeek V3, else None."""
        splits = split_regexes(getattr(tok, "pre_tokenizer", None))
        if splits is None or tuple(sp.pattern["Regex"] for sp in splits) != DEEPSEEK_V3_SPLITS:
            return None
        tables = rank_tables(tok)
        if tables is None:
            return None
        try:
            return cls(tok, int(Scanner.DEEPSEEK_V3), *tables)
        except ValueError:
            return None
