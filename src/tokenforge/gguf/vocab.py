"""`GGUFVocab`: the ``tokenizer.*`` metadata of a GGUF file as plain Python values.

A GGUF file carries its tokenizer as key/values (``tokenizer.ggml.model``, ``.tokens``,
``.scores``, ``.token_type``, ``.merges``, special ids, flags).  `GGUFVocab` holds exactly
those values, each ``None`` when the file does not have the key, so a file read and written
back keeps every value; what llama.cpp assumes for an absent key is the engine's business
(:mod:`tokenforge.gguf.engine`).  Keys under ``tokenizer.`` that this class does not name
(``tokenizer.chat_template``, ...) are kept in ``extra`` with their GGUF types.

What this module leaves to others: reading and writing files (:mod:`.reader`,
:mod:`.writer`), building a tokenizer (:mod:`.engine`), converting other formats
(:mod:`.convert`).

Example:
    >>> v = GGUFVocab(model="gpt2", pre="gpt-2", tokens=["a", "b", "ab"], merges=["a b"])
    >>> v.token_types is None, v.n_tokens
    (True, 3)
"""

from __future__ import annotations

import dataclasses
import enum
from typing import Any

from tokenforge.sentencepiece import PieceType


# tokenizer.ggml.token_type values: llama.cpp's llama_token_type, which numbers the types
# as SentencePiece does, plus UNDEFINED (0).
TokenType = enum.IntEnum("TokenType", {"UNDEFINED": 0, **{t.name: t.value for t in PieceType}})


PREFIX = "tokenizer.ggml."
# GGUFVocab field -> key under tokenizer.ggml. (the keys gguf.Keys.Tokenizer names).
ARRAY_KEYS = {"tokens": "tokens", "scores": "scores", "token_types": "token_type", "merges": "merges",
              "precompiled_charsmap": "precompiled_charsmap"}
FLAG_KEYS = {"add_bos": "add_bos_token", "add_eos": "add_eos_token", "add_sep": "add_sep_token",
             "add_space_prefix": "add_space_prefix", "remove_extra_whitespaces": "remove_extra_whitespaces"}
# short name -> key under tokenizer.ggml. ("seperator" is the key's own spelling).
SPECIAL_KEYS = {"bos": "bos_token_id", "eos": "eos_token_id", "unk": "unknown_token_id", "sep": "seperator_token_id",
                "pad": "padding_token_id", "cls": "cls_token_id", "mask": "mask_token_id", "eot": "eot_token_id",
                "eom": "eom_token_id", "fim_pre": "fim_pre_token_id", "fim_suf": "fim_suf_token_id",
                "fim_mid": "fim_mid_token_id", "fim_pad": "fim_pad_token_id", "fim_rep": "fim_rep_token_id",
                "fim_sep": "fim_sep_token_id", "prefix": "prefix_token_id", "suffix": "suffix_token_id",
                "middle": "middle_token_id"}


@dataclasses.dataclass
class GGUFVocab:
    """The tokenizer metadata of one GGUF file.

    Attributes:
        model: ``tokenizer.ggml.model``: ``llama`` (SentencePiece BPE), ``gpt2`` (byte-level
            BPE), ``bert`` (WordPiece), ``t5`` (Unigram), ...
        tokens: ``tokenizer.ggml.tokens``, the text of each id (byte-level BPE tokens are in
            GPT-2's byte-to-character alphabet; SentencePiece pieces use ``▁`` for spaces).
        pre: ``tokenizer.ggml.pre``, the byte-level pre-tokenizer's name.
        scores: ``tokenizer.ggml.scores`` (SentencePiece scores; BPE merge priority).
        token_types: ``tokenizer.ggml.token_type``, :class:`TokenType` values.
        merges: ``tokenizer.ggml.merges``, ``"left right"`` strings, highest priority first.
        special_ids: short name (see ``SPECIAL_KEYS``: ``bos``, ``eos``, ``unk``, ``sep``,
            ``pad``, ``cls``, ``mask``, ...) -> id, for the ids the file names.
        add_bos, add_eos, add_sep, add_space_prefix, remove_extra_whitespaces: the file's flags.
        precompiled_charsmap: ``tokenizer.ggml.precompiled_charsmap`` (Unigram normalizer).
        architecture: ``general.architecture`` (a writer needs one).
        name: ``general.name`` (llama.cpp keys a few token attributes on it, e.g. Phi-3).
        extra: other ``tokenizer.*`` keys: key -> (value, GGUF value type, array item type or None).
    """

    model: str
    tokens: list[str]
    pre: str | None = None
    scores: list[float] | None = None
    token_types: list[int] | None = None
    merges: list[str] | None = None
    special_ids: dict[str, int] = dataclasses.field(default_factory=dict)
    add_bos: bool | None = None
    add_eos: bool | None = None
    add_sep: bool | None = None
    add_space_prefix: bool | None = None
    remove_extra_whitespaces: bool | None = None
    precompiled_charsmap: bytes | None = None
    architecture: str | None = None
    name: str | None = None
    extra: dict[str, tuple[Any, Any, Any]] = dataclasses.field(default_factory=dict)

    @property
    def n_tokens(self) -> int:
        """The number of ids."""
        return len(self.tokens)

    def token_type(self, i: int) -> TokenType:
        """The type of id `i` (NORMAL when the file has no types, as in llama.cpp)."""
        return TokenType.NORMAL if self.token_types is None else TokenType(self.token_types[i])

    def check(self) -> None:
        """Checks that the arrays agree with each other.  (A special id outside the vocabulary
        is not an error: llama.cpp ignores it, and so does the engine.)

        Raises:
            ValueError: naming the first problem found.

        >>> GGUFVocab(model="llama", tokens=["a"], scores=[]).check()
        Traceback (most recent call last):
        ...
        ValueError: tokenizer.ggml.scores has 0 values for 1 tokens
        """
        if not self.tokens:
            raise ValueError("tokenizer.ggml.tokens is empty")
        for field in ("scores", "token_types"):
            values = getattr(self, field)
            if values is not None and len(values) < len(self.tokens):
                raise ValueError(f"{PREFIX}{ARRAY_KEYS[field]} has {len(values)} values for {len(self.tokens)} tokens")
        if self.token_types is not None:
            bad = next((t for t in self.token_types if t not in TokenType._value2member_map_), None)
            if bad is not None:
                raise ValueError(f"{PREFIX}token_type holds {bad}, not a llama.cpp token type (0-6)")
