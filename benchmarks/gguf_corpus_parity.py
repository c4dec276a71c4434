"""Whole-corpus parity of the GGUF tokenizers with each model's reference, and their speed.

Every line of each ../shared/corpus file (or its first --max-mb MB) is encoded by the GGUF
tokenizer and by the same model's reference library; the script prints the lines compared,
the lines that differ (with the first one) and both sides' thread CPU time (the tests do the
same on samples; this is the full run they leave to benchmarks/).

    python benchmarks/gguf_corpus_parity.py [--max-mb 4] [--files en code multi mixed] [PAIR ...]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
import unicodedata

from _common import MODELS, corpus_text


def _hf(path):
    import tokenizers

    ref = tokenizers.Tokenizer.from_file(str(path))
    ref.no_padding()
    ref.no_truncation()
    return lambda s: ref.encode(s, add_special_tokens=False).ids


def pairs():
    """name -> () -> (ours, reference, keep-line filter)."""
    from tokenforge.gguf import load, vocab_from_sentencepiece, write_vocab, GGUFTokenizer
    from tokenforge.gguf.convert import vocab_from_tokenizer_json

    gguf_dir = MODELS / "gguf"

    def spm(name):
        import sentencepiece

        tok = load(gguf_dir / f"ggml-vocab-{name}.gguf")
        ref = sentencepiece.SentencePieceProcessor(model_file=str(MODELS / "sentencepiece" / "llama2_tokenizer.model"))
        # Phi-3's </s> is USER_DEFINED: llama.cpp (and Phi-3's own tokenizer) cut it out.
        keep = (lambda s: "</s>" not in s) if name == "phi-3" else None
        return (lambda s: tok.encode(s, add_special=False)), ref.encode, keep

    def gpt2():
        import tiktoken

        from tokenforge import patterns
        from tokenforge.formats.tiktoken_bpe import load_tiktoken_bpe

        ranks = load_tiktoken_bpe(MODELS / "tiktoken" / "r50k_base.tiktoken")
        ref = tiktoken.Encoding("r50k", pat_str=patterns.GPT2, mergeable_ranks=ranks, special_tokens={})
        tok = load(gguf_dir / "ggml-vocab-gpt-2.gguf")
        return (lambda s: tok.encode(s, add_special=False)), ref.encode_ordinary, None

    def hf(name, json_name, keep=None):
        tok = load(gguf_dir / f"ggml-vocab-{name}.gguf")
        return (lambda s: tok.encode(s, add_special=False, parse_special=True)), _hf(MODELS / "hf" / json_name), keep

    def deepseek_v3():
        path = MODELS / "hf" / "deepseek_v3_tokenizer.json"
        tok = GGUFTokenizer(vocab_from_tokenizer_json(path))
        return (lambda s: tok.encode(s, add_special=False, parse_special=True)), _hf(path), None

    def t5():
        import sentencepiece

        model = MODELS / "sentencepiece" / "rut5_spiece.model"
        with tempfile.TemporaryDirectory() as d:
            write_vocab(vocab_from_sentencepiece(model), f"{d}/rut5.gguf")
            tok = load(f"{d}/rut5.gguf")
        ref = sentencepiece.SentencePieceProcessor(model_file=str(model))
        return (lambda s: tok.encode(s, add_special=False)), ref.encode, None

    def spm_json(json_name, keep=None):
        from tokenforge.gguf import vocab_from_json

        path = MODELS / "hf" / json_name
        tok = GGUFTokenizer(vocab_from_json(path))
        return (lambda s: tok.encode(s, add_special=False, parse_special=True)), _hf(path), keep

    def cl100k_tiktoken():
        import tiktoken

        from tokenforge import Encoding, patterns
        from tokenforge.formats.tiktoken_bpe import load_tiktoken_bpe
        from tokenforge.gguf import vocab_from_encoding

        ranks = load_tiktoken_bpe(MODELS / "tiktoken" / "cl100k_base.tiktoken")
        ref = tiktoken.Encoding("cl100k", pat_str=patterns.CL100K, mergeable_ranks=ranks, special_tokens={})
        tok = GGUFTokenizer(vocab_from_encoding(Encoding("cl100k", pat_str=patterns.CL100K, mergeable_ranks=ranks,
                                                         special_tokens={})))
        return (lambda s: tok.encode(s, add_special=False)), ref.encode_ordinary, None

    return {
        "gpt35-json": lambda: spm_json("gpt35turbo_tokenizer.json"),  # byte-level: llama-bpe
        "cl100k-tiktoken": cl100k_tiktoken,
        "mistral-json": lambda: spm_json("mistral_v1_tokenizer.json"),
        # Gemma's user-defined runs of ▁ are matched by HF in the raw text (see test_gguf_spm_json.py)
        "gemma-json": lambda: spm_json("gemma_tokenizer.json", lambda s: "\u2581" not in s),
        # ruT5's file keeps a trailing space (llama.cpp drops it); ties and charsmap differences
        # between tokenizers and sentencepiece remain (the GGUF follows sentencepiece)
        "rut5-json": lambda: spm_json("rut5_tokenizer.json", lambda s: s == s.rstrip()),
        "llama-spm": lambda: spm("llama-spm"),
        "phi-3": lambda: spm("phi-3"),
        "gpt-2": gpt2,
        "llama-bpe": lambda: hf("llama-bpe", "llama3_tokenizer.json"),
        "qwen2": lambda: hf("qwen2", "qwen3_tokenizer.json",
                            lambda s: unicodedata.is_normalized("NFC", s) and "<|" not in s),
        "deepseek-v3": deepseek_v3,
        "t5-rut5": t5,
    }


def main() -> None:
    table = pairs()
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pairs", nargs="*", default=list(table))
    ap.add_argument("--files", nargs="*", default=["en", "code", "multi", "mixed"])
    ap.add_argument("--max-mb", type=float, default=4.0)
    args = ap.parse_args()
    texts = {f: corpus_text(f, int(args.max_mb * 1e6)).split("\n") for f in args.files}
    print(f"{'pair':12} {'file':6} {'lines':>8} {'differ':>6} {'ours s':>8} {'ref s':>8} {'ref/ours':>8}  first difference")
    for name in args.pairs:
        ours, ref, keep = table[name]()
        for f, lines in texts.items():
            lines = [s for s in lines if s and (keep is None or keep(s))]
            t0 = time.thread_time()
            a = [ours(s) for s in lines]
            t1 = time.thread_time()
            b = [ref(s) for s in lines]
            t2 = time.thread_time()
            bad = [i for i in range(len(lines)) if a[i] != b[i]]
            first = repr(lines[bad[0]][:60]) if bad else ""
            print(f"{name:12} {f:6} {len(lines):8} {len(bad):6} {t1 - t0:8.2f} {t2 - t1:8.2f} "
                  f"{(t2 - t1) / max(t1 - t0, 1e-9):8.2f}  {first}", flush=True)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
