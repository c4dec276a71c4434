"""Unigram training quality: tokenforge's trainer against sentencepiece's on one corpus sample.

Both train a Unigram model on the same text with the same options; each model then segments
held-out lines (Viterbi, through sentencepiece) and we report

- tokens per byte, and
- the Viterbi log-likelihood per byte: the sum of the pieces' log-probabilities, scores first
  renormalized over the model's normal pieces when their probabilities sum to more than 1
  (so that no model gains by inflating its scores); an unknown piece costs what
  sentencepiece's lattice charges it (the lowest score minus 10).

    python benchmarks/spm_unigram_quality.py multi --train-kb 200 --vocab 4000

Quality only: nothing here is timed.
"""

from __future__ import annotations

import argparse
import io
import math


def viterbi_log_likelihood_per_byte(model: bytes, lines: list[str]) -> float:
    """Mean Viterbi log-probability per UTF-8 byte of `lines` under a Unigram `model` (normalized scores)."""
    import sentencepiece as spm

    from tokenforge.sentencepiece import ModelProto

    proto = ModelProto.from_bytes(model)
    normal = [p.score for p in proto.pieces if p.type == 1]
    top = max(normal)
    log_z = top + math.log(sum(math.exp(s - top) for s in normal))
    shift = max(0.0, log_z)
    unk_cost = min(normal) - 10.0
    logp = [(p.score if p.type == 1 else unk_cost) - shift for p in proto.pieces]
    sp = spm.SentencePieceProcessor(model_proto=model)
    total = sum(logp[i] for ids in sp.encode(lines) for i in ids)
    return total / sum(len(x.encode()) for x in lines)


def tokens_per_byte(model: bytes, lines: list[str]) -> float:
    import sentencepiece as spm

    sp = spm.SentencePieceProcessor(model_proto=model)
    return sum(map(len, sp.encode(lines))) / sum(len(x.encode()) for x in lines)


def held_out(text: str, size: int = 100_000) -> list[str]:
    """Lines from the middle of `text`, past what corpus_sample's start covers."""
    mid = len(text) // 2 + 12345
    return [line for line in text[mid:mid + size].split("\n")[1:-1] if line]


def spread_lines(text: str, size: int, parts: int = 16) -> list[str]:
    """About `size` characters of whole lines from `parts` evenly spaced places of the first half of `text`."""
    out: list[str] = []
    half = len(text) // 2
    for k in range(parts):
        start = text.find("\n", k * half // parts) + 1 if k else 0
        out += [x for x in text[start:start + size // parts].split("\n")[:-1] if x]
    return out


def train_both(lines: list[str], **options) -> tuple[bytes, bytes]:
    """(sentencepiece's model, tokenforge's model), both Unigram, trained on `lines`."""
    import sentencepiece as spm

    import tokenforge

    ref, ours = io.BytesIO(), io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(lines), model_writer=ref, minloglevel=2, **options)
    tokenforge.SentencePieceTrainer.train(sentence_iterator=iter(lines), model_writer=ours, minloglevel=2, **options)
    return ref.getvalue(), ours.getvalue()


def main() -> None:
    from _common import corpus_text

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("corpora", nargs="+")
    ap.add_argument("--train-kb", type=int, default=200)
    ap.add_argument("--vocab", type=int, default=4000)
    args = ap.parse_args()
    for name in args.corpora:
        text = corpus_text(name)
        lines = spread_lines(text, args.train_kb * 1000)
        held = held_out(text)
        ref, ours = train_both(lines, vocab_size=args.vocab)
        ll = [viterbi_log_likelihood_per_byte(m, held) for m in (ref, ours)]
        tpb = [tokens_per_byte(m, held) for m in (ref, ours)]
        print(f"{name}: log-likelihood/byte sentencepiece {ll[0]:.4f}, tokenforge {ll[1]:.4f} "
              f"({ll[1] / ll[0]:.4f}x); tokens/byte {tpb[0]:.4f}, {tpb[1]:.4f} ({tpb[1] / tpb[0]:.4f}x)")


if __name__ == "__main__":
    main()
