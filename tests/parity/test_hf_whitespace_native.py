"""Files trained as the `tokenizers` quicktour trains them — the Whitespace pre-tokenizer
(`\\w+|[^\\w\\s]+`) before a character-level BPE with an unknown token, or a Unigram — on the
native SentencePiece-style path (tokenforge.tokenizer.native_spm, each run of word characters
and each run of other non-space characters a stretch): trained here by `tokenizers` on corpus
lines, with no normalizer, with NFD/Lowercase/StripAccents (the steps run ahead of the encoder)
and with NFKC and fused unknowns; against `tokenizers` on word characters of every kind
(marks, connector punctuation, digits of other scripts), whitespace that is and is not
White_Space, added tokens, corpus lines and random code points: single texts with and without
special tokens, pairs, batches and decodes."""

from __future__ import annotations

import random

import pytest
from _hf_json import assert_same_on, lines
from _shared import need_shared

ATOMS = ["a", "Hello", "_", "x_y", " ", "  ", "\t", "\n", "\u3000", "\u00a0", "\u0085", "\u200b", "\u180e", "é", "e\u0301",
         "\u0301", "ﬁ", "中文", "😀", "1", "2023", "٣", "²", ".", ",", "...", "!?", "'s", "-", "$", "€", "[CLS]", "[MASK]",
         "▁", "Ⅻ", "ǅ", "\u200d", "\u200c", "\x00", "\ufeff", "İ", "ß", "Σ", "ا", "ไทย", "\u0e33", "ᾳ"]
KINDS = ["bpe_plain", "bpe_nfd", "bpe_nfkc_fuse", "unigram"]


def _trained(kind: str) -> str:
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, trainers

    specials = ["[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    if kind == "unigram":
        tok = Tokenizer(models.Unigram())
        trainer = trainers.UnigramTrainer(vocab_size=1500, special_tokens=specials, unk_token="[UNK]")
    else:
        tok = Tokenizer(models.BPE(unk_token="[UNK]", fuse_unk=kind == "bpe_nfkc_fuse"))
        trainer = trainers.BpeTrainer(vocab_size=1500, special_tokens=specials)
    if kind == "bpe_nfd":
        tok.normalizer = normalizers.Sequence([normalizers.NFD(), normalizers.Lowercase(), normalizers.StripAccents()])
    elif kind == "bpe_nfkc_fuse":
        tok.normalizer = normalizers.NFKC()
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.train_from_iterator([ln for c in ("en", "multi") for ln in lines(c, 400, seed=3)], trainer)
    return tok.to_str()


@pytest.mark.parametrize("kind", KINDS)
def test_whitespace_pre_tokenizer_native_as_tokenizers(kind):
    need_shared()
    import tokenizers

    from tokenforge.tokenizer import Tokenizer
    from tokenforge.tokenizer.native_spm import NativeSpm

    text = _trained(kind)
    ref, ours = tokenizers.Tokenizer.from_str(text), Tokenizer.from_str(text)
    assert type(ours._native_engine()) is NativeSpm
    r = random.Random(kind)
    samples = ["".join(r.choice(ATOMS) for _ in range(r.randint(0, 12))) for _ in range(400)]
    samples += ["".join(chr(r.randint(0x20, 0x2FFF)) for _ in range(r.randint(0, 10))) for _ in range(150)]
    samples += lines("code", 40, seed=4) + lines("multi", 40, seed=4)
    assert_same_on(ref, ours, samples)
