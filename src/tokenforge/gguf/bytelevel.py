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
_CHAR_TO_BYTE = {c: b for b, c in BYTE_TO_CHAR.items()}


def token_bytes(token: str) -> bytes | None:
    """The bytes a byte-level token stands for, or None if it has a character outside
    GPT-2's alphabet.

    >>> token_bytes("Ġhi"), token_bytes("<|x|>"), token_bytes("é")
    (b' hi', b'<|x|>', b'\\xe9')
    """
    try:
        return bytes([_CHAR_TO_BYTE[c] for c in token])
    except KeyError:
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
        id_of: dict[str, int] = {}
        for i, t in enumerate(tokens):
            if i not in skip:
                id_of.setdefault(t, i)
        # (bytes, id) of each token merging can make, in priority order: single bytes, then
        # the result of each merge (first occurrence), then (ignore_merges) any other token.
        order: list[tuple[bytes, int]] = []
        b2c = BYTE_TO_CHAR
        for b in range(256):
            if b2c[b] in id_of:  # some vocabularies lack bytes that UTF-8 text never holds (0xC0, 0xF5, ...)
                order.append((bytes([b]), id_of[b2c[b]]))
        n_single = len(order)
        seen = {raw for raw, _ in order}
        for k, merge in enumerate(merges):
            cut = merge.find(" ", 1)  # llama.cpp: the first space after the first character
            if cut < 0:
                raise ValueError(f"tokenizer.ggml.merges[{k}] = {merge!r} is not two tokens separated by a space")
            left, right = merge[:cut], merge[cut + 1:]
            for part in (left, right, left + right):
                if part not in id_of:
                    raise ValueError(f"tokenizer.ggml.merges[{k}] = {merge!r} names {part!r}, which is not a token")
            raw = token_bytes(left + right)
            if raw is None:
                raise ValueError(f"tokenizer.ggml.merges[{k}] = {merge!r} is not in GPT-2's byte alphabet")
            if raw not in seen:
                seen.add(raw)
                order.append((raw, id_of[left + right]))
        if self.pre.ignore_merges:
            # A piece that is a whole token becomes it even if no merge makes it.
            for t, i in id_of.items():
                raw = token_bytes(t)
                if raw is not None and raw not in seen:
                    seen.add(raw)
                    order.append((raw, i))
        # Only the order of multi-byte tokens matters to merging: when their ids already
        # follow it, the ids are the ranks; else ranks are positions and a table maps back.
        multi = [i for raw, i in order[n_single:]]
        if all(a < b for a, b in zip(multi, multi[1:])):
            ranks = dict(order)
            self._rank_to_id = None
        else:
            ranks = {raw: r for r, (raw, _) in enumerate(order)}
            self._rank_to_id = [i for _, i in order]
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
