"""Offsets of `Tokenizer.from_gguf` (``t5``: ruT5 written as a GGUF; ``bert``: llama.cpp's
bert-bge vocabulary) against HF `tokenizers` on every line of the corpora, where the ids agree.

Prints, per model and corpus: the lines, those whose ids agree, those of them whose offsets
differ, and how many of these tokenforge's own tokenizer.json path (MiniLM for bert) gets
wrong too, with the first few differing tokens (the tests do the same on samples).

    python benchmarks/gguf_offsets_parity.py [--max-mb 4] [--files en code multi mixed]
"""

from __future__ import annotations

import argparse
import tempfile

from _common import MODELS, corpus_text


def main() -> None:
    import tokenizers

    import tokenforge

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max-mb", type=float, default=4)
    ap.add_argument("--files", nargs="*", default=["en", "code", "multi", "mixed"])
    args = ap.parse_args()
    tmp = tempfile.mkdtemp()
    hf = MODELS / "hf"
    tokenforge.Tokenizer.from_file(hf / "rut5_tokenizer.json").to_gguf(f"{tmp}/rut5.gguf")
    bert_ref = tokenizers.Tokenizer.from_file(str(hf / "minilm_bert_uncased_tokenizer.json"))
    bert_json = tokenforge.Tokenizer.from_file(hf / "minilm_bert_uncased_tokenizer.json")
    for t in (bert_ref, bert_json):
        t.no_padding()
        t.no_truncation()
    pairs = {"t5": (tokenforge.Tokenizer.from_gguf(f"{tmp}/rut5.gguf"),
                    tokenizers.Tokenizer.from_file(str(hf / "rut5_tokenizer.json")),
                    tokenforge.Tokenizer.from_file(hf / "rut5_tokenizer.json")),
             "bert": (tokenforge.Tokenizer.from_gguf(MODELS / "gguf" / "ggml-vocab-bert-bge.gguf"), bert_ref, bert_json)}
    for name, (tok, ref, ours_json) in pairs.items():
        for corpus in args.files:
            lines = corpus_text(corpus, int(args.max_mb * 1e6)).split("\n")
            agree = differ = json_too = 0
            shown = []
            for line in lines:
                ours, theirs = tok.encode(line, add_special_tokens=False), ref.encode(line, add_special_tokens=False)
                if ours.ids != theirs.ids:
                    continue
                agree += 1
                want = [tuple(o) for o in theirs.offsets]
                if ours.offsets == want:
                    continue
                differ += 1
                json_too += ours_json.encode(line, add_special_tokens=False).offsets != want
                if len(shown) < 3:
                    k = next(k for k, (a, b) in enumerate(zip(ours.offsets, want)) if a != b)
                    shown.append(f"{ours.tokens[k]!r} {ours.offsets[k]} vs {want[k]} in {line[:60]!r}")
            print(f"{name:5} {corpus:6} lines {len(lines):7} ids agree {agree:7} offsets differ {differ:5}"
                  f" (tokenizer.json path differs too: {json_too})", flush=True)
            for s in shown:
                print("      ", s)


if __name__ == "__main__":
    main()
