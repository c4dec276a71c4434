"""The `tokenforge` command.  It only parses arguments and prints; the work is in the library.

    tokenforge train [FILES...] [--vocab-size N] [--pattern {gpt2,cl100k,o200k,llama3,REGEX}]
                     [--special TOKEN ...] [-o OUT] [--min-frequency N] [--errors {strict,replace}]
                     [--by-line] [--threads N] [-q]
    tokenforge train-spm FILES... --vocab-size N [--model-type {unigram,bpe}] -o PREFIX  (see spm_train/cli.py)
    tokenforge encode [TEXT...] [-f FILE ...] --model M [--json] [--allow-special]
    tokenforge decode [IDS...] --model M
    tokenforge inspect MODEL
    tokenforge show [TEXT] [-f FILE] --model M [--model M2 ...] [--no-color]
    tokenforge show --merges WORD --model M
    tokenforge visualize --model M [--model M2] [-o page.html] [-f SAMPLE]
    tokenforge tokenize INPUTS... -o DIR [--encoding NAME|FILE] [--by-line] [--field KEY]
                     [--format {npy,bin}] [--dtype {uint16,uint32}] [--eot ID|TOKEN|none]
                     [--shard-size N] [--errors {strict,skip,replace}] [--resume] [--threads N] [-q]
    tokenforge count [FILES...] [--encoding NAME|FILE] [--field KEY] [--errors ...] [--threads N]
    tokenforge convert IN OUT [--pre NAME]  (.gguf, tokenizer.json, .model, .tiktoken; see cli_convert.py)

M is a tiktoken encoding name, a .tiktoken file, a .model file (SentencePiece or minbpe), a
byte-level BPE tokenizer.json or a .gguf (see tokenforge.views.models).  Commands read standard input
when given no TEXT/FILE/IDS.  The work of each command is in tokenforge.views.
`tokenize` writes token shards (see tokenforge.data.tokenize_files); `count` prints the
tokens of each file and the total (stdin when no FILES).  With no FILES, `train` learns from the Python standard library's own source files, a corpus
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

    model_help = "a tiktoken name, .tiktoken, .model (SentencePiece or minbpe), tokenizer.json or .gguf"
    enc = sub.add_parser("encode", help="text or files to token ids, one line per input")
    enc.add_argument("texts", nargs="*", metavar="TEXT", help="texts to encode (default: standard input)")
    enc.add_argument("-f", "--file", action="append", default=[], help="encode a UTF-8 file (repeatable)")
    enc.add_argument("--model", required=True, help=model_help)
    enc.add_argument("--json", action="store_true", help="print one JSON array of id arrays")
    enc.add_argument("--allow-special", action="store_true", help="special token texts become their ids")
    dec = sub.add_parser("decode", help="token ids to text")
    dec.add_argument("ids", nargs="*", metavar="IDS", help="ids (default: one sequence per line of standard input)")
    dec.add_argument("--model", required=True, help=model_help)
    ins = sub.add_parser("inspect", help="what a tokenizer holds: type, vocab, specials, pattern, compression")
    ins.add_argument("model", metavar="MODEL", help=model_help)
    show = sub.add_parser("show", help="print text cut into tokens, with colours and ids")
    show.add_argument("text", nargs="?", metavar="TEXT", help="the text (default: -f FILE or standard input)")
    show.add_argument("-f", "--file", help="read the text from a file")
    show.add_argument("--model", action="append", required=True, help=model_help + " (repeat to compare)")
    show.add_argument("--merges", metavar="WORD", help="print the merge steps of WORD instead")
    show.add_argument("--no-color", action="store_true", help="no colours (also off when not a terminal or NO_COLOR is set)")
    vis = sub.add_parser("visualize", help="write an offline HTML page to explore tokens and merges")
    vis.add_argument("--model", action="append", required=True, help=model_help + " (two side by side)")
    vis.add_argument("-o", "--output", default="tokenforge.html", help="the page (default tokenforge.html)")
    vis.add_argument("-f", "--file", help="sample text for the page's statistics and first view")
    from tokenforge.spm_train import cli as spm_cli

    spm_cli.add_parser(sub)
    from tokenforge import cli_convert

    cli_convert.add_parser(sub)
    tok = sub.add_parser("tokenize", help="encode text / JSONL / Parquet files into token shards",
                         description="Encode documents into .npy or .bin token shards with a document index.")
    tok.add_argument("inputs", nargs="+", metavar="INPUTS", help="text files, .jsonl files or .parquet files")
    tok.add_argument("-o", "--output", required=True, metavar="DIR", help="folder for the shards and index.json")
    _encoding_args(tok)
    tok.add_argument("--by-line", action="store_true", help="each line of a text file is a document")
    tok.add_argument("--format", choices=["npy", "bin"], default="npy", help="shard files (default npy)")
    tok.add_argument("--dtype", choices=["uint16", "uint32"], default=None, help="default: uint16 if every id fits")
    tok.add_argument("--eot", default="default",
                     help="id or token text put after each document, or 'none' (default: the encoding's end of text)")
    tok.add_argument("--shard-size", type=int, default=100_000_000, help="tokens per shard (default 100M)")
    tok.add_argument("--resume", action="store_true", help="continue an interrupted run in DIR")
    tok.add_argument("-q", "--quiet", action="store_true", help="no progress line")

    count = sub.add_parser("count", help="count the tokens of files (stdin when none)")
    count.add_argument("files", nargs="*", metavar="FILES", help="text, .jsonl or .parquet files (default: stdin)")
    _encoding_args(count)
    return parser


def _read_text(text: str | None, path: str | None) -> str:
    if text is not None:
        return text
    if path is not None:
        with open(path, encoding="utf-8") as f:
            return f.read()
    return sys.stdin.read()


def run_view(args: argparse.Namespace) -> int:
    """encode, decode, inspect, show and visualize: load the models, call tokenforge.views."""
    from tokenforge.views import codec, models

    if args.command == "inspect":
        from tokenforge.views.summary import describe

        print(describe(models.load_model(args.model)))
    elif args.command == "encode":
        model = models.load_model(args.model)
        texts = list(args.texts) + [_read_text(None, p) for p in args.file]
        print(codec.encode_all(model, texts or [sys.stdin.read()], args.json, args.allow_special))
    elif args.command == "decode":
        model = models.load_model(args.model)
        if args.ids:
            sequences = [codec.parse_ids(" ".join(args.ids))]
        else:
            sequences = [codec.parse_ids(line) for line in sys.stdin if line.strip()]
        print(codec.decode_all(model, sequences))
    elif args.command == "show":
        from tokenforge.views import terminal

        color = not args.no_color and sys.stdout.isatty() and not os.environ.get("NO_COLOR")
        loaded = [models.load_model(m) for m in args.model]
        if args.merges is not None:
            print("\n\n".join(terminal.show_merges(m, args.merges, color) for m in loaded))
        else:
            print(terminal.show(loaded, _read_text(args.text, args.file), color))
    elif args.command == "visualize":
        from tokenforge.views import page

        if len(args.model) > 2:
            raise ValueError("visualize shows one or two models side by side")
        sample = _read_text(None, args.file) if args.file else None
        path = page.write_page([models.load_model(m) for m in args.model], args.output, sample)
        print(f"wrote {path}")
    return 0


def _encoding_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--encoding", default="cl100k_base",
                   help="encoding name, .tiktoken, .model or tokenizer.json file (default cl100k_base)")
    p.add_argument("--pattern", default=None, help="split pattern for a .tiktoken file of no known name (default cl100k)")
    p.add_argument("--field", default="text", help="JSONL key / Parquet column of the text (default text)")
    p.add_argument("--errors", choices=["strict", "skip", "replace"], default="strict",
                   help="bad input: fail naming file and line (default), skip the record, or decode as U+FFFD")
    p.add_argument("--threads", type=int, default=None, help="encoding threads (default: TOKENFORGE_NUM_THREADS or all cores)")


def tokenize(args: argparse.Namespace) -> int:
    from tokenforge.data import tokenize_files

    s = tokenize_files(args.inputs, args.output, encoding=args.encoding, pattern=args.pattern, by_line=args.by_line,
                       field=args.field, fmt=args.format, dtype=args.dtype,
                       eot=None if args.eot == "none" else args.eot, shard_size=args.shard_size, errors=args.errors,
                       resume=args.resume, num_threads=args.threads, progress=not args.quiet)
    print(f"documents {s.documents}")
    print(f"tokens    {s.tokens}")
    print(f"input     {s.bytes / 1e6:.1f} MB in {s.seconds:.1f} s ({s.bytes / 1e6 / max(s.seconds, 1e-9):.1f} MB/s)")
    print(f"shards    {s.shards} in {s.output}")
    if s.skipped or s.replaced or args.errors != "strict":
        print(f"errors    {s.skipped} records skipped, {s.replaced} with invalid UTF-8 replaced")
    return 0


def count(args: argparse.Namespace) -> int:
    from tokenforge.data import count_files
    from tokenforge.data.count import count_stream
    from tokenforge.data.encoders import as_encoder

    encoder = as_encoder(args.encoding, args.pattern)
    if not args.files:
        n = count_stream(sys.stdin.buffer, encoder, errors=args.errors, num_threads=args.threads)
        print(n)
        return 0
    counts = count_files(args.files, encoder, field=args.field, errors=args.errors, num_threads=args.threads)
    for path, n in counts.items():
        print(f"{n:>12} {path}")
    print(f"{sum(counts.values()):>12} total")
    return 0


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
        if args.command == "tokenize":
            return tokenize(args)
        if args.command == "convert":
            from tokenforge import cli_convert

            return cli_convert.run(args)
        if args.command == "count":
            return count(args)
        return run_view(args)
    except BrokenPipeError:  # `tokenforge encode ... | head`: the reader is gone, as for any Unix tool
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except (OSError, ValueError, ImportError) as e:
        print(f"tokenforge {args.command}: error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    return 2


if __name__ == "__main__":
    sys.exit(main())
