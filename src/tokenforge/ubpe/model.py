"""What both UBPE models share: the constructor's checks, fitting, decoding and the JSON.

`_UBPEModel` holds the alphabet (symbol -> id), optional known words, break and stop tokens
and a split regex (see `split.py`), and after fitting the vocabulary (`mapper`: new id -> what
it stands for; `weights`: new id -> idf).  The subclasses say what a new id stands for and
how to encode (`classic.py`, `universal.py`).  Symbols map to ids once, here in Python; the
per-symbol loops run in the engine of `_backend.py`.
"""

from __future__ import annotations

import os
from collections.abc import Hashable, Iterable, Sequence
from typing import Any, Callable

from tokenforge._files import write_atomic
from tokenforge.ubpe import _backend
from tokenforge.ubpe.split import Splitter
from tokenforge.ubpe.vocab import dumps_model, loads_fields, rearrange


def _alphabet_dict(alphabet: Any) -> dict[Hashable, int]:
    if isinstance(alphabet, (str, list, tuple, set, frozenset)):
        symbols = sorted(alphabet) if isinstance(alphabet, (set, frozenset)) else list(alphabet)
        table: dict[Hashable, int] = {}
        for i, s in enumerate(symbols):
            try:
                if s in table:
                    raise ValueError(f"alphabet lists the symbol {s!r} twice")
            except TypeError:
                raise ValueError(f"alphabet symbol {s!r} is not hashable") from None
            table[s] = i
    elif isinstance(alphabet, dict):
        table = dict(alphabet)
        if sorted(table.values()) != list(range(len(table))):
            raise ValueError("alphabet ids must be 0..len(alphabet)-1, each once")
    else:
        raise ValueError(f"alphabet must be a dict, list, tuple or str, not {type(alphabet).__name__}")
    if not table:
        raise ValueError("alphabet is empty")
    types = {type(s) for s in table}
    if len(types) > 1:
        raise ValueError("alphabet mixes symbol types: " + ", ".join(sorted(t.__name__ for t in types)))
    return table


def _known_words_dict(known: Any, first_id: int) -> dict[Any, int] | None:
    if known is None or len(known) == 0:
        return None
    if isinstance(known, dict):
        words = dict(known)
        if sorted(words.values()) != list(range(first_id, first_id + len(words))):
            raise ValueError(f"known word ids must be {first_id}..{first_id + len(words) - 1}, each once")
    elif isinstance(known, (list, tuple)):
        words = {}
        for w in known:
            key = w if isinstance(w, str) else tuple(w)
            words.setdefault(key, first_id + len(words))
    else:
        raise ValueError(f"known_words must be a dict or a list, not {type(known).__name__}")
    for w in words:
        if not isinstance(w, (str, tuple)) or len(w) == 0:
            raise ValueError(f"known word {w!r} must be a non-empty str or tuple of symbols")
    return words


class _UBPEModel:
    """The shared part of `UBPEClassic` and `UBPE` (see the module docstring)."""

    _classic: bool

    def __init__(self, alphabet: Any, *, n_tokens: int = 1024, known_words: Any = None,
                 break_tokens: Iterable[Hashable] | None = None,
                 stop_tokens: Iterable[Hashable] | None = None,
                 regex_str: str | None = None, lossy_regex: bool = False):
        if isinstance(n_tokens, bool) or not isinstance(n_tokens, int) or n_tokens < 1:
            raise ValueError(f"n_tokens must be a positive int, not {n_tokens!r}")
        self.alphabet = _alphabet_dict(alphabet)
        self.inverse_alphabet = {i: s for s, i in self.alphabet.items()}
        self.n_tokens = n_tokens
        self.known_words = _known_words_dict(known_words, len(self.alphabet))
        self.inverse_known_words = (None if self.known_words is None
                                    else {i: w for w, i in self.known_words.items()})
        self.break_tokens = self._symbol_set(break_tokens)
        self.stop_tokens = self._symbol_set(stop_tokens)
        self.regex_str = regex_str if isinstance(regex_str, str) and regex_str else None
        self.lossy_regex = lossy_regex
        self._splitter = Splitter(self.alphabet, known_words=self.known_words,
                                  break_tokens=self.break_tokens, stop_tokens=self.stop_tokens,
                                  regex_str=self.regex_str, lossy_regex=lossy_regex)
        self.mapper: dict[int, tuple[int, ...]] = {}  # new id -> pair (classic) or symbol ids
        self.weights: dict[int, float] = {}  # new id -> idf
        self._fitted = False

    def _symbol_set(self, tokens: Iterable[Hashable] | None) -> set[Hashable] | None:
        if tokens is None:
            return None
        kept = {t for t in tokens if t in self.alphabet}  # ubpe ignores symbols outside the alphabet
        return kept or None

    @property
    def first_id(self) -> int:
        """The first id of a fitted token: the alphabet's size plus the known words'."""
        return len(self.alphabet) + (len(self.known_words) if self.known_words else 0)

    def fit(self, corpus: Sequence[Any], *, n_candidates: int = 50,
            rearrange_tokens: bool = True, quiet: bool = True) -> None:
        """Fits the vocabulary on `corpus`, a list of documents (see the module docstring).

        Args:
            corpus: documents: str, bytes, or lists/tuples of alphabet symbols.
            n_candidates: how many of the most frequent pairs each step considers.
            rearrange_tokens: trim to `n_tokens` and renumber by weight, highest first.
            quiet: accepted for `ubpe` compatibility; nothing is logged.

        Raises:
            ValueError: fitted already, `n_candidates < 1`, or a symbol outside the alphabet.

        Example:
            >>> from tokenforge.ubpe import UBPE
            >>> m = UBPE("ab", n_tokens=3)
            >>> m.fit(["abab", "ab"])
            >>> m.mapper, m.n_tokens
            ({2: (0, 1, 0, 1)}, 3)
        """
        if self._fitted:
            raise ValueError("this model is fitted already: a second fit is not supported")
        if isinstance(n_candidates, bool) or not isinstance(n_candidates, int) or n_candidates < 1:
            raise ValueError(f"n_candidates must be an int >= 1, not {n_candidates!r}")
        if isinstance(corpus, (str, bytes)) or not isinstance(corpus, Sequence):
            raise ValueError("corpus must be a list of documents")
        docs = []
        for k, doc in enumerate(corpus):
            try:
                docs.append(self._splitter(self._check_doc(doc), keep_separators=False))
            except ValueError as e:
                raise ValueError(f"document {k}: {e}") from None
        merges, weights = _backend.fit_merges(docs, self.first_id, self.n_tokens, n_candidates)
        mapper = self._strings_of(merges)
        new_ids = range(self.first_id, self.first_id + len(merges))
        self.mapper, self.weights = dict(zip(new_ids, mapper)), dict(zip(new_ids, weights))
        if rearrange_tokens:
            self.mapper, self.weights = rearrange(self.mapper, self.weights, first_id=self.first_id,
                                                  n_tokens=self.n_tokens, classic=self._classic)
        self.n_tokens = self.first_id + len(self.weights)
        self._fitted = True
        self._build_encoder()

    def _strings_of(self, merges: list[tuple[int, int]]) -> list[tuple[int, ...]]:
        raise NotImplementedError

    def _build_encoder(self) -> None:
        raise NotImplementedError

    def _dense_weights(self) -> list[float]:
        dense = [0.0] * (max(self.weights, default=0) + 1)
        for t, w in self.weights.items():
            dense[t] = w
        return dense

    @staticmethod
    def _check_doc(doc: Any) -> Any:
        if not isinstance(doc, (str, bytes, list, tuple)):
            raise ValueError(f"a document must be a str, bytes, list or tuple, not {type(doc).__name__}")
        return doc

    def _parts(self, doc: Any) -> list[list[int]]:
        if not self._fitted:
            raise ValueError("the model is not fitted: call fit() or loads() first")
        return self._splitter(self._check_doc(doc), keep_separators=True)

    def _expand(self, token: int) -> list[int]:
        raise NotImplementedError

    def decode(self, ids: Sequence[int]) -> Any:
        """The document `ids` encode: a `str` for a character alphabet, else a list of symbols.

        Raises:
            ValueError: an id that is negative or not in the vocabulary.

        Example:
            >>> from tokenforge.ubpe import UBPEClassic
            >>> m = UBPEClassic("ab", n_tokens=4)
            >>> m.fit(["abab", "ab"], rearrange_tokens=False)
            >>> m.decode([3, 0])
            'ababa'
        """
        if not self._fitted:
            raise ValueError("the model is not fitted: call fit() or loads() first")
        out: list[Any] = []
        known = self.inverse_known_words or {}
        for t in ids:
            if isinstance(t, bool) or not isinstance(t, int):
                raise ValueError(f"token ids must be ints, not {type(t).__name__}")
            if t in self.mapper:
                out.extend(self.inverse_alphabet[s] for s in self._expand(t))
            elif t in self.inverse_alphabet:
                out.append(self.inverse_alphabet[t])
            elif t in known:
                out.extend(known[t])
            else:
                raise ValueError(f"unknown token id {t}" + (" (negative)" if t < 0 else ""))
        if not out:
            return "" if isinstance(next(iter(self.alphabet)), str) else []
        return "".join(out) if isinstance(out[0], str) else out

    # --- ubpe's JSON ---------------------------------------------------------------------

    def dumps(self) -> str:
        """The model as `ubpe`'s JSON (which `ubpe`'s `loads` reads).

        Raises:
            ValueError: symbols that cannot be JSON keys.

        Example:
            >>> from tokenforge.ubpe import UBPE
            >>> m = UBPE("ab", n_tokens=3)
            >>> m.fit(["abab", "ab"])
            >>> m.dumps()
            '{"n_tokens": 3, "alphabet": {"a": 0, "b": 1}, "mapper": {"2": [0, 1, 0, 1]}, "weights": {"2": 0.4054651081081644}}'
        """
        return dumps_model({
            "n_tokens": self.n_tokens,
            "alphabet": self.alphabet,
            "known_words": self.inverse_known_words,
            "break_tokens": list(self.break_tokens) if self.break_tokens else None,
            "regex_str": self.regex_str,
            "stop_tokens": list(self.stop_tokens) if self.stop_tokens else None,
            "mapper": self.mapper,
            "weights": self.weights,
        })

    @classmethod
    def loads(cls, dump: str | bytes, token_type: Callable[[Any], Any] = str, *,
              lossy_regex: bool = False) -> Any:
        """A model from `ubpe`'s JSON.

        Args:
            dump: the JSON text.
            token_type: converts the JSON's symbol keys (strings) to symbols: `str` for
                characters, `int` for bytes or ints (`ubpe`'s default is `int`).
            lossy_regex: split at `regex_str` as `ubpe` does (see `split.py`).

        Raises:
            ValueError: malformed JSON, a missing `mapper`, or an inconsistent vocabulary.

        Example:
            >>> from tokenforge.ubpe import UBPE
            >>> m = UBPE.loads('{"n_tokens": 3, "alphabet": {"a": 0, "b": 1}, '
            ...                '"mapper": {"2": [0, 1, 0, 1]}, "weights": {"2": 0.4}}')
            >>> m.encode("abab")
            [([2], 0.4)]
        """
        f = loads_fields(dump, token_type)
        model = cls(f["alphabet"], n_tokens=max(f["n_tokens"], 1), known_words=f["known_words"],
                    break_tokens=f["break_tokens"], stop_tokens=f["stop_tokens"],
                    regex_str=f["regex_str"], lossy_regex=lossy_regex)
        model.n_tokens = f["n_tokens"]
        model.mapper, model.weights = f["mapper"], f["weights"]
        model._check_vocab()
        model._fitted = True
        model._build_encoder()
        return model

    def _check_vocab(self) -> None:
        for t, seq in self.mapper.items():
            if t < self.first_id:
                raise ValueError(f"not a UBPE model: mapper id {t} is below the first new id {self.first_id}")
            if len(seq) < 2:
                raise ValueError(f"not a UBPE model: mapper id {t} stands for fewer than two ids")

    def save(self, path: str | os.PathLike[str]) -> None:
        """Writes `dumps()` to `path` atomically (a temporary file, then a rename).

        Example:
            >>> import os, tempfile
            >>> from tokenforge.ubpe import UBPE
            >>> m = UBPE("ab", n_tokens=3)
            >>> m.fit(["abab", "ab"])
            >>> path = os.path.join(tempfile.mkdtemp(), "ubpe.json")
            >>> m.save(path)
            >>> UBPE.load(path).mapper == m.mapper
            True
        """
        write_atomic(path, self.dumps().encode("utf-8"))

    @classmethod
    def load(cls, path: str | os.PathLike[str], token_type: Callable[[Any], Any] = str, *,
             lossy_regex: bool = False) -> Any:
        """A model from a file `save` (or `ubpe`'s `dumps`) wrote.

        Raises:
            OSError: the file cannot be read.
            ValueError: it is not a UBPE model.
        """
        with open(path, "rb") as f:
            return cls.loads(f.read(), token_type, lossy_regex=lossy_regex)
