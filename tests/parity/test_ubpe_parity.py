"""tokenforge.ubpe against PyPI `ubpe` 0.3.0's pure-Python backend (ubpe-native, the oracle).

On each ../shared corpus as UTF-8 bytes (vocab 1024), on English characters and on a seeded
DNA-like corpus: both classes, with and without `rearrange_tokens`, give the same dump; classic
encodings are identical; universal encodings have the same weight and length rank by rank
(top_n 1 and 3); each side loads the other's JSON and encodes the same.  Samples are small
because ubpe is slow; benchmarks/bench_ubpe.py runs the big inputs.
"""

from __future__ import annotations

import random

import pytest
from _shared import CORPUS_FILES, corpus_sample, need_shared
from _ubpe import assert_same_dump, assert_same_encodings, run_oracle, ubpe_python

from tokenforge.ubpe import UBPE, UBPEClassic

CLASSES = {"UBPE": UBPE, "UBPEClassic": UBPEClassic}
TOP_N = [1, 3]


def byte_docs(name: str, n_bytes: int, max_len: int = 300) -> list[list[int]]:
    """Lines of the corpus's first `n_bytes` as UTF-8 bytes, long ones cut every `max_len`."""
    data = corpus_sample(name).encode("utf-8")[:n_bytes]
    return [list(line[i:i + max_len]) for line in data.split(b"\n") if line
            for i in range(0, len(line), max_len)]


def dna_docs(seed: int = 7, n: int = 300) -> list[str]:
    rng = random.Random(seed)
    motifs = ["".join(rng.choice("ACGT") for _ in range(rng.randint(3, 9))) for _ in range(12)]
    docs = []
    for _ in range(n):
        doc = []
        while len(doc) < rng.randint(40, 160):
            doc.extend(rng.choice(motifs) if rng.random() < 0.6 else rng.choice("ACGT"))
        docs.append("".join(doc))
    return docs


def check_parity(alphabet, symbols: str, corpus, docs, n_tokens: int, init_kwargs=None,
                 lossy_regex: bool = False) -> None:
    ubpe_python()
    init_kwargs = init_kwargs or {}
    token_type = int if symbols == "int" else str
    specs, ours = [], []
    for cls_name, cls in CLASSES.items():
        for rearrange in (True, False):
            model = cls(alphabet, n_tokens=n_tokens, lossy_regex=lossy_regex, **init_kwargs)
            model.fit(corpus, rearrange_tokens=rearrange)
            dump = model.dumps()
            enc = {n: ([model.encode(d, top_n=n) for d in docs] if cls is UBPE else
                       [model.encode(d) for d in docs]) for n in (TOP_N if cls is UBPE else [1])}
            ours.append((cls, dump, enc))
            specs.append({"cls": cls_name, "alphabet": alphabet, "symbols": symbols,
                          "n_tokens": n_tokens, "init_kwargs": init_kwargs, "corpus": corpus,
                          "fit_kwargs": {"rearrange_tokens": rearrange}, "docs": docs,
                          "top_n": list(enc), "load": [dump]})
    results = run_oracle(specs)
    for (cls, dump, enc), res in zip(ours, results):
        assert_same_dump(dump, res["dump"])
        theirs_loaded = cls.loads(res["dump"], token_type, lossy_regex=lossy_regex)
        for n, ours_n in enc.items():
            exact = cls is UBPEClassic
            assert_same_encodings(ours_n, res["encodings"][str(n)], exact_ids=exact)
            # ubpe encodes the same with our dump; we encode the same with ubpe's
            assert_same_encodings(res["loaded"][0][str(n)], res["encodings"][str(n)], exact_ids=True)
            again = [theirs_loaded.encode(d, top_n=n) if cls is UBPE else theirs_loaded.encode(d)
                     for d in docs]
            assert_same_encodings(again, ours_n, exact_ids=True)


@pytest.mark.parametrize("name", CORPUS_FILES)
def test_corpus_bytes(name):
    need_shared()
    docs = byte_docs(name, 25_000)
    check_parity(list(range(256)), "int", docs[:-25], docs[-25:], 1024)


def test_english_characters():
    need_shared()
    lines = [line for line in corpus_sample("en")[:25_000].split("\n") if line]
    alphabet = sorted(set("".join(lines)))
    check_parity(alphabet, "str", lines[:-25], lines[-25:], 600)


def test_dna_like():
    docs = dna_docs()
    check_parity(list("ACGT"), "str", docs[:-30], docs[-30:], 300)


def test_split_options():
    """Known words, break and stop tokens and ubpe's (lossy) regex split, on English."""
    need_shared()
    lines = [line for line in corpus_sample("en")[:20_000].split("\n") if line.strip()]
    lines = [line for line in lines if any(c.isalpha() for c in line)]
    alphabet = sorted(set("".join(lines)))
    kwargs = {"known_words": ["the", "and", "of the"], "break_tokens": [" "],
              "stop_tokens": [","], "regex_str": r"[^.;:!?]+"}
    check_parity(alphabet, "str", lines[:-30], lines[-30:], 400, kwargs, lossy_regex=True)
