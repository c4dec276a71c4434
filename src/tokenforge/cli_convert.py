"""``tokenforge convert IN OUT``: a tokenizer file in another format, chosen by suffix.

    tokenforge convert IN OUT [--pre NAME]

``.gguf``, ``.json`` (tokenizer.json), ``.model`` (SentencePiece), ``.tiktoken`` (read only);
the pairs and what each refuses are in :mod:`tokenforge.formats.convert`.

Example:
    >>> import argparse
    >>> sub = argparse.ArgumentParser().add_subparsers(dest="command")
    >>> a = add_parser(sub).parse_args(["cl100k_base.tiktoken", "out.gguf", "--pre", "llama-bpe"])
    >>> a.input, a.output, a.pre
    ('cl100k_base.tiktoken', 'out.gguf', 'llama-bpe')
"""

from __future__ import annotations

import argparse

_PAIRS = """pairs (by suffix):
  .gguf     -> .gguf (rewritten), .json (gpt2 models), .model (llama, t5 models)
  .json     -> .gguf (byte-level BPE -> gpt2, SentencePiece-style BPE -> llama, Unigram -> t5,
               WordPiece -> bert)
  .model    -> .gguf (SentencePiece BPE -> llama, Unigram -> t5)
  .tiktoken -> .gguf (needs --pre unless the pattern is exactly one of llama.cpp's), .json
Anything that would lose information (any .tiktoken output, a pipeline llama.cpp would run
differently) is refused with the reason."""


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("convert", help="convert a tokenizer between .gguf, tokenizer.json, .model and .tiktoken",
                       description="Convert a tokenizer file into another format, chosen by the suffixes.",
                       epilog=_PAIRS, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("input", metavar="IN", help="the file to read")
    p.add_argument("output", metavar="OUT", help="the file to write (replaced atomically)")
    p.add_argument("--pre", metavar="NAME",
                   help="llama.cpp's tokenizer.ggml.pre for a byte-level BPE written to GGUF (e.g. llama-bpe)")
    return p


def run(args: argparse.Namespace) -> int:
    from tokenforge.formats.convert import convert

    print(f"{args.output}: {convert(args.input, args.output, pre=args.pre)}")
    return 0
