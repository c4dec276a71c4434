"""``tokenforge train-spm``: spm_train's job from the tokenforge command.

    tokenforge train-spm FILES... --vocab-size N [--model-type {unigram,bpe}] -o PREFIX
                         [--option NAME=VALUE ...] [-q]

Writes ``PREFIX.model`` and ``PREFIX.vocab``; any spm_train option can be passed with
``--option`` (``--option byte_fallback=true``).  Progress on stderr, a summary on stdout.

Example:
    >>> import argparse
    >>> sub = argparse.ArgumentParser().add_subparsers(dest="command")
    >>> p = add_parser(sub)
    >>> a = p.parse_args(["a.txt", "--vocab-size", "800", "-o", "m", "--option", "byte_fallback=true"])
    >>> a.files, a.vocab_size, a.model_type, a.option
    (['a.txt'], 800, 'unigram', ['byte_fallback=true'])
"""

from __future__ import annotations

import argparse
import os
import time


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("train-spm", help="train a SentencePiece model (spm_train's options and files)",
                       description="Train a SentencePiece model as spm_train does; writes PREFIX.model and PREFIX.vocab.")
    p.add_argument("files", nargs="+", metavar="FILES", help="UTF-8 text files, one sentence per line")
    p.add_argument("--vocab-size", type=int, default=8000, help="pieces, meta pieces included (default 8000)")
    p.add_argument("--model-type", choices=["unigram", "bpe"], default="unigram", help="default unigram")
    p.add_argument("-o", "--output", required=True, metavar="PREFIX", help="writes PREFIX.model and PREFIX.vocab")
    p.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                   help="any spm_train option, e.g. byte_fallback=true (repeatable)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress")
    return p


def run(args: argparse.Namespace) -> int:
    from tokenforge.sentencepiece.processor import SentencePieceProcessor
    from tokenforge.spm_train import SentencePieceTrainer

    options: dict[str, str] = {}
    for item in args.option:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise ValueError(f"--option needs NAME=VALUE, got {item!r}")
        options[name.strip().lstrip("-")] = value
    if args.quiet:
        options.setdefault("minloglevel", "2")
    started = time.monotonic()
    SentencePieceTrainer.train(input=list(args.files), model_prefix=args.output, vocab_size=args.vocab_size,
                               model_type=args.model_type, **options)
    seconds = time.monotonic() - started
    sp = SentencePieceProcessor(model_file=args.output + ".model")
    size = sum(os.path.getsize(f) for f in args.files)
    print(f"vocab       {sp.get_piece_size()} pieces ({args.model_type})")
    print(f"text        {size / 1e6:.1f} MB in {len(args.files)} files")
    print(f"time        {seconds:.2f} s")
    print(f"saved       {args.output}.model, {args.output}.vocab")
    example = "Hello world, this is tokenforge."
    print(f"\nexample: {example!r}\n  -> {sp.encode(example, out_type=str)}")
    return 0
