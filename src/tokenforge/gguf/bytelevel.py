"""Byte-level BPE from a GGUF's ``tokens`` + ``merges`` (``tokenizer.ggml.model = "gpt2"``).

GGUF stores byte-level tokens in GPT-2's byte-to-character alphabet and the merges as
``"left right"`` strings, first merge first.  The engine is a :class:`tokenforge.Encoding`
whose ranks follow the merge order: the 256 single bytes get ranks 0-255 and the token the
k-th merge makes gets rank 256 + k; a table maps each rank back to the file's id (skipped
when rank order and id order agree, as they do for GPT-2 and Llama 3).  Tiktoken-style
merging by rank gives the same pieces as merge-list BPE on these vocabularies (checked
against llama.cpp's test vectors and the reference libraries, see tests/parity); and as
tiktoken does, a piece that is a whole token becomes that token, which is llama.cpp's
``ignore_merges``.

Splitting: a pre-tokenizer of one regex with a native scanner runs natively
(``Encoding.encode_ordinary``); any other goes through :class:`.split.SequenceSplitter`
and the native merge.

What this module leaves out: special tokens (cut out beforehand by :mod:`.engine`) and
tokens whose text is not in the byte alphabet (added tokens; the engine treats CONTROL and
USER_DEFINED tokens as special text, and a NORMAL token outside the alphabet cannot be
produced by merging -- as in llama.cpp).

Example:
    >>> tokens = [BYTE_TO_CHAR[b] for b in range(256)] + ["ĠĠ", "ab"]
    >>> bpe = ByteLevelBpe(tokens, ["Ġ Ġ", "a b"], "gpt-2")
    >>> bpe.encode("ab  ab")
    [257, 32, 32, 257]
"""

from __future__ import annotations

from tokenforge import patterns
from tokenforge.core import Encoding
from tokenforge.formats.byte_map import BYTE_TO_CHAR
from tokenforge.gguf.pretokenizers import _GPT2, PreTokenizer, pre_tokenizer
from tokenforge.gguf.split import SequenceSplitter

# llama.cpp's GPT-2 regex has no final `|\s+`; the text it leaves between matches is always
# one whitespace character before a non-space, the very piece `\s+` would match, so the two
# split alike and the native GPT-2 scanner runs it.
_NATIVE_SPELLING = {_GPT2: patterns.GPT2}
# str.translate table: each alphabet character -> the byte it stands for (as a code point
# below 256), every other character below 256 -> U+FFFF, so that encoding the result as
# Latin-1 fails exactly when the token has a character outside the alphabet.
_TO_LATIN1 = {c: 0xFFFF for c in range(256)} | {ord(c): b for b, c in BYTE_TO_CHAR.items()}


def token_bytes(token: str) -> bytes | None:
    """The bytes a byte-level token stands for, or None if it has a character outside
    GPT-2's alphabet.

    >>> token_bytes("Ġhi"), token_bytes("<|x|>"), token_bytes("é")
    (b' hi', b'<|x|>', b'\\xe9')
    """
    try:
        return token.translate(_TO_LATIN1).encode("latin-1")
    except UnicodeEncodeError:
        return None


class ByteLevelBpe:
    """Encodes text with a GGUF byte-level BPE vocabulary (no special tokens)."""

    def __init__(self, tokens: list[str], merges: list[str], pre: str | PreTokenizer | None,
                 skip: frozenset[int] = frozenset()) -> None:
        """Builds the engine.

        Args:
            tokens: ``tokenizer.ggml.tokens``.
            merges: ``tokenizer.ggml.merges``, first merge first.
            pre: the ``tokenizer.ggml.pre`` name, or a :class:`PreTokenizer`.
            skip: ids that are not byte-level text (special tokens): never merged into.

        Raises:
            ValueError: an unknown `pre`, a merge that is not two tokens separated by a space,
                or a merge naming a token the vocabulary lacks.
        """
        self.pre = pre if isinstance(pre, PreTokenizer) else pre_tokenizer(pre)
        id_of = _first_ids(tokens, skip)
        # bytes -> id of each token merging can make, in priority order: single bytes, then
        # the result of each merge (first occurrence), then (ignore_merges) any other token.
        # (Equal bytes mean equal text, hence the same id: a dict keeps the first position.)
        order = {bytes([b]): id_of[c] for b, c in BYTE_TO_CHAR.items() if c in id_of}
        # (some vocabularies lack bytes that UTF-8 text never holds: 0xC0, 0xF5, ...)
        n_single = len(order)
        raw_of = [token_bytes(t) for t in tokens]
        made = _merged_ids(merges, id_of)
        order.update(zip(map(raw_of.__getitem__, made), made))
        if None in order:
            k = next(k for k, i in enumerate(made) if raw_of[i] is None)
            raise ValueError(f"tokenizer.ggml.merges[{k}] = {merges[k]!r} is not in GPT-2's byte alphabet")
        if self.pre.ignore_merges:
            # A piece that is a whole token becomes it even if no merge makes it.
            ids = list(id_of.values())
            order.update({raw: i for raw, i in zip(map(raw_of.__getitem__, ids), ids) if raw is not None})
        # Only the order of multi-byte tokens matters to merging: when their ids already
        # follow it, the ids are the ranks; else ranks are positions and a table maps back.
        multi = list(order.values())[n_single:]
        if all(a < b for a, b in zip(multi, multi[1:])):
            ranks = order
            self._rank_to_id = None
        else:
            ranks = {raw: r for r, raw in enumerate(order)}
            self._rank_to_id = list(order.values())
        regexes = self.pre.regexes
        pat = _NATIVE_SPELLING.get(regexes[0], regexes[0]) if len(regexes) == 1 else None
        native = pat is not None and patterns.scanner_for(pat) is not None
        self._encoding = Encoding("gguf", pat_str=pat if native else patterns.GPT2, mergeable_ranks=ranks,
                                  special_tokens={})
        self._splitter = None if native else SequenceSplitter(regexes)

    def encode(self, text: str) -> list[int]:
        """The ids of `text` (no special tokens are recognised)."""
        if self._splitter is None:
            ranks = self._encoding.encode_ordinary(text)
        else:
            pieces = [p.encode("utf-8", "surrogatepass") for p in self._splitter.split(text)]
            ranks = self._encoding._core.encode_pieces(pieces)
        if self._rank_to_id is None:
            return ranks
        table = self._rank_to_id
        return [table[r] for r in ranks]


def _first_ids(tokens: list[str], skip: frozenset[int]) -> dict[str, int]:
    """Token text -> its first id not in `skip`."""
    id_of = dict(zip(reversed(tokens), range(len(tokens) - 1, -1, -1)))  # first id wins
    clashes = {tokens[i] for i in skip if id_of.get(tokens[i]) == i}
    if clashes:  # a skipped token's text: the first other id with it, if any
        for t in clashes:
            del id_of[t]
        for i, t in enumerate(tokens):
            if t in clashes and i not in skip:
                id_of.setdefault(t, i)
    return id_of


def _merged_ids(merges: list[str], id_of: dict[str, int]) -> list[int]:
    """The id each merge makes, first merge first.

    Raises:
        ValueError: a merge that is not two tokens separated by a space, that names a token
            the vocabulary lacks, or whose result is not in GPT-2's byte alphabet.
    """
    # Fast path: each merge holds exactly one space, not in front (split in C, one pass).
    parts = " ".join(merges).split(" ")
    lefts, rights = parts[0::2], parts[1::2]
    if len(parts) == 2 * len(merges) and list(map(" ".join, zip(lefts, rights))) == merges:
        made = list(map(id_of.get, map(str.__add__, lefts, rights)))
        if None not in made and id_of.keys() >= set(parts):
            return made
    made = []
    for k, merge in enumerate(merges):
        cut = merge.find(" ", 1)  # llama.cpp: the first space after the first character
        i = id_of.get(merge[:cut] + merge[cut + 1:]) if cut > 0 else None
        if i is None or merge[:cut] not in id_of or merge[cut + 1:] not in id_of:
            _bad_merge(k, merge, id_of)
        made.append(i)
    return made


def _bad_merge(k: int, merge: str, id_of: dict[str, int]) -> None:
    cut = merge.find(" ", 1)
    if cut < 0:
        raise ValueError(f"tokenizer.ggml.merges[{k}] = {merge!r} is not two tokens separated by a space")
    left, right = merge[:cut], merge[cut + 1:]
    for part in (left, right, left + right):
        if part not in id_of:
            raise ValueError(f"tokenizer.ggml.merges[{k}] = {merge!r} names {part!r}, which is not a token")

