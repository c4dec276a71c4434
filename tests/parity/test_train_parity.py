"""Merges identical to HF tokenizers' BpeTrainer on the shared corpora.

HF is set up the way the issue prescribes: Split(pattern, "isolated") then ByteLevel
without its own regex, the byte-level initial alphabet, the same vocabulary size.  The
pattern is Llama 3's (the older spelling of cl100k): HF's regex engine reads cl100k's
possessive `\\p{N}{1,3}+` as `(\\p{N}{1,3})+`, and tiktoken treats both spellings alike.
Both trainers get the same list of texts (each text is split on its own).
"""

from __future__ import annotations

import json

import pytest

import tokenforge
from tokenforge import patterns

tokenizers = pytest.importorskip("tokenizers")

VOCAB = 3000
SAMPLE = {"en": 1_500_000, "code": 1_500_000, "multi": 1_500_000, "mixed": 700_000}


def hf_merges(texts: list[str], vocab_size: int, min_frequency: int = 0) -> list[tuple[str, str]]:
    from tokenizers import Regex, Tokenizer, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(patterns.LLAMA3), behavior="isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        min_frequency=min_frequency,
        show_progress=False,
    )
    tok.train_from_iterator(texts, trainer)
    merges = json.loads(tok.to_str())["model"]["merges"]
    return [tuple(m) if isinstance(m, list) else tuple(m.split(" ")) for m in merges]


def _B2U(token: bytes) -> str:
    printable = [b for b in range(256) if 33 <= b <= 126 or 161 <= b <= 172 or 174 <= b <= 255]
    table = {b: chr(b) for b in printable}
    n = 0
    for b in range(256):
        if b not in table:
            table[b] = chr(256 + n)
            n += 1
    return "".join(table[b] for b in token)


def our_merges(texts: list[str], vocab_size: int, threads: int = 2, min_frequency: int = 0):
    trainer = tokenforge.BpeTrainer(
        vocab_size, pat_str=patterns.LLAMA3, show_progress=False, threads=threads, min_frequency=min_frequency
    )
    enc = trainer.train_from_iterator(texts)
    tokens = [enc.decode_single_token_bytes(i) for i in range(enc.n_vocab)]
    return [(_B2U(tokens[a]), _B2U(tokens[b])) for a, b, _ in trainer.merges]


def first_difference(ours, theirs) -> str:
    i = next((i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b), min(len(ours), len(theirs)))
    return f"{len(ours)} vs {len(theirs)} merges; first difference at merge {i}: ours {ours[i:i + 2]} HF {theirs[i:i + 2]}"


def documents(text: str, n: int = 8) -> list[str]:
    """The text cut into about n documents at line ends, so several texts are fed."""
    out, start = [], 0
    for k in range(1, n):
        cut = text.find("\n", k * len(text) // n) + 1
        if cut <= start:
            continue
        out.append(text[start:cut])
        start = cut
    out.append(text[start:])
    return out


def test_merges_equal_hf_on_each_corpus(corpus):
    from _shared import corpus_sample

    name, _ = corpus
    texts = documents(corpus_sample(name, SAMPLE[name])[: SAMPLE[name]])
    ours, theirs = our_merges(texts, VOCAB), hf_merges(texts, VOCAB)
    assert ours == theirs, first_difference(ours, theirs)


def test_merges_equal_hf_on_all_corpora_together_with_min_frequency():
    from _shared import corpus_sample, need_shared

    need_shared()
    texts = [corpus_sample(n, 400_000)[:400_000] for n in ("en", "code", "multi", "mixed")]
    ours, theirs = our_merges(texts, 10_000, min_frequency=40), hf_merges(texts, 10_000, min_frequency=40)
    assert ours == theirs, first_difference(ours, theirs)
    assert len(ours) < 10_000 - 256  # min_frequency stopped it


def test_merges_equal_hf_on_hand_written_ties():
    texts = ["ab ab ba ba cd cd dc dc", "xy yx xy yx", "aaaa aaa aa a", "  \n\n\t\t  \r\n"]
    for vocab in (260, 270, 300):
        assert our_merges(texts, vocab) == hf_merges(texts, vocab)
