"""Every shared tokenizer file -> GGUF -> tokenforge, against the file's own reference library.

For each ``.tiktoken`` (tiktoken, on the pattern the file is used with), ``.model``
(sentencepiece) and ``tokenizer.json`` (HF `tokenizers`) in ../shared/models: convert it
with ``tokenforge.gguf`` (``vocab_from_encoding`` / ``vocab_from_sentencepiece`` /
``vocab_from_json``), write the GGUF, load it back and encode lines of the corpora (the first
--max-mb MB of each); prints the lines that differ, or the converter's refusal.  This is the
issue's round-trip check run on every file at once.

    python benchmarks/gguf_round_trips.py [--max-mb 0.3] [--files en code multi mixed]
"""

from __future__ import annotations

import argparse
import tempfile

from _common import MODELS, corpus_text

TIKTOKEN = {"r50k_base": "GPT2", "p50k_base": "GPT2", "cl100k_base": "CL100K", "o200k_base": "O200K",
            "llama3": "LLAMA3", "whisper_multilingual": "GPT2", "claude": "GPT2"}


def cases():
    """name -> () -> (GGUFVocab maker, reference encode, add parse_special)."""
    import sentencepiece
    import tiktoken
    import tokenizers

    from tokenforge import Encoding, patterns
    from tokenforge.formats.tiktoken_bpe import load_tiktoken_bpe
    from tokenforge.gguf import vocab_from_encoding, vocab_from_json, vocab_from_sentencepiece

    out = {}
    for name, pat in TIKTOKEN.items():
        def make(name=name, pat=getattr(patterns, pat)):
            ranks = load_tiktoken_bpe(MODELS / "tiktoken" / f"{name}.tiktoken")
            ref = tiktoken.Encoding(name, pat_str=pat, mergeable_ranks=ranks, special_tokens={})
            return (lambda: vocab_from_encoding(Encoding(name, pat_str=pat, mergeable_ranks=ranks, special_tokens={}))), \
                ref.encode_ordinary, False
        out[f"tiktoken/{name}.tiktoken"] = make
    for path in sorted((MODELS / "sentencepiece").glob("*.model")):
        def make(path=path):
            ref = sentencepiece.SentencePieceProcessor(model_file=str(path))
            return (lambda: vocab_from_sentencepiece(path)), ref.encode, False
        out[f"sentencepiece/{path.name}"] = make
    for path in sorted((MODELS / "hf").glob("*.json")):
        def make(path=path):
            ref = tokenizers.Tokenizer.from_file(str(path))
            ref.no_padding()
            ref.no_truncation()
            return (lambda: vocab_from_json(path)), (lambda s: ref.encode(s, add_special_tokens=False).ids), True
        out[f"hf/{path.name}"] = make
    return out


def main() -> None:
    from tokenforge.gguf import load, write_vocab

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max-mb", type=float, default=0.3)
    ap.add_argument("--files", nargs="*", default=["en", "code", "multi", "mixed"])
    args = ap.parse_args()
    texts = {f: [s for s in corpus_text(f, int(args.max_mb * 1e6)).split("\n") if s] for f in args.files}
    tmp = tempfile.mkdtemp()
    for name, make in cases().items():
        try:
            vocab_of, ref, parse_special = make()
        except (ValueError, OSError) as e:
            print(f"{name:45} the reference cannot load it: {str(e)[:120]}", flush=True)
            continue
        try:
            vocab = vocab_of()
        except ValueError as e:
            print(f"{name:45} refused: {str(e)[:150]}", flush=True)
            continue
        path = f"{tmp}/x.gguf"
        write_vocab(vocab, path)
        tok = load(path)
        row = []
        for f, lines in texts.items():
            bad = [s for s in lines if tok.encode(s, add_special=False, parse_special=parse_special) != ref(s)]
            row.append(f"{f} {len(bad)}/{len(lines)}")
        print(f"{name:45} {vocab.model:5} {vocab.pre or '':10} differ: " + ", ".join(row), flush=True)


if __name__ == "__main__":
    main()
