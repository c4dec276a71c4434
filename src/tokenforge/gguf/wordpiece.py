"""llama.cpp's WordPiece tokenizer (``tokenizer.ggml.model = "bert"``, llama.cpp's "WPM").

A GGUF stores a BERT vocabulary in llama.cpp's "phantom space" form: its converter writes
a word-initial token ``the`` as ``▁the``, a continuation ``##ing`` as ``ing`` and keeps
bracketed tokens (``[CLS]``) as they are.  llama.cpp then tokenizes (``llm_tokenizer_wpm``):

1. each code point becomes the *first* code point of its NFD decomposition (``é`` -> ``e``,
   a Hangul syllable -> its leading consonant), then its lowercase (first code point of
   Python's ``str.lower``), classified by the code point before lowercasing;
2. whitespace (``\\s`` of the `regex` module) ends a word; U+0000, U+FFFD and other ``\\p{C}``
   code points are dropped; punctuation (``\\p{P}``), ASCII symbols (``\\p{S}`` below U+007F)
   and CJK ideographs (BERT's ranges, as llama.cpp spells them) are words of their own;
3. each word, with ``▁`` in front, is cut greedily into the longest vocabulary tokens, left
   to right; a word with a part no token matches becomes the unknown token, whole.

Step 3 is :class:`tokenforge.models.WordPiece` with an empty continuation prefix over the
phantom-space vocabulary (the ``▁`` plays the part of ``##``'s absence); `encode` runs the
same match in C++ (``_native.WordPieceModel``, one call per text), the Python model stays for
offsets and as its oracle.  Steps 1-2 are a ``str.translate`` table filled lazily, one entry
per distinct code point seen.

Where this differs from Hugging Face's BERT pipeline (BertNormalizer with lowercasing and
accent stripping, BertPreTokenizer, WordPiece) on the same vocabulary: combining marks
already in the text are kept (HF removes every ``Mn``; here the word then usually becomes
``[UNK]``), a precomposed character keeps only the first code point of its decomposition
(HF keeps every non-mark one: a Hangul syllable's vowel and final consonant), lowercasing
is one code point to one, and no word is too long (HF makes a word over 100 characters
``[UNK]``).  These are llama.cpp's rules, kept as they are.

Offsets (:meth:`WordPieceWPM.encode_with_offsets`) are exact: steps 1-2 map each code point
to at most one, so each character of a word comes from one character of the text.

What this module leaves out: special tokens and [CLS]/[SEP] (:mod:`.engine`).

Example:
    >>> wpm = WordPieceWPM(["[UNK]", "▁un", "aff", "able", "▁!", "▁a"], unk_id=0)
    >>> wpm.encode("Unaffable! a")
    [1, 2, 3, 4, 5]
"""

from __future__ import annotations

import sys
import unicodedata

import regex

from tokenforge.models import WordPiece

PHANTOM = "\u2581"  # llama.cpp's word-start marker in a bert GGUF vocabulary

# BERT's CJK ideograph blocks as llama.cpp lists them (is_chinese_char; the fifth range
# starts at U+2B920, as in HF's Rust code, where BERT's Python has U+2B820).
_CJK = ((0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF), (0x2A700, 0x2B73F), (0x2B740, 0x2B81F),
        (0x2B920, 0x2CEAF), (0xF900, 0xFAFF), (0x2F800, 0x2FA1F))
_SPACE = regex.compile(r"\s")
_CONTROL = regex.compile(r"\p{C}")
_PUNCT = regex.compile(r"\p{P}")
_SYMBOL = regex.compile(r"\p{S}")


def _is_cjk(cp: int) -> bool:
    return any(a <= cp <= b for a, b in _CJK)


def preprocessed(cp: int) -> str:
    """What llama.cpp's WPM preprocessing makes of one code point: ``" "`` for whitespace,
    ``""`` for dropped ones, ``" x "`` for a one-character word, else the (lowercased) character.

    >>> [preprocessed(ord(c)) for c in "É\\t,\\x00界"]
    ['e', ' ', ' , ', '', ' 界 ']
    """
    first = unicodedata.normalize("NFD", chr(cp))[0]
    n = ord(first)
    if _SPACE.match(first):
        return " "
    if n == 0 or n == 0xFFFD or _CONTROL.match(first):
        return ""
    low = first.lower()[0]
    if _PUNCT.match(first) or (n < 0x7F and _SYMBOL.match(first)) or _is_cjk(n):
        return f" {low} "
    return low


class _Table(dict):
    """A ``str.translate`` table that computes each code point's entry on first use."""

    def __missing__(self, cp: int) -> str:
        out = self[cp] = preprocessed(cp)
        return out


_TABLE = _Table()


def words_with_sources(text: str) -> list[tuple[str, list[int]]]:
    """The words of :func:`words`, each with the index in `text` of the character each of
    its characters comes from (one to one: preprocessing maps a code point to at most one).

    >>> words_with_sources("Ab, c\u200bd")
    [('ab', [0, 1]), (',', [2]), ('cd', [4, 6])]
    """
    out: list[tuple[str, list[int]]] = []
    chars: list[str] = []
    sources: list[int] = []
    for i, c in enumerate(text):
        p = _TABLE[ord(c)]
        if len(p) == 1 and p != " ":
            chars.append(p)
            sources.append(i)
            continue
        if not p:
            continue
        if chars:
            out.append(("".join(chars), sources))
            chars, sources = [], []
        if len(p) == 3:  # " x ": a word of its own
            out.append((p[1], [i]))
    if chars:
        out.append(("".join(chars), sources))
    return out


def words(text: str) -> list[str]:
    """The words llama.cpp's WPM preprocessing cuts `text` into (module docstring, 1-2).

    >>> words("Hello,World! ÀB  c\\u200bd")
    ['hello', ',', 'world', '!', 'ab', 'cd']
    """
    return [w for w in text.translate(_TABLE).split(" ") if w]


class WordPieceWPM:
    """Encodes text as llama.cpp's WPM tokenizer over a phantom-space vocabulary."""

    def __init__(self, tokens: list[str], unk_id: int | None) -> None:
        """Builds the matcher.

        Args:
            tokens: the GGUF tokens, by id (``▁word``, ``continuation``, ``[SPECIAL]``).
            unk_id: the unknown token's id (``tokenizer.ggml.unknown_token_id``).

        Raises:
            ValueError: no unknown token in the vocabulary.
        """
        if unk_id is None or not 0 <= unk_id < len(tokens):
            raise ValueError("a bert (WordPiece) vocabulary needs tokenizer.ggml.unknown_token_id")
        vocab = {t: i for i, t in enumerate(tokens)}  # a repeated text keeps its last id, as llama.cpp
        self._model = WordPiece(vocab, unk_token=tokens[unk_id], continuing_subword_prefix="",
                                max_input_chars_per_word=sys.maxsize)
        self._native = None
        try:  # the same greedy longest match, in C++ (tf::wordpiece), for encode()
            from tokenforge import _native

            self._native = _native.WordPieceModel(list(vocab.items()), unk_id, "", sys.maxsize)
        except (ImportError, AttributeError):
            pass

    def encode(self, text: str) -> list[int]:
        """The ids of `text` (no [CLS]/[SEP])."""
        if self._native is not None:
            return self._native.encode_words([PHANTOM + w for w in words(text)])
        out: list[int] = []
        tokenize = self._model.tokenize
        for word in words(text):
            out.extend(p[0] for p in tokenize(PHANTOM + word))
        return out

    def encode_with_offsets(self, text: str) -> list[tuple[int, tuple[int, int]]]:
        """(id, (start, end)) per token: the characters of `text` the token's characters come
        from, from the first to the last (an unknown word spans the whole word).

        >>> WordPieceWPM(["[UNK]", "▁un", "able", "▁!"], unk_id=0).encode_with_offsets("Unable !")
        [(1, (0, 2)), (2, (2, 6)), (3, (7, 8))]
        """
        out: list[tuple[int, tuple[int, int]]] = []
        unk = self._model.vocab.get(self._model.unk_token)
        for word, sources in words_with_sources(text):
            pieces = self._model.word_tokens(PHANTOM + word)
            if len(pieces) == 1 and pieces[0][0] == unk:
                # HF's BERT strips combining marks before it cuts words: its unknown word
                # spans the characters between the marks at its ends.
                kept = [j for j in sources if unicodedata.category(text[j]) != "Mn"] or sources
                out.append((unk, (kept[0], kept[-1] + 1)))
                continue
            for tid, _, (a, b) in pieces:
                a, b = max(a - 1, 0), b - 1  # the phantom ▁ stands for no character
                start = sources[min(a, len(sources) - 1)]
                out.append((tid, (start, sources[b - 1] + 1 if b > a else start)))
        return out
