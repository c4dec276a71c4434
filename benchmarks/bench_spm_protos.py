"""Encodings with alignment: tokenforge vs sentencepiece 0.2.3, one thread, process CPU time.

For each model and corpus file, on its first lines (``--kb`` of text), times sentencepiece's
``serialized_proto`` outputs (encode a list of lines, decode their ids, and, on Unigram
models, the 8-best of short lines) and tokenforge's same calls, plus tokenforge's
``immutable_proto`` objects, and prints lines/s and the ratio tokenforge/sentencepiece
(> 1: tokenforge faster).  The ratio is the median of back-to-back pairs (paired_ratio).
It prints results; it asserts nothing.

Usage:
    python benchmarks/bench_spm_protos.py [--kb 200] [--models llama2_tokenizer,kyoto_ja_unigram_8000] [--corpora en,multi]
"""

from __future__ import annotations

import argparse
import time

import sentencepiece as spm
from _common import MODELS, corpus_text, paired_ratio

from tokenforge import SentencePieceProcessor

CLOCK = time.process_time  # every thread of the process: the batch calls may start threads


def rows(model: str, corpus: str, kb: int, rounds: int) -> None:
    path = str(MODELS / "sentencepiece" / f"{model}.model")
    ours, theirs = SentencePieceProcessor(model_file=path), spm.SentencePieceProcessor(model_file=path)
    lines = corpus_text(corpus, kb * 1000).split("\n")
    ids = theirs.encode(lines)
    cases = [
        ("encode serialized_proto", lambda s: ours.encode(lines, out_type="serialized_proto", num_threads=1),
         lambda s: theirs.encode(lines, out_type="serialized_proto", num_threads=1)),
        ("encode immutable_proto (vs proto)", lambda s: ours.encode(lines, out_type="immutable_proto", num_threads=1),
         lambda s: theirs.encode(lines, out_type="proto", num_threads=1)),
        ("decode serialized_proto", lambda s: ours.decode(ids, out_type="serialized_proto", num_threads=1),
         lambda s: theirs.decode(ids, out_type="serialized_proto", num_threads=1)),
    ]
    if ours._model.trainer_spec.model_type == 1:
        short = [x for x in lines if 0 < len(x) < 100][:300]
        cases.append(("nbest 8 serialized_proto", lambda s: [ours.nbest_encode(x, nbest_size=8,
                                                                                out_type="serialized_proto")
                                                              for x in short],
                      lambda s: [theirs.nbest_encode(x, nbest_size=8, out_type="serialized_proto") for x in short]))
    for name, fa, fb in cases:
        t0 = CLOCK()
        fa(None)
        ours_s = CLOCK() - t0
        ratio = paired_ratio(rounds, fa, fb, clock=CLOCK)
        print(f"{model:28} {corpus:6} {name:34} tokenforge {len(lines) / ours_s:10.0f} lines/s   "
              f"tf/sentencepiece {ratio:5.2f}x")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kb", type=int, default=200)
    ap.add_argument("--models", default="llama2_tokenizer,kyoto_ja_unigram_8000")
    ap.add_argument("--corpora", default="en,multi")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    for model in args.models.split(","):
        for corpus in args.corpora.split(","):
            rows(model, corpus, args.kb, args.rounds)


if __name__ == "__main__":
    main()
