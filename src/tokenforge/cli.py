"""The `tokenforge` command.  It only parses arguments and prints; the work is in the library.

    tokenforge train [FILES...] [--vocab-size N] [--pattern {gpt2,cl100k,o200k,llama3,REGEX}]
                     [--special TOKEN ...] [-o OUT] [--min-frequency N] [--errors {strict,replace}]
                     [--by-line] [--threads N] [-q]
    tokenforge train-spm FILES... --vocab-size N [--model-type {unigram,bpe}] -o PREFIX  (see spm_train/cli.py)

With no FILES, `train` learns from the Python standard library's own source files, a corpus
every machine with Python has, so the first command of the README needs no download.

Example:
    >>> parser = build_parser()
    >>> args = parser.parse_args(["train", "a.txt", "--vocab-size", "1000", "--special", "<|eot|>"])
    >>> args.files, args.vocab_size, args.special
    (['a.txt'], 1000, ['<|eot|>'])
"""

from __future__ import annotations

import argparse
import os
import sys
import sysconfig
from collections.abc import Sequence

DEFAULT_VOCAB = 4096
EXAMPLE = 'def greet(name):\n    return f"Hello, {name}!"  # tokenforge'


def stdlib_sources() -> list[str]:
    """The .py files of this Python's standard library (third-party packages left out).

    >>> any(p.endswith(os.path.join("json", "decoder.py")) for p in stdlib_sources())
    True
    """
    root = sysconfig.get_paths()["stdlib"]
    found = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in ("site-packages", "dist-packages", "__pycache__"))
        found += [os.path.join(folder, f) for f in sorted(files) if f.endswith(".py")]
    return found


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tokenforge", description="Train and run subword tokenizers.")
    sub = parser.add_subparsers(dest="command", required=True)
    train = sub.add_parser(
        "train",
        help="train a byte-level BPE tokenizer (merges identical to HF tokenizers')",
        description="Train a byte-level BPE tokenizer. With no FILES, trains on the Python standard library's source.",
    )
    train.add_argument("files", nargs="*", metavar="FILES", help="UTF-8 text files (default: the Python stdlib's .py files)")
    train.add_argument("--vocab-size", type=int, default=DEFAULT_VOCAB, help=f"256 bytes + merges (default {DEFAULT_VOCAB})")
    train.add_argument("--pattern", default="cl100k", help="gpt2, cl100k, o200k, llama3 or a regex (default cl100k)")
    train.add_argument("--special", nargs="+", default=[], metavar="TOKEN", help="special tokens, given ids after the merges")
    train.add_argument("-o", "--output", help="save to OUT: .tiktoken, .model (minbpe, with .vocab) or .json (HF)")
    train.add_argument("--min-frequency", type=int, default=0, help="stop when the best pair occurs fewer times")
    train.add_argument("--errors", choices=["strict", "replace"], default=None,
                       help="non-UTF-8 input: fail (default for FILES) or decode as U+FFFD (default for the stdlib)")
    train.add_argument("--by-line", action="store_true",
                       help="split each line on its own, as HF's Tokenizer.train(files) does (default: whole files)")
    train.add_argument("--threads", type=int, default=None, help="counting threads (default: all cores)")
    train.add_argument("-q", "--quiet", action="store_true", help="no progress bars")
    from tokenforge.spm_train import cli as spm_cli

    spm_cli.add_parser(sub)
    return parser


def train(args: argparse.Namespace) -> int:
    from tokenforge import patterns
    from tokenforge.formats import save
    from tokenforge.training import BpeTrainer

    files = args.files or stdlib_sources()
    errors = args.errors or ("strict" if args.files else "replace")
    pat_str = patterns.BY_NAME.get(args.pattern, args.pattern)
    if args.output:
        suffix = os.path.splitext(args.output)[1]
        if suffix not in (".tiktoken", ".model", ".json"):
            raise ValueError(f"cannot tell the format of {args.output!r}: use .tiktoken, .model or .json")
    trainer = BpeTrainer(
        args.vocab_size,
        pat_str=pat_str,
        special_tokens=args.special,
        min_frequency=args.min_frequency,
        show_progress=not args.quiet,
        errors=errors,
        threads=args.threads,
        name=os.path.splitext(os.path.basename(args.output))[0] if args.output else "trained",
    )
    source = f"{len(files)} files" if args.files else f"the Python standard library ({len(files)} .py files)"
    print(f"training a {args.vocab_size}-token byte-level BPE on {source}", file=sys.stderr)
    enc = trainer.train(files, by_line=args.by_line)
    s = trainer.stats
    print(f"vocab       {enc.n_vocab} tokens (256 bytes + {s.merges} merges + {len(args.special)} special)")
    print(f"text        {s.bytes / 1e6:.1f} MB, {s.distinct_pieces} distinct pieces")
    print(f"time        {s.seconds:.2f} s")
    print(f"compression {s.bytes_per_token:.2f} bytes per token on the training text")
    if args.output:
        for path in save(enc, args.output):
            print(f"saved       {path}")
    ids = enc.encode_ordinary(EXAMPLE)
    print(f"\nexample: {EXAMPLE!r}\n  -> {len(ids)} tokens {ids}")
    print("  -> " + " ".join(repr(enc.decode_single_token_bytes(i).decode("utf-8", "replace")) for i in ids))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `tokenforge` script; returns the exit status."""
    args = build_parser().parse_args(argv)
    try:
        if args.command == "train":
            return train(args)
        if args.command == "train-spm":
            from tokenforge.spm_train import cli as spm_cli

            return spm_cli.run(args)
    except (OSError, ValueError) as e:
        print(f"tokenforge {args.command}: error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    return 2


if __name__ == "__main__":
    sys.exit(main())
