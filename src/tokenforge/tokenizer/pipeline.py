"""The readable encode pipeline: added tokens -> normalizer -> pre-tokenizer -> model.

This is the reference the native path is checked against, and the path every file can take.
One call encodes one sequence into an :class:`Encoding` whose offsets are characters of the
input and whose word ids number the pre-tokenized pieces (added tokens count as pieces).

Example:
    >>> from tokenforge.models import WordLevel
    >>> from tokenforge.pre_tokenizers import WhitespaceSplit
    >>> from tokenforge.tokenizer.added_vocabulary import AddedVocabulary
    >>> e = encode_sequence("a b", None, WhitespaceSplit(), WordLevel({"a": 0, "b": 1}), AddedVocabulary())
    >>> e.ids, e.offsets, e.word_ids
    ([0, 1], [(0, 1), (2, 3)], [0, 1])
"""

from __future__ import annotations

from tokenforge.normalizers.normalized_string import NormalizedString
from tokenforge.tokenizer.added_vocabulary import AddedVocabulary
from tokenforge.tokenizer.encoding import Encoding


def check_surrogates(text: str, what: str = "text") -> None:
    """Raises ValueError when `text` holds a lone surrogate (`what` names it in the message)."""
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as e:
            raise ValueError(f"{what} holds a lone surrogate at character {e.start}") from None


def _cut(ns: NormalizedString, added: AddedVocabulary, normalized: bool) -> list[tuple[NormalizedString, int | None]]:
    out = []
    for tid, (a, b) in added.find(ns.text, normalized):
        if b > a:
            out.append((ns.slice(a, b), tid))
    return out


def split_added_and_normalize(text: str, normalizer, added: AddedVocabulary) -> list[tuple[NormalizedString, int | None]]:
    """Pieces of `text`: added tokens (with their id) and normalized stretches between them."""
    pieces: list[tuple[NormalizedString, int | None]] = []
    for ns, tid in _cut(NormalizedString.from_text(text), added, False):
        if tid is not None:
            pieces.append((ns, tid))
            continue
        if normalizer is not None:
            normalizer.normalize(ns)
        pieces.extend(_cut(ns, added, True))
    return pieces


def encode_sequence(text: str, normalizer, pre_tokenizer, model, added: AddedVocabulary, type_id: int = 0,
                    word_index: int | None = None) -> Encoding:
    """One sequence through the pipeline (module docstring)."""
    ids: list[int] = []
    tokens: list[str] = []
    offsets: list[tuple[int, int]] = []
    words: list[int | None] = []
    w = 0
    for ns, tid in split_added_and_normalize(text, normalizer, added):
        if tid is not None:
            ids.append(tid)
            tokens.append(ns.text)
            offsets.append((ns.align[0][0], ns.align[-1][1]) if ns.align else (ns.start, ns.end))
            words.append(w if word_index is None else word_index)
            w += 1
            continue
        for piece in (pre_tokenizer.split(ns) if pre_tokenizer is not None else [ns]):
            if not piece.text:
                continue
            for i, tok, (a, b) in model.word_tokens(piece.text):
                ids.append(i)
                tokens.append(tok)
                offsets.append(piece.original_span(a, b))
                words.append(w if word_index is None else word_index)
            w += 1
    n = len(ids)
    return Encoding(ids, tokens, offsets, words, [type_id] * n)
