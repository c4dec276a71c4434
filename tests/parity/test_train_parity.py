"""Merges identical to HF tokenizers' BpeTrainer on the shared corpora.

HF is set up the way the issue prescribes: Split(pattern, "isolated") then ByteLevel
without its own regex, the byte-level initial alphabet, the same vocabulary size.  The
pattern is Llama 3's (the older spelling of cl100k): HF's regex engine reads cl100k's
possessive `\\p{N}{1,3}+` as `(\\p{N}{1,3})+`, and tiktoken treats both spellings alike.
Both trainers get the same list of texts (each text is split on its own).  The other
patterns agree too once cl100k's possessive counted repeat is written as an atomic group
for Oniguruma (`tokenforge.formats.hf_json.hf_pattern`, as in our tokenizer.json files).
"""

from __future__ import annotations

import json

import pytest

import tokenforge
from tokenforge.formats.byte_map import to_text
from tokenforge import patterns
from tokenforge.formats.hf_json import hf_pattern

tokenizers = pytest.importorskip("tokenizers")

VOCAB = 3000
SAMPLE = {"en": 1_500_000, "code": 1_500_000, "multi": 1_500_000, "mixed": 700_000}


def hf_merges(
    texts: list[str], vocab_size: int, min_frequency: int = 0, pat_str: str = patterns.LLAMA3, specials=()
) -> list[tuple[str, str]]:
    """HF's merges; its vocab_size counts the special tokens, ours does not, so they are added."""
    from tokenizers import Regex, Tokenizer, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(hf_pattern(pat_str)), behavior="isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size + len(specials),
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        min_frequency=min_frequency,
        show_progress=False,
        special_tokens=list(specials),
    )
    tok.train_from_iterator(texts, trainer)
    merges = json.loads(tok.to_str())["model"]["merges"]
    return [tuple(m) if isinstance(m, list) else tuple(m.split(" ")) for m in merges]


def our_merges(
    texts: list[str], vocab_size: int, threads: int = 2, min_frequency: int = 0, pat_str: str = patterns.LLAMA3, specials=()
):
    trainer = tokenforge.BpeTrainer(
        vocab_size,
        pat_str=pat_str,
        show_progress=False,
        threads=threads,
        min_frequency=min_frequency,
        special_tokens=list(specials),
    )
    enc = trainer.train_from_iterator(texts)
    tokens = [enc.decode_single_token_bytes(i) for i in range(enc.n_vocab)]
    return [(to_text(tokens[a]), to_text(tokens[b])) for a, b, _ in trainer.merges]


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


@pytest.mark.parametrize("pat_str", [patterns.CL100K, patterns.GPT2, patterns.O200K], ids=["cl100k", "gpt2", "o200k"])
def test_merges_equal_hf_with_other_patterns(pat_str):
    from _shared import corpus_sample, need_shared

    need_shared()
    texts = documents(corpus_sample("multi", 600_000)[:600_000]) + [corpus_sample("mixed")[:200_000]]
    ours, theirs = our_merges(texts, 3000, pat_str=pat_str), hf_merges(texts, 3000, pat_str=pat_str)
    assert ours == theirs, first_difference(ours, theirs)


def test_special_tokens_in_the_text_are_cut_out():
    from _shared import corpus_sample, need_shared

    need_shared()
    docs = documents(corpus_sample("code", 800_000)[:800_000], 40)
    texts = ["<|endoftext|>".join(docs[:20]), "<|fim_prefix|>x<|endoftext|>".join(docs[20:])]
    specials = ["<|endoftext|>", "<|fim_prefix|>"]
    # HF's trainer learns from special tokens in the text as if they were ordinary text; we
    # cut them out, which equals giving HF the pieces of text between them.
    segments = [seg for t in texts for seg in t.replace("<|fim_prefix|>", "<|endoftext|>").split("<|endoftext|>")]
    ours, theirs = our_merges(texts, 3000, specials=specials), hf_merges(segments, 3000, specials=specials)
    assert ours == theirs, first_difference(ours, theirs)
    assert ("<", "|") in hf_merges(["ab<|eot|>"] * 10, 270, specials=["<|eot|>"])  # HF learns from them


def test_merges_equal_hf_on_hand_written_ties():
    texts = ["ab ab ba ba cd cd dc dc", "xy yx xy yx", "aaaa aaa aa a", "  \n\n\t\t  \r\n"]
    for vocab in (260, 270, 300):
        assert our_merges(texts, vocab) == hf_merges(texts, vocab)


def test_by_line_file_training_equals_hf_train_files(tmp_path):
    """HF's Tokenizer.train(files) splits each line (with its "\\n") on its own; so does by_line."""
    from _shared import corpus_sample, need_shared
    from tokenizers import Regex, Tokenizer, models, pre_tokenizers, trainers

    need_shared()
    paths = []
    for name, size in (("en", 500_000), ("multi", 500_000), ("mixed", 300_000)):
        path = tmp_path / f"{name}.txt"
        path.write_bytes(corpus_sample(name)[:size].encode("utf-8"))  # keeps "\r\n" as it is
        paths.append(str(path))
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [pre_tokenizers.Split(Regex(patterns.LLAMA3), behavior="isolated"), pre_tokenizers.ByteLevel(use_regex=False, add_prefix_space=False)]
    )
    tok.train(paths, trainers.BpeTrainer(vocab_size=3000, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False))
    theirs = [tuple(m) if isinstance(m, list) else tuple(m.split(" ")) for m in json.loads(tok.to_str())["model"]["merges"]]
    trainer = tokenforge.BpeTrainer(3000, pat_str=patterns.LLAMA3, show_progress=False)
    enc = trainer.train(paths, by_line=True)
    tokens = [enc.decode_single_token_bytes(i) for i in range(enc.n_vocab)]
    ours = [(to_text(tokens[a]), to_text(tokens[b])) for a, b, _ in trainer.merges]
    assert ours == theirs, first_difference(ours, theirs)
    whole = tokenforge.BpeTrainer(3000, pat_str=patterns.LLAMA3, show_progress=False)
    whole.train(paths)
    assert whole.merges != trainer.merges  # whole files make other pieces ("\n\n", "  \n  ")


def adversarial_texts() -> list[str]:
    """Long runs that make overlapping pairs and huge words: one letter, digits, spaces,
    CRLF, tabs, control characters, emoji, combining marks; each run alone and inside text."""
    import random

    rng = random.Random(4)
    runs = [
        "a" * 20_000,
        "b" * 4_097 + "c" * 3,
        "Ab" * 3_001,
        "0" * 9_999,
        "1234567890" * 700,
        " " * 20_000 + "x",
        " " * 5_003,
        "\r\n" * 4_000,
        "\t" * 3_000 + " " * 7,
        "\x01\x02\x1b" * 1_500,
        "\U0001F600" * 2_000,
        "e\u0301" * 1_500 + "\u0301" * 999,
        "  \n" * 1_500,
        "\u00a0" * 2_500 + "!" * 2_500,
    ]
    words = ["".join(rng.choice("abcxyz01 \t\r\n.") for _ in range(rng.randint(1, 12))) for _ in range(3_000)]
    return runs + ["".join(words[i:i + 30]) + runs[i % len(runs)][:777] for i in range(0, len(words), 30)]


@pytest.mark.parametrize(
    "pat_str", [patterns.LLAMA3, patterns.CL100K, patterns.GPT2, patterns.O200K], ids=["llama3", "cl100k", "gpt2", "o200k"]
)
def test_merges_equal_hf_on_adversarial_runs(pat_str):
    texts = adversarial_texts()
    ours, theirs = our_merges(texts, 700, pat_str=pat_str), hf_merges(texts, 700, pat_str=pat_str)
    assert ours == theirs, first_difference(ours, theirs)
