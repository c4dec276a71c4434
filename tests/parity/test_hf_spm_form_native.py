"""SentencePiece-style files whose normalizer is one Unicode form, alone or after Nmt (tokenizers'
SentencePieceBPETokenizer writes NFKC before Metaspace): the form runs natively ahead of the
encoder (tokenforge.tokenizer.spm_prechain, `_native.normalize_unicode` with tokenizers'
Unicode 11.0 data and alignment).  A BPE and a Unigram trained here by `tokenizers`, under
NFC, NFD, NFKC and NFKD, against `tokenizers` on compatibility characters, Hangul jamo,
canonical reordering, composition exclusions, added tokens and random code points: single
texts with and without special tokens, pairs, batches; a lone surrogate raises ValueError."""

from __future__ import annotations

import functools
import json
import random

import pytest
from _hf_json import assert_same_on, lines
from _shared import need_shared

ATOMS = ["a", "Hello", " ", "  ", "\t", "\n", "é", "e\u0301", "\u0301", "\u0301\u0323", "ﬁ", "中文", "😀", "1", "½", "²", "①",
         "Ⅻ", "ǅ", "İ", "ß", "Å", "\u212b", "\u212a", "ｶ", "ﾞ", "か\u3099", "가", "\u1100\u1161", "ᄀ", "\u0f73", "\u0345",
         "<s>", "<unk>", "▁", "\u3000", "\u00a0", "㈱", "㍿", "\ufdfa", "\u0958", "\u0fb5\u0f39"]


@functools.lru_cache(maxsize=2)
def _trained(kind: str) -> dict:
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, trainers
    from tokenizers.implementations import SentencePieceBPETokenizer

    corpus = [ln for c in ("en", "multi") for ln in lines(c, 400, seed=7)]
    if kind == "bpe":
        tok = SentencePieceBPETokenizer()
        tok.train_from_iterator(corpus, vocab_size=1500, special_tokens=["<unk>", "<s>"])
        return json.loads(tok.to_str())
    tok = Tokenizer(models.Unigram())
    tok.normalizer = normalizers.NFKC()
    tok.pre_tokenizer = pre_tokenizers.Metaspace()
    tok.train_from_iterator(corpus, trainers.UnigramTrainer(vocab_size=1000, special_tokens=["<unk>"], unk_token="<unk>"))
    return json.loads(tok.to_str())


@pytest.mark.parametrize("kind", ["bpe", "unigram"])
@pytest.mark.parametrize("form", ["NFC", "NFD", "NFKC", "NFKD"])
def test_one_form_ahead_of_the_encoder_as_tokenizers(kind, form):
    need_shared()
    import tokenizers

    from tokenforge.tokenizer import Tokenizer
    from tokenforge.tokenizer.native_spm import NativeSpm

    d = dict(_trained(kind))
    d["normalizer"] = {"type": form}
    text = json.dumps(d)
    ref, ours = tokenizers.Tokenizer.from_str(text), Tokenizer.from_str(text)
    assert type(ours._native_engine()) is NativeSpm
    r = random.Random(kind + form)
    samples = ["".join(r.choice(ATOMS) for _ in range(r.randint(0, 12))) for _ in range(300)]
    samples += ["".join(chr(r.randint(0x20, 0x33FF)) for _ in range(r.randint(0, 10))) for _ in range(200)]
    samples += ["".join(chr(r.choice([r.randint(0xAC00, 0xD7A3), r.randint(0xF900, 0xFFEF), r.randint(0x10000, 0x1FFFF)]))
                        for _ in range(r.randint(0, 8))) for _ in range(100)]
    assert_same_on(ref, ours, samples)
    with pytest.raises(ValueError, match="surrogate"):
        ours.encode("a\ud800b")


@functools.lru_cache(maxsize=1)
def _unigram_class() -> dict:
    from tokenizers.implementations import SentencePieceUnigramTokenizer

    tok = SentencePieceUnigramTokenizer()
    tok.train_from_iterator([ln for c in ("en", "multi") for ln in lines(c, 400, seed=8)], vocab_size=1000,
                            special_tokens=["<unk>", "<s>"], unk_token="<unk>")
    return json.loads(tok.to_str())


NMT_ATOMS = ["a", "Hello", " ", "  ", "   ", "\t", "\n", "\r\n", "\x01", "\x0b", "\x7f", "\x8f", "\u200b", "\u200e", "\u2028",
             "\u2581", "\ufeff", "\ufffd", "\u1680", "é", "e\u0301", "ﬁ", "中文", "😀", "½", "Ⅻ", "Å", "ｶﾞ", "가", "<s>", "▁▁"]


@pytest.mark.parametrize("steps", [None, ["Nmt", "NFC"], ["Nmt"], ["Nmt", "Lowercase"], ["Lowercase", "Nmt", "NFKC"]])
def test_nmt_ahead_of_the_encoder_as_tokenizers(steps):
    """tokenizers' SentencePieceUnigramTokenizer writes Nmt, NFKC and Replace(" {2,}", " "):
    Nmt then a form runs natively when the text holds no character Nmt drops; other chains
    with Nmt run the readable steps."""
    need_shared()
    import tokenizers

    from tokenforge.tokenizer import Tokenizer
    from tokenforge.tokenizer.native_spm import NativeSpm

    d = dict(_unigram_class())
    if steps is not None:
        d["normalizer"] = {"type": "Sequence", "normalizers": [{"type": s} for s in steps]}
    text = json.dumps(d)
    ref, ours = tokenizers.Tokenizer.from_str(text), Tokenizer.from_str(text)
    assert type(ours._native_engine()) is NativeSpm
    r = random.Random(str(steps))
    samples = ["".join(r.choice(NMT_ATOMS) for _ in range(r.randint(0, 12))) for _ in range(300)]
    samples += ["".join(chr(r.randint(0x1, 0x33FF)) for _ in range(r.randint(0, 10))) for _ in range(200)]
    assert_same_on(ref, ours, samples)
