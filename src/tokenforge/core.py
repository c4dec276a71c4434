"""`Encoding`: a byte-level BPE tokenizer with tiktoken's API and ids.

The pipeline is tiktoken's: allowed special tokens cut the text into segments, a split
pattern cuts each segment into pieces, and each piece is byte-pair merged by rank.
The native core (``tokenforge._native.Encoding``) runs all of it for the known patterns;
any other pattern is split here with the `regex` module and merged natively.

What this module leaves to others: file formats (:mod:`tokenforge.load`), the named
encodings (:mod:`tokenforge.registry`), training (:mod:`tokenforge.training`) and the
pure-Python oracle (:mod:`tokenforge.reference.bpe`).

Example:
    >>> ranks = {bytes([b]): b for b in range(256)}
    >>> ranks[b"ab"] = 256
    >>> enc = Encoding("tiny", pat_str=patterns.GPT2, mergeable_ranks=ranks, special_tokens={"<|eot|>": 257})
    >>> enc.encode("ab ab<|eot|>", allowed_special="all")
    [256, 32, 256, 257]
    >>> enc.decode([256, 32, 256])
    'ab ab'
"""

from __future__ import annotations

import functools
from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING, AbstractSet, Literal, NoReturn

from tokenforge import _cuts, _native, patterns
from tokenforge._threads import resolve_threads

if TYPE_CHECKING:
    import numpy as np

_DEFAULT_THREADS = 8
# A text this long (characters) or longer is cut at exact cut points (tokenforge._cuts)
# and its parts encoded on the native pool; shorter ones are not worth the hand-off.
PARALLEL_MIN_CHARS = 1 << 18


class Encoding:
    """A byte-level BPE encoding, a drop-in for ``tiktoken.Encoding``."""

    def __init__(
        self,
        name: str,
        *,
        pat_str: str,
        mergeable_ranks: dict[bytes, int],
        special_tokens: dict[str, int],
        explicit_n_vocab: int | None = None,
    ) -> None:
        """Builds an encoding.

        Args:
            name: a name for repr and pickling.
            pat_str: the split pattern (the known GPT patterns run natively).
            mergeable_ranks: token bytes -> rank; the rank is the token id.
            special_tokens: special token text -> id.
            explicit_n_vocab: if given, must equal the number of ranks plus specials and
                one more than the largest id.

        Raises:
            ValueError: duplicate ids or bytes, a pattern that does not compile, or a
                vocabulary size that differs from `explicit_n_vocab`.
        """
        self.name = name
        self._pat_str = pat_str
        self._mergeable_ranks = mergeable_ranks
        self._special_tokens = special_tokens
        self.max_token_value = max(max(mergeable_ranks.values(), default=0), max(special_tokens.values(), default=0))
        if explicit_n_vocab is not None:
            if len(mergeable_ranks) + len(special_tokens) != explicit_n_vocab:
                raise ValueError(
                    f"explicit_n_vocab={explicit_n_vocab} but there are {len(mergeable_ranks)} ranks"
                    f" and {len(special_tokens)} special tokens"
                )
            if self.max_token_value != explicit_n_vocab - 1:
                raise ValueError(f"explicit_n_vocab={explicit_n_vocab} but the largest id is {self.max_token_value}")
        scanner = patterns.scanner_for(pat_str)
        self._scanner = None if scanner is None else int(scanner)  # the native splitter, if any
        self._regex = None
        if scanner is None:
            import regex

            try:
                self._regex = regex.compile(pat_str)
            except regex.error as e:
                raise ValueError(f"split pattern does not compile: {e}") from None
        self._core = _native.Encoding(mergeable_ranks, special_tokens, -1 if scanner is None else int(scanner))
        self._special_token_values = frozenset(special_tokens.values())
        # (disallowed?, tokens) -> the native set.  Per encoding: a functools.lru_cache on the
        # methods was one cache on the class, which kept every encoding that used it alive
        # (until evicted, or past nanobind's leak check at exit).
        self._sets: dict[tuple[bool, frozenset[str]], _native.SpecialSet] = {}

    def __repr__(self) -> str:
        return f"<Encoding {self.name!r}>"

    def to_gguf(self, path: str | os.PathLike[str], *, pre: str | None = None) -> None:
        """Writes the encoding as a tokenizer-only GGUF file (``gpt2``: byte-level BPE, the
        llama.cpp ``pre`` that splits like the pattern, or `pre`), atomically.  See
        :func:`tokenforge.gguf.vocab_from_encoding`.

        Raises:
            ValueError: no llama.cpp pre-tokenizer splits exactly like the pattern (pass `pre`).
            OSError: the file cannot be written.
            ImportError: the `gguf` package is missing (pip install 'tokenforge[gguf]').
        """
        from tokenforge.gguf import vocab_from_encoding, write_vocab

        write_vocab(vocab_from_encoding(self, pre=pre), path)

    # ====================
    # Encoding
    # ====================

    def encode_ordinary(self, text: str, *, num_threads: int | None = None) -> list[int]:
        """Encodes text, treating special tokens as ordinary text.

        A long text (`PARALLEL_MIN_CHARS` or more) is cut where the ids cannot change and
        its parts encoded on `num_threads` native threads (default: ``TOKENFORGE_NUM_THREADS``,
        else every usable core; 1 turns it off): the ids are those of one thread.

        >>> import tokenforge
        >>> tokenforge.Encoding("bytes", pat_str=patterns.GPT2, mergeable_ranks={bytes([b]): b for b in range(256)},
        ...                     special_tokens={}).encode_ordinary("hi")
        [104, 105]
        """
        if self._regex is not None:
            return self._encode_by_regex(_clean(text), _NO_SPECIALS)
        cuts, threads = self._parallel_cuts(text, num_threads)
        if cuts:  # the parts of a long text, read in place from the str (no part strs)
            return self._core.encode_parts(text, cuts, None, threads)
        return _repairing(self._core.encode_ordinary, text)

    def encode(
        self,
        text: str,
        *,
        allowed_special: Literal["all"] | AbstractSet[str] = set(),  # noqa: B006
        disallowed_special: Literal["all"] | Collection[str] = "all",
        num_threads: int | None = None,
    ) -> list[int]:
        """Encodes text; special tokens are recognised only when allowed.

        A long text runs on `num_threads` native threads, as in `encode_ordinary`.

        Text that spells a disallowed special token raises, as in tiktoken: by default
        every special token is disallowed.  Pass ``disallowed_special=()`` to encode such
        text as ordinary text, or ``allowed_special="all"`` to emit the special ids.

        Raises:
            ValueError: the text contains a disallowed special token.

        >>> enc = Encoding("bytes", pat_str=patterns.GPT2, special_tokens={"<|eot|>": 256},
        ...                mergeable_ranks={bytes([b]): b for b in range(256)})
        >>> enc.encode("hi<|eot|>", allowed_special="all")
        [104, 105, 256]
        >>> enc.encode("hi<|eot|>", disallowed_special=())
        [104, 105, 60, 124, 101, 111, 116, 124, 62]
        """
        allowed = self._allowed(allowed_special, disallowed_special, text)
        cuts, threads = self._parallel_cuts(text, num_threads, allowed_special)
        if cuts:
            return self._core.encode_parts(text, cuts, allowed, threads)
        return self._encode_checked(text, allowed)

    def encode_with_unstable(
        self,
        text: str,
        *,
        allowed_special: Literal["all"] | AbstractSet[str] = set(),  # noqa: B006
        disallowed_special: Literal["all"] | Collection[str] = "all",
    ) -> tuple[list[int], list[list[int]]]:
        """The ids of text but its last, unstable ones, and the token sequences that may
        follow in their place when more text is appended (as tiktoken's; see
        `tokenforge.unstable`).  The completions come in the order they were found, each once
        (tiktoken's in hash order).

        Raises:
            ValueError: the text contains a disallowed special token.
        """
        from tokenforge import unstable

        if allowed_special == "all":
            allowed_special = self.special_tokens_set
        allowed = self._allowed(allowed_special, disallowed_special, text)
        ids = frozenset(self._special_tokens[t] for t in allowed_special if t in self._special_tokens)
        return unstable.encode_with_unstable(self, _clean(text), allowed, ids)

    def _encode_bytes(self, text: bytes) -> list[int]:
        """The ids of bytes that may not be UTF-8, as tiktoken's (see `tokenforge.unstable`)."""
        from tokenforge import unstable

        return unstable.encode_bytes(self, bytes(text))

    def _encode_only_native_bpe(self, text: str) -> list[int]:
        """Splits text with the pattern's regex (not the native scanner) and merges each
        piece: tiktoken's check of its split, kept for code that calls it."""
        import regex

        pieces = (self._regex or regex.compile(self._pat_str)).finditer(text)
        return self._core.encode_pieces([m.group().encode("utf-8") for m in pieces])

    def _encode_checked(self, text: str, allowed: "_native.SpecialSet") -> list[int]:
        """encode() once disallowed specials have been looked for."""
        if self._regex is not None:
            return self._encode_by_regex(_clean(text), allowed)
        return _repairing(self._core.encode, text, allowed)

    def count_tokens(
        self,
        text: str,
        *,
        allowed_special: Literal["all"] | AbstractSet[str] = set(),  # noqa: B006
        disallowed_special: Literal["all"] | Collection[str] = (),
        num_threads: int | None = None,
    ) -> int:
        """The number of tokens `encode` would return, without building the list.

        A long text runs on `num_threads` native threads, as in `encode_ordinary`.

        Unlike `encode`, no special token is disallowed by default: special-token text is
        counted as ordinary text unless allowed.

        >>> enc = Encoding("bytes", pat_str=patterns.GPT2, special_tokens={"<|eot|>": 256},
        ...                mergeable_ranks={bytes([b]): b for b in range(256)})
        >>> enc.count_tokens("hello"), enc.count_tokens("<|eot|>", allowed_special="all")
        (5, 1)
        """
        allowed = self._allowed(allowed_special, disallowed_special, text)
        if self._regex is not None:
            return len(self._encode_by_regex(_clean(text), allowed))
        cuts, threads = self._parallel_cuts(text, num_threads, allowed_special)
        if cuts:
            return self._core.count_parts(text, cuts, allowed, threads)
        return _repairing(self._core.count, text, allowed)

    def encode_to_numpy(
        self,
        text: str,
        *,
        allowed_special: Literal["all"] | AbstractSet[str] = set(),  # noqa: B006
        disallowed_special: Literal["all"] | Collection[str] = "all",
        num_threads: int | None = None,
    ) -> "np.ndarray":
        """Like `encode`, but returns a uint32 numpy array without an intermediate list.

        A long text runs on `num_threads` native threads, as in `encode_ordinary`.
        """
        if self._regex is not None:
            import numpy as np

            allowed = self._allowed(allowed_special, disallowed_special, text)
            return np.array(self._encode_by_regex(_clean(text), allowed), dtype=np.uint32)
        # The native side looks for disallowed specials in the UTF-8 it makes as it encodes.
        allowed, disallowed = self._special_sets(allowed_special, disallowed_special)
        cuts, threads = self._parallel_cuts(text, num_threads, allowed_special)
        if cuts:  # the parts of a long text, read in place from the str (no part strs)
            result = self._core.encode_to_numpy(text, allowed, disallowed, cuts=cuts, threads=threads)
        else:
            result = _repairing(self._core.encode_to_numpy, text, allowed, disallowed)
        if isinstance(result, tuple):
            _raise_disallowed_special_token(result[1].decode("utf-8"))
        return result

    def _parallel_cuts(self, text: str, num_threads: int | None, allowed_special=frozenset()) -> tuple[list[int], int]:
        """(cuts, threads) to encode a long text in parts on native threads: no cuts to encode
        it on this thread (short text, one thread, a pattern without known cuts, no cut found).
        Many parts per thread (of at least 32 Ki characters), so that the last ones balance
        the threads' work: what is left when one thread runs out of parts is a small one."""
        if len(text) < PARALLEL_MIN_CHARS or self._regex is not None:
            return [], 1
        threads = resolve_threads(num_threads)
        if threads < 2:
            return [], 1
        wanted = min(32 * threads, len(text) // (1 << 15))
        specials = self.special_tokens_set if allowed_special == "all" else allowed_special
        return _cuts.cut_points(text, wanted, self._scanner != int(patterns.Scanner.GPT2), specials), threads

    def _parallel_parts(self, text: str, num_threads: int | None, allowed_special=frozenset()) -> tuple[list[str], int] | None:
        """(parts, threads) to encode a long text on native threads (see `_parallel_cuts`), or
        None to encode it on this one."""
        cuts, threads = self._parallel_cuts(text, num_threads, allowed_special)
        if not cuts:
            return None
        bounds = [0, *cuts, len(text)]
        return [text[a:b] for a, b in zip(bounds, bounds[1:])], threads

    def encode_ordinary_batch(self, text: list[str], *, num_threads: int = _DEFAULT_THREADS) -> list[list[int]]:
        """Encodes many texts on native threads (the GIL is released), ignoring specials."""
        if self._regex is not None:
            return [self.encode_ordinary(t) for t in text]
        # The native batch repairs lone surrogates itself, as tiktoken does (see str_utf8.cc).
        return self._core.encode_ordinary_batch(list(text), num_threads)

    def encode_batch(
        self,
        text: list[str],
        *,
        num_threads: int = _DEFAULT_THREADS,
        allowed_special: Literal["all"] | AbstractSet[str] = set(),  # noqa: B006
        disallowed_special: Literal["all"] | Collection[str] = "all",
    ) -> list[list[int]]:
        """Encodes many texts on native threads; special tokens as in `encode`."""
        texts = list(text)
        if self._regex is not None:
            allowed = None
            for t in texts:
                allowed = self._allowed(allowed_special, disallowed_special, t)
            return [self._encode_by_regex(_clean(t), allowed) for t in texts]
        # The native side looks for disallowed specials in each text as it encodes it
        # (in parallel, on the UTF-8 it makes anyway) and reports the first such text.
        allowed, disallowed = self._special_sets(allowed_special, disallowed_special)
        result = self._core.encode_batch(texts, allowed, disallowed, num_threads)
        if isinstance(result, tuple):
            _raise_disallowed_special_token(result[1].decode("utf-8"))
        return result

    def encode_single_token(self, text_or_bytes: str | bytes) -> int:
        """The id of text that is exactly one token (special tokens included).

        Raises:
            KeyError: it is not a single token.
        """
        if isinstance(text_or_bytes, str):
            if text_or_bytes in self._special_tokens:
                return self._special_tokens[text_or_bytes]
            text_or_bytes = text_or_bytes.encode("utf-8")
        token = self._core.find_token(text_or_bytes)
        if token is None:
            try:
                return self._special_tokens[text_or_bytes.decode("utf-8")]
            except (UnicodeDecodeError, KeyError):
                raise KeyError(text_or_bytes) from None
        return token

    def _encode_single_piece(self, text_or_bytes: str | bytes) -> list[int]:
        """Merges one piece without splitting it (no special tokens)."""
        if isinstance(text_or_bytes, str):
            text_or_bytes = text_or_bytes.encode("utf-8")
        return self._core.encode_pieces([text_or_bytes])

    # ====================
    # Decoding
    # ====================

    def decode_bytes(self, tokens: Sequence[int]) -> bytes:
        """The bytes of a token sequence.

        Raises:
            KeyError: an id is not in the vocabulary (the message names it).
        """
        return self._core.decode_bytes(tokens)

    def decode(self, tokens: Sequence[int], errors: str = "replace") -> str:
        """The text of a token sequence; invalid UTF-8 is handled by `errors`.

        >>> enc = Encoding("bytes", pat_str=patterns.GPT2, special_tokens={"<|eot|>": 256},
        ...                mergeable_ranks={bytes([b]): b for b in range(256)})
        >>> enc.decode([104, 105]), enc.decode([0xC3])
        ('hi', '\ufffd')
        """
        return self._core.decode_bytes(tokens).decode("utf-8", errors=errors)

    def decode_single_token_bytes(self, token: int) -> bytes:
        """The bytes of one token (special tokens included).

        Raises:
            KeyError: the id is not in the vocabulary.
        """
        b = self._core.token_bytes(token) if isinstance(token, int) and 0 <= token < 2**32 - 1 else None
        if b is None:
            raise KeyError(str(token))
        return b

    def decode_tokens_bytes(self, tokens: Sequence[int]) -> list[bytes]:
        """The bytes of each token.

        Raises:
            KeyError: an id is not in the vocabulary (the message names it).
        """
        return self._core.token_bytes_list(tokens)

    def decode_with_offsets(self, tokens: Sequence[int]) -> tuple[str, list[int]]:
        """The text and, per token, the index of the first character holding its bytes.

        Raises:
            UnicodeDecodeError: the tokens do not decode to valid UTF-8.

        >>> enc = Encoding("bytes", pat_str=patterns.GPT2, special_tokens={"<|eot|>": 256},
        ...                mergeable_ranks={bytes([b]): b for b in range(256)})
        >>> enc.decode_with_offsets([104, 0xC3, 0xA9, 105])
        ('héi', [0, 1, 1, 2])
        """
        # A token that starts with a continuation byte belongs to the previous character.
        raw, offsets = self._core.decode_offsets(tokens)
        return raw.decode("utf-8", errors="strict"), offsets

    def decode_batch(self, batch: Sequence[Sequence[int]], *, errors: str = "replace", num_threads: int = 8) -> list[str]:
        """Decodes each token sequence."""
        return [self.decode(tokens, errors=errors) for tokens in batch]

    def decode_bytes_batch(self, batch: Sequence[Sequence[int]], *, num_threads: int = 8) -> list[bytes]:
        """Decodes each token sequence to bytes."""
        return [self.decode_bytes(tokens) for tokens in batch]

    # ====================
    # Vocabulary
    # ====================

    def token_byte_values(self) -> list[bytes]:
        """The bytes of every mergeable token, sorted bytewise (as tiktoken returns them)."""
        return list(self._sorted_token_bytes)

    @functools.cached_property
    def _token_byte_lengths(self) -> list[int]:
        """The byte length of each ordinary token, indexed by id."""
        lengths = [0] * (max(self._mergeable_ranks.values(), default=0) + 1)
        for token, rank in self._mergeable_ranks.items():
            lengths[rank] = len(token)
        return lengths

    @functools.cached_property
    def _sorted_token_bytes(self) -> tuple[bytes, ...]:
        # Sorted once, as tiktoken sorts them once when it loads a vocabulary.
        return tuple(self._core.token_byte_values())

    @functools.cached_property
    def _sorted_token_ids(self) -> tuple[int, ...]:
        """The ids of `_sorted_token_bytes`, in its order."""
        return tuple(self._mergeable_ranks[b] for b in self._sorted_token_bytes)

    @property
    def eot_token(self) -> int:
        """The id of ``<|endoftext|>``."""
        return self._special_tokens["<|endoftext|>"]

    @functools.cached_property
    def special_tokens_set(self) -> set[str]:
        """The special token strings."""
        return set(self._special_tokens)

    def is_special_token(self, token: int) -> bool:
        """Whether `token` is a special token's id."""
        return token in self._special_token_values

    @property
    def n_vocab(self) -> int:
        """One more than the largest id."""
        return self.max_token_value + 1

    # ====================
    # Private
    # ====================

    def _allowed(self, allowed_special, disallowed_special, text: str) -> "_native.SpecialSet":
        allowed, disallowed = self._special_sets(allowed_special, disallowed_special)
        if disallowed is not None:
            found = _repairing(disallowed.find, text)
            if found is not None:
                _raise_disallowed_special_token(found[1].decode("utf-8"))
        return allowed

    def _special_sets(self, allowed_special, disallowed_special) -> tuple["_native.SpecialSet", "_native.SpecialSet | None"]:
        """(specials to encode as such, specials that raise if found, or None)."""
        if allowed_special == "all":
            allowed_special = self.special_tokens_set
        if disallowed_special == "all":
            disallowed_special = self.special_tokens_set - set(allowed_special)
        disallowed = self._disallowed_set(frozenset(disallowed_special)) if disallowed_special else None
        return self._special_set(frozenset(allowed_special)), disallowed

    def _special_set(self, tokens: frozenset[str]) -> "_native.SpecialSet":
        found = self._sets.get((False, tokens))
        if found is None:
            found = _native.SpecialSet([(t, self._special_tokens[t]) for t in tokens if t in self._special_tokens])
            self._remember((False, tokens), found)
        return found

    def _disallowed_set(self, tokens: frozenset[str]) -> "_native.SpecialSet":
        # As in tiktoken, any string passed as disallowed raises when the text holds it,
        # special token or not (only its presence matters, so the id is a placeholder).
        found = self._sets.get((True, tokens))
        if found is None:
            if "" in tokens:
                _raise_disallowed_special_token("")
            found = _native.SpecialSet([(t, self._special_tokens.get(t, 0)) for t in tokens])
            self._remember((True, tokens), found)
        return found

    def _remember(self, key: tuple[bool, frozenset[str]], value: "_native.SpecialSet") -> None:
        if len(self._sets) >= _MAX_SETS:  # a bound for callers that pass a new set each call
            self._sets = {}
        self._sets[key] = value

    def _encode_by_regex(self, text: str, allowed: "_native.SpecialSet") -> list[int]:
        """The slow path for patterns without a native scanner."""
        ids: list[int] = []
        while text:
            found = allowed.find(text)
            if found is None:
                segment, special, text = text, None, ""
            else:
                raw = text.encode("utf-8")
                cut = raw.index(found[1])
                segment = raw[:cut].decode("utf-8")
                special = found[0]
                text = raw[cut + len(found[1]):].decode("utf-8")
            # Whole matches (finditer): findall gives a pattern's groups instead, when it has any.
            pieces = [m.group().encode("utf-8") for m in self._regex.finditer(segment)]
            ids.extend(self._core.encode_pieces(pieces))
            if special is not None:
                ids.append(special)
        return ids

    def __getstate__(self) -> object:
        # As tiktoken: an encoding the registry made pickles as its name (a process that
        # unpickles it loads it from its own rank files), any other as its tables.
        from tokenforge import registry

        if registry._registered(self.name) is self:
            return self.name
        return {
            "name": self.name,
            "pat_str": self._pat_str,
            "mergeable_ranks": self._mergeable_ranks,
            "special_tokens": self._special_tokens,
        }

    def __setstate__(self, value: dict | str) -> None:
        if isinstance(value, str):
            from tokenforge import registry

            self.__dict__ = registry.get_encoding(value).__dict__
            return
        self.__init__(**value)


_NO_SPECIALS = _native.SpecialSet([])
_MAX_SETS = 64  # special-token sets kept per encoding


def _has_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
        return False
    except UnicodeEncodeError:
        return True


def _repairing(fn, text: str, *args):
    """fn(text, *args); if text has lone surrogates (the native side cannot take them as
    UTF-8), again with them repaired as tiktoken does."""
    try:
        return fn(text, *args)
    except UnicodeEncodeError:
        return fn(_clean(text), *args)


def _clean(text: str) -> str:
    """Replaces lone surrogates with U+FFFD and joins surrogate pairs, as tiktoken does."""
    if not _has_surrogate(text):
        return text
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _raise_disallowed_special_token(token: str) -> NoReturn:
    raise ValueError(
        f"Encountered text corresponding to disallowed special token {token!r}.\n"
        "If you want this text to be encoded as a special token, "
        f"pass it to `allowed_special`, e.g. `allowed_special={{{token!r}, ...}}`.\n"
        "If you want this text to be encoded as normal text, disable the check for this token "
        f"by passing `disallowed_special=(enc.special_tokens_set - {{{token!r}}})`.\n"
        "To disable this check for all special tokens, pass `disallowed_special=()`.\n"
    )
