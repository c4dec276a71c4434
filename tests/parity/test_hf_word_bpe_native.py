"""BPE files with a continuing-subword prefix or an end-of-word suffix ("</w>": openai-gpt's,
HerBERT's, tokenizers' CharBPETokenizer's) on the native BERT path, the BPE merged word by
word in C++ (cpp/models/wordpiece/word_bpe.h): trained here by `tokenizers` as
CharBPETokenizer (BertNormalizer, BertPreTokenizer, suffix), with fused unknowns, and with
both prefix and suffix behind Whitespace and NFD/Lowercase/StripAccents; against `tokenizers`
on long words, unknown characters, added tokens and random code points: single texts with
and without special tokens, pairs, batches and decodes.  Without an unknown token the file
stays on the readable pipeline (tokenizers shifts the offsets after a dropped character)."""

from __future__ import annotations

import functools
import json
import random

import pytest
from _hf_json import assert_same_on, lines
from _shared import need_shared

ATOMS = ["a", "Hello", "_", " ", "  ", "\t", "\n", "\u3000", "é", "e\u0301", "ﬁ", "中文", "😀", "1", "2023", "٣", ".", ",", "...",
         "'s", "-", "<unk>", "[CLS]", "Ⅻ", "İ", "ß", "Σ", "ا", "ไทย", "\x00", "\ufeff", "the", "tion", "ing", "😀😁",
         "a" * 40]


@functools.lru_cache(maxsize=4)
def _trained(kind: str) -> dict:
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, trainers
    from tokenizers.implementations import CharBPETokenizer

    corpus = [ln for c in ("en", "multi") for ln in lines(c, 400, seed=9)]
    if kind in ("char_bpe", "char_bpe_fused"):
        tok = CharBPETokenizer()
        tok.train_from_iterator(corpus, vocab_size=1500)
        d = json.loads(tok.to_str())
        d["model"]["fuse_unk"] = kind == "char_bpe_fused"
        return d
    bpe = models.BPE(unk_token="[UNK]" if kind != "no_unk" else None, continuing_subword_prefix="##",
                     end_of_word_suffix="</w>")
    tok = Tokenizer(bpe)
    tok.normalizer = normalizers.Sequence([normalizers.NFD(), normalizers.Lowercase(), normalizers.StripAccents()])
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.train_from_iterator(corpus, trainers.BpeTrainer(vocab_size=1500, special_tokens=["[UNK]", "[CLS]"],
                                                        continuing_subword_prefix="##", end_of_word_suffix="</w>"))
    return json.loads(tok.to_str())


@pytest.mark.parametrize("kind", ["char_bpe", "char_bpe_fused", "prefix_and_suffix", "no_unk"])
def test_word_bpe_native_as_tokenizers(kind):
    need_shared()
    import tokenizers

    from tokenforge.tokenizer import Tokenizer
    from tokenforge.tokenizer.native_bert import NativeBert

    text = json.dumps(_trained(kind))
    ref, ours = tokenizers.Tokenizer.from_str(text), Tokenizer.from_str(text)
    for t in (ref, ours):
        t.no_truncation()
        t.no_padding()
    assert (type(ours._native_engine()) is NativeBert) == (kind != "no_unk")
    r = random.Random(kind)
    samples = ["".join(r.choice(ATOMS) for _ in range(r.randint(0, 12))) for _ in range(400)]
    samples += ["".join(chr(r.randint(0x20, 0x2FFF)) for _ in range(r.randint(0, 10))) for _ in range(200)]
    samples += lines("code", 30, seed=10) + lines("multi", 30, seed=10)
    assert_same_on(ref, ours, samples)
