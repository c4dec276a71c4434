"""Split and Replace regexes read as `tokenizers` reads them (Oniguruma, Ruby syntax), against
`tokenizers` itself: `^` and `$` match at every line break (`^` not after a newline that ends
the text), `(?m)` lets a dot match a newline, `\\Z` may stop before a final newline and `\\z`
may not; Replace puts its content at empty matches too. Pieces, normalized text and the
offsets of a one-token-per-character tokenizer (the alignment) are compared."""

from __future__ import annotations

import pytest

from tokenforge import normalizers, pre_tokenizers

tokenizers = pytest.importorskip("tokenizers")

PATTERNS = [r"^a", r"a$", r"(?m).", r"(?m:.)b", r"(?im)A.", r"\Aa", r"a\z", r"a\Z", r"[^\n]+$", r"^", r"$", r"\Z", r"\z",
            r"\b", r"(?=a)", r"^\s+|\s+$", r" ?\p{L}+|\s+(?!\S)|\s+"]
TEXTS = ["a\na", "ab\n\nb a", "a\n", "\n\na", "a", "", " a \n b \n", "\n", "A\nab\r\nb"]


def _per_character(normalizer):
    from tokenforge import Tokenizer

    t = tokenizers.Tokenizer(tokenizers.models.WordLevel({"[UNK]": 0}, unk_token="[UNK]"))
    t.normalizer = normalizer
    t.pre_tokenizer = tokenizers.pre_tokenizers.Split(tokenizers.Regex("(?m)."), "isolated")
    return t, Tokenizer.from_str(t.to_str())


@pytest.mark.parametrize("pattern", PATTERNS)
def test_split_and_replace(pattern):
    for behavior in ("isolated", "removed", "contiguous"):
        ref = tokenizers.pre_tokenizers.Split(tokenizers.Regex(pattern), behavior)
        ours = pre_tokenizers.Split({"Regex": pattern}, behavior.title())
        for text in TEXTS:
            assert ours.pre_tokenize_str(text) == ref.pre_tokenize_str(text), (behavior, text)
    for content in ("#", "", "\u2581\u2581"):
        ref_t, ours_t = _per_character(tokenizers.normalizers.Replace(tokenizers.Regex(pattern), content))
        ours = normalizers.Replace({"Regex": pattern}, content)
        for text in TEXTS:
            assert ours.normalize_str(text) == ref_t.normalizer.normalize_str(text), (content, text)
            assert ours_t.encode(text).offsets == ref_t.encode(text).offsets, (content, text)
