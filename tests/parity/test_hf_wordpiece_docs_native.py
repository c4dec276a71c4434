"""WordPiece (and WordLevel) files built as the `tokenizers` docs build a BERT tokenizer — the Whitespace
pre-tokenizer (`\\w+|[^\\w\\s]+`) and a Sequence of NFD, Lowercase and StripAccents — on the
native BERT path (tokenforge.tokenizer.native_bert: the Sequence as a per-code-point table
with StripAccents' marks, which are not BertNormalizer's; the word classes split in C++).
(WordLevel runs as a WordPiece that never continues a word.)  A WordPiece and a WordLevel
trained here by `tokenizers` on corpus lines, under each accepted normalizer and both
pre-tokenizers, against `tokenizers` on marks of every kind (nonspacing, spacing,
enclosing), letters whose case or decomposition is special, whitespace that is and is not
White_Space, added tokens and random code points: single texts with and without special
tokens, pairs, batches and decodes."""

from __future__ import annotations

import functools
import json
import random

import pytest
from _hf_json import assert_same_on, lines
from _shared import need_shared

ATOMS = ["a", "Hello", "_", "x_y", " ", "  ", "\t", "\n", "\u3000", "\u00a0", "\u0085", "\u200b", "é", "e\u0301", "\u0301",
         "\u0301\u0323", "ﬁ", "中文", "😀", "1", "2023", "٣", "²", ".", ",", "...", "!?", "'s", "-", "$", "[CLS]", "[MASK]",
         "Ⅻ", "ǅ", "İ", "ß", "ẞ", "Σ", "ا", "ไทย", "\u0e33", "ᾳ", "\u212a", "\u212b", "Å", "\u0345", "\x00", "\ufeff",
         "\u200d", "ﬀ", "Ꭰ", "\u1a55", "\u0cc7", "\u20dd", "\u0f39"]


def _seq(*steps: str) -> dict:
    return {"type": "Sequence", "normalizers": [{"type": s} for s in steps]}


CASES = {
    "docs": (_seq("NFD", "Lowercase", "StripAccents"), "Whitespace"),
    "lower_first": (_seq("Lowercase", "NFD", "StripAccents"), "Whitespace"),
    "strip_only": (_seq("NFD", "StripAccents"), "Whitespace"),
    "lower_only": (_seq("Lowercase"), "Whitespace"),
    "none": (None, "Whitespace"),
    "bert_normalizer": ({"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
                         "strip_accents": None, "lowercase": True}, "Whitespace"),
    "docs_bert_pre": (_seq("NFD", "Lowercase", "StripAccents"), "BertPreTokenizer"),
}


@functools.lru_cache(maxsize=2)
def _trained(kind: str) -> dict:
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, trainers

    specials = ["[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    if kind == "wordpiece":
        tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
        trainer = trainers.WordPieceTrainer(vocab_size=1500, special_tokens=specials)
    else:
        tok = Tokenizer(models.WordLevel(unk_token="[UNK]"))
        trainer = trainers.WordLevelTrainer(vocab_size=1500, special_tokens=specials)
    tok.normalizer = normalizers.Sequence([normalizers.NFD(), normalizers.Lowercase(), normalizers.StripAccents()])
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.train_from_iterator([ln for c in ("en", "multi") for ln in lines(c, 400, seed=5)], trainer)
    return json.loads(tok.to_str())


@pytest.mark.parametrize("case", [*CASES, "wordlevel_docs", "wordlevel_bert_pre"])
def test_wordpiece_docs_pipeline_native_as_tokenizers(case):
    need_shared()
    import tokenizers

    from tokenforge.tokenizer import Tokenizer
    from tokenforge.tokenizer.native_bert import NativeBert

    d = dict(_trained("wordlevel" if case.startswith("wordlevel") else "wordpiece"))
    d["normalizer"], pre = CASES[{"wordlevel_docs": "docs", "wordlevel_bert_pre": "docs_bert_pre"}.get(case, case)]
    d["pre_tokenizer"] = {"type": pre}
    text = json.dumps(d)
    ref, ours = tokenizers.Tokenizer.from_str(text), Tokenizer.from_str(text)
    assert type(ours._native_engine()) is NativeBert
    r = random.Random(case)
    samples = ["".join(r.choice(ATOMS) for _ in range(r.randint(0, 12))) for _ in range(400)]
    samples += ["".join(chr(r.randint(0x20, 0x2FFF)) for _ in range(r.randint(0, 10))) for _ in range(300)]
    samples += lines("multi", 40, seed=6)
    assert_same_on(ref, ours, samples)


def test_normalizers_the_table_cannot_run_stay_in_python():
    from tokenforge.normalizers import NFC, NFD, Lowercase, Sequence, StripAccents
    from tokenforge.tokenizer.native_bert import bert_options

    assert bert_options(Sequence([StripAccents(), NFD()])) is None  # stripping before NFD
    assert bert_options(Sequence([NFD()])) is None  # NFD keeping its marks
    assert bert_options(Sequence([NFC(), Lowercase()])) is None
    assert bert_options(Sequence([Lowercase(), Lowercase()])) is None
