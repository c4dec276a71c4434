"""tokenizer.json pipelines that the shared files do not have, made from their vocabularies:

- starcoder: Digits, then ByteLevel (tokenforge cuts the digits out in C++: tokenizer/native_cut.py);
- bloom: a Split regex with nested classes, then a regex-free ByteLevel (cut in Python by the
  regex path: tokenizer/native_splits.py);
- roberta: GPT-2's with RoBERTa's post-processor (tokenizer/native.py's post_plan);
- prefix_space: a lone ByteLevel adding its prefix space (native.py's _with_prefix_space);
- tekken: Llama 3's vocabulary with Mistral's Tekken Split (the native Tekken scanner);
- falcon: Punctuation, ByteLevel, Digits, Split (the native scanner after the class cut, the steps
  after ByteLevel in Python on each new piece: tokenizer/native_splits.py);
- neox: GPT-NeoX's form: NFC, a lone ByteLevel, normalized added tokens of 2 to 24 spaces (each
  a prefix of the next; native.py);
- t5: ruT5's Unigram behind T5's (and DeBERTa's) pre-tokenizer, WhitespaceSplit then Metaspace
  (native_spm.py: each word a stretch of its own);
- quicktour: a BPE trained here as tokenizers' quicktour trains one (Whitespace, [UNK]), with
  NFD/Lowercase/StripAccents (native_spm.py: the word classes split in C++);
  quicktour_wordpiece, quicktour_wordlevel: the same form with WordPiece and WordLevel
  (native_bert.py);
- spm_bpe_class, spm_unigram_class: what tokenizers' SentencePieceBPETokenizer (NFKC, Metaspace,
  BPE) and SentencePieceUnigramTokenizer (Nmt, NFKC, space runs collapsed, Metaspace, Unigram)
  train (spm_prechain.py runs Nmt and the form natively);
- char_bpe_class: what tokenizers' CharBPETokenizer trains (BertNormalizer, BertPreTokenizer, BPE
  with the suffix "</w>"; native_bert.py merges it word by word in C++);
- albert: ruT5's Unigram with ALBERT's normalizer (Replace, NFKD, StripAccents, Lowercase before
  the charsmap: tokenizer/spm_prechain.py), [CLS]/[SEP] and a [MASK] that strips spaces.

`Tokenizer.encode_batch` of ~4 KB documents, offsets read, wall clock (tokenizers on its own
threads, tokenforge on its default threads), best of --repeat; with --python, also the readable
Python pipeline's row (what such files ran on before a native path took them).

Usage:
    python benchmarks/bench_hf_unseen_pipelines.py [--pipelines starcoder ...] [--corpora en code multi]
        [--mb 0.3] [--repeat 3] [--python]
"""

from __future__ import annotations

import argparse
import json
import time

from _common import MODELS, corpus_text, documents


def _byte_level(prefix: bool = False, regex: bool = True) -> dict:
    return {"type": "ByteLevel", "add_prefix_space": prefix, "trim_offsets": True, "use_regex": regex}


def _split(pattern: str, behavior: str = "Isolated") -> dict:
    return {"type": "Split", "pattern": {"Regex": pattern}, "behavior": behavior, "invert": False}


def _pre(steps: list) -> dict:
    return {"pre_tokenizer": {"type": "Sequence", "pretokenizers": steps}}


def _tekken() -> dict:
    from tokenforge import patterns

    d = json.loads((MODELS / "hf" / "llama3_tokenizer.json").read_text(encoding="utf-8"))
    d["pre_tokenizer"]["pretokenizers"][0]["pattern"]["Regex"] = patterns.TEKKEN
    return d


def _albert() -> dict:
    d = json.loads((MODELS / "hf" / "rut5_tokenizer.json").read_text(encoding="utf-8"))
    charsmap = d["normalizer"]["normalizers"][0]
    d["normalizer"] = {"type": "Sequence", "normalizers": [
        {"type": "Replace", "pattern": {"String": "``"}, "content": "\""},
        {"type": "Replace", "pattern": {"String": "''"}, "content": "\""}, {"type": "NFKD"},
        {"type": "StripAccents"}, {"type": "Lowercase"}, charsmap,
        {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "}]}
    n = len(d["model"]["vocab"])
    names = ["[CLS]", "[SEP]", "[MASK]"]
    d["model"]["vocab"] += [[c, 0.0] for c in names]
    d["added_tokens"] += [{"id": n + k, "content": c, "single_word": False, "lstrip": c == "[MASK]", "rstrip": False,
                           "normalized": False, "special": True} for k, c in enumerate(names)]
    d["post_processor"] = {"type": "BertProcessing", "sep": ["[SEP]", n + 1], "cls": ["[CLS]", n]}
    return d


def _neox() -> dict:
    d = json.loads((MODELS / "hf" / "gpt2_tokenizer.json").read_text(encoding="utf-8"))
    d["normalizer"] = {"type": "NFC"}
    d["pre_tokenizer"] = _byte_level()
    d["added_tokens"] += [{"id": 50257 + k, "content": " " * n, "single_word": False, "lstrip": False, "rstrip": False,
                           "normalized": True, "special": False} for k, n in enumerate(range(24, 1, -1))]
    return d


def _quicktour(model: str = "bpe") -> dict:
    """A model trained by tokenizers as its quicktour and docs train one (Whitespace
    pre-tokenizer, an unknown token, the NFD/Lowercase/StripAccents normalizer): BPE,
    WordPiece or WordLevel."""
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, trainers

    specials = ["[UNK]", "[CLS]", "[SEP]"]
    tok, trainer = {
        "bpe": (models.BPE, trainers.BpeTrainer),
        "wordpiece": (models.WordPiece, trainers.WordPieceTrainer),
        "wordlevel": (models.WordLevel, trainers.WordLevelTrainer),
    }[model]
    tok = Tokenizer(tok(unk_token="[UNK]"))
    tok.normalizer = normalizers.Sequence([normalizers.NFD(), normalizers.Lowercase(), normalizers.StripAccents()])
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.train_from_iterator(corpus_text("en", 2_000_000).splitlines(), trainer(vocab_size=8000, special_tokens=specials))
    return json.loads(tok.to_str())


def _spm_class(kind: str = "bpe") -> dict:
    """What tokenizers' SentencePieceBPETokenizer (NFKC, Metaspace, BPE) or
    SentencePieceUnigramTokenizer (Nmt, NFKC, space runs collapsed, Metaspace, Unigram) trains."""
    from tokenizers.implementations import SentencePieceBPETokenizer, SentencePieceUnigramTokenizer

    lines = corpus_text("multi", 2_000_000).splitlines()
    if kind == "bpe":
        tok = SentencePieceBPETokenizer()
        tok.train_from_iterator(lines, vocab_size=8000, special_tokens=["<unk>"])
    else:
        tok = SentencePieceUnigramTokenizer()
        tok.train_from_iterator(lines, vocab_size=8000, special_tokens=["<unk>"], unk_token="<unk>")
    return json.loads(tok.to_str())


def _char_bpe_class() -> dict:
    """What tokenizers' CharBPETokenizer trains (BertNormalizer, BertPreTokenizer, BPE with the
    end-of-word suffix "</w>", as openai-gpt's file has)."""
    from tokenizers.implementations import CharBPETokenizer

    tok = CharBPETokenizer()
    tok.train_from_iterator(corpus_text("en", 2_000_000).splitlines(), vocab_size=8000)
    return json.loads(tok.to_str())


PIPELINES = {  # name: (base file, fields replaced) or a function making the whole file
    "starcoder": ("gpt2", _pre([{"type": "Digits", "individual_digits": True}, _byte_level()])),
    "bloom": ("gpt2", _pre([_split(" ?[^(\\s|[.,!?…。，、।۔،])]+"), _byte_level(regex=False)])),
    "roberta": ("gpt2", {"post_processor": {"type": "RobertaProcessing", "sep": ["</s>", 50256],
                                            "cls": ["<s>", 50256], "trim_offsets": True, "add_prefix_space": False}}),
    "prefix_space": ("gpt2", {"pre_tokenizer": _byte_level(prefix=True)}),
    "tekken": _tekken,
    "falcon": ("gpt2", _pre([{"type": "Punctuation", "behavior": "Contiguous"}, _byte_level(),
                             {"type": "Digits", "individual_digits": False}, _split("[0-9][0-9][0-9]")])),
    "albert": _albert,
    "neox": _neox,
    "quicktour": _quicktour,
    "quicktour_wordpiece": lambda: _quicktour("wordpiece"),
    "quicktour_wordlevel": lambda: _quicktour("wordlevel"),
    "spm_bpe_class": _spm_class,
    "spm_unigram_class": lambda: _spm_class("unigram"),
    "char_bpe_class": _char_bpe_class,
    "t5": ("rut5", _pre([{"type": "WhitespaceSplit"},
                         {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always", "split": True}])),
}


def config(name: str) -> str:
    spec = PIPELINES[name]
    if callable(spec):
        return json.dumps(spec())
    base, fields = spec
    d = json.loads((MODELS / "hf" / f"{base}_tokenizer.json").read_text(encoding="utf-8"))
    d.update(fields)
    return json.dumps(d)


def main() -> None:
    import tokenizers

    from tokenforge.tokenizer import Tokenizer

    ap = argparse.ArgumentParser()
    ap.add_argument("--pipelines", nargs="+", default=list(PIPELINES))
    ap.add_argument("--corpora", nargs="+", default=["en", "code", "multi"])
    ap.add_argument("--mb", type=float, default=0.3)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--python", action="store_true", help="also time the readable Python pipeline")
    args = ap.parse_args()
    for name in args.pipelines:
        text = config(name)
        for corpus in args.corpora:
            docs = documents(corpus_text(corpus, int(args.mb * 1_000_000)))
            size = sum(len(d.encode("utf-8")) for d in docs) / 1e6
            tools = [("tokenizers", tokenizers.Tokenizer.from_str(text)), ("tokenforge", Tokenizer.from_str(text))]
            if args.python:
                python_path = Tokenizer.from_str(text)
                python_path._native_checked = True  # the readable pipeline alone
                object.__setattr__(python_path, "_native", None)
                tools.append(("Python pipeline", python_path))
            rows = {}
            for label, tok in tools:
                tok.no_truncation()
                best = float("inf")
                for _ in range(args.repeat):
                    t0 = time.perf_counter()
                    for e in tok.encode_batch(docs):
                        e.offsets
                    best = min(best, time.perf_counter() - t0)
                rows[label] = size / best
            path = type(tools[1][1]._native_engine()).__name__
            print(f"{name:12} {corpus:5} MB/s: " + "  ".join(f"{k} {v:.2f}" for k, v in rows.items())
                  + f"  |  tokenforge vs tokenizers {rows['tokenforge'] / rows['tokenizers']:.2f}x  ({path})", flush=True)


if __name__ == "__main__":
    main()
