"""Encoding's position queries (token_to_sequence/chars/word, word_to_tokens/chars,
char_to_token/word, as transformers' BatchEncoding uses them) against `tokenizers` itself, on
single texts and pairs, from encode and from encode_batch (the native paths' Encodings), with
the file's post-processor and truncation, and without special tokens.

A pair's empty text is a sequence of no tokens, as tokenizers keeps it (an empty range): the
queries of it answer None and it counts in n_sequences.  Not compared: the index one past the
last token (tokenizers answers sequence 0 there for a text with no sequence set)."""

from __future__ import annotations

import pytest
from _hf_json import load
from _shared import need_shared

FILES = ["gpt2_tokenizer.json", "minilm_bert_uncased_tokenizer.json", "mistral_v1_tokenizer.json",
         "llama3_tokenizer.json", "rut5_tokenizer.json"]
TEXTS = [("Hello world, how are you?", None), ("Hello world, how are you?", "Fine thanks."), ("  中文 héllo  ", "x"),
         ("a", "b  c d"), ("don't stop", None), ("hello world", ""), ("", "hello world"), ("", ""), ("", None)]
QUERIES = ("word_to_tokens", "word_to_chars", "char_to_token", "char_to_word")


@pytest.mark.parametrize("configured", [False, True])
@pytest.mark.parametrize("name", FILES)
def test_position_queries(name, configured):
    need_shared()
    ref, ours = load(name, configured)
    for text, pair in TEXTS:
        for special in (True, False):
            items = [(text, pair) if pair else text]
            for x, y in ((ref.encode(text, pair, add_special_tokens=special), ours.encode(text, pair, add_special_tokens=special)),
                         (ref.encode_batch(items, add_special_tokens=special)[0],
                          ours.encode_batch(items, add_special_tokens=special)[0])):
                for i in range(len(x.ids)):
                    for q in ("token_to_sequence", "token_to_chars", "token_to_word"):
                        assert getattr(y, q)(i) == getattr(x, q)(i), (text, pair, q, i)
                assert y.n_sequences == x.n_sequences, (text, pair)
                for i in range(max(len(text), len(pair or "")) + 2):
                    for seq in (0, 1):
                        for q in QUERIES:
                            assert getattr(y, q)(i, seq) == getattr(x, q)(i, seq), (text, pair, q, i, seq)
