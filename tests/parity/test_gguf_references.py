"""The GGUF tokenizers against the reference library of the same model, on corpus lines.

llama.cpp's vectors are ~50 hard strings per vocabulary; here the test vocabularies (and
GGUFs made from shared model files) encode a sample of lines of every corpus file, compared
with the model's own reference: sentencepiece for Llama 2 (llama-spm, and phi-3, whose
vocabulary is Llama 2's plus added tokens), tiktoken r50k_base for gpt-2, HF `tokenizers`
for Llama 3 (llama-bpe), Qwen (qwen2 against the Qwen3 tokenizer.json, which has the same
vocabulary and merges; on NFC lines, as that file normalizes to NFC) and DeepSeek V3 (a GGUF
made from its tokenizer.json, whose three Split regexes are llama.cpp's ``deepseek-v3``), and
sentencepiece for a Unigram ``t5`` GGUF made from ruT5's ``.model``, and HF `tokenizers`
for BERT (bert-bge, whose vocabulary is bert-base-uncased's, against all-MiniLM-L6-v2's
tokenizer.json, the same vocabulary) on the lines where llama.cpp's WPM rules and HF's BERT
pipeline do not differ by design (see tokenforge.gguf.wordpiece).  HF `tokenizers`
recognises added tokens in the text, so those comparisons parse special tokens.
"""

from __future__ import annotations

import unicodedata

import pytest
from _gguf import bert_reference, need_gguf, tokenizer
from _shared import CORPUS_FILES, MODELS, corpus_sample

LINES_PER_FILE = 400


@pytest.fixture(scope="module")
def lines() -> list[str]:
    """The first 50 lines of each corpus file and evenly spaced others (the head of mixed.txt
    holds its hardest cases); empty lines dropped."""
    need_gguf()
    out = []
    for name in CORPUS_FILES:
        text = corpus_sample(name).split("\n")
        step = max(1, len(text) // LINES_PER_FILE)
        out += [t for t in text[:50] + text[50::step] if t]
    return out


def _mismatches(encode, reference, lines) -> list:
    return [(line[:80], encode(line)[:20], reference(line)[:20]) for line in lines if encode(line) != reference(line)]


@pytest.mark.parametrize("name", ["llama-spm", "phi-3"])
def test_spm_vs_sentencepiece(name, lines):
    spm = pytest.importorskip("sentencepiece")
    ref = spm.SentencePieceProcessor(model_file=str(MODELS / "sentencepiece" / "llama2_tokenizer.model"))
    tok = tokenizer(name)
    if name == "phi-3":  # its </s> is USER_DEFINED: llama.cpp (and Phi-3's own tokenizer) cut it out
        lines = [s for s in lines if "</s>" not in s]
    bad = _mismatches(lambda s: tok.encode(s, add_special=False), ref.encode, lines)
    assert not bad, f"{len(bad)} of {len(lines)} lines differ; first: {bad[0]}"


def test_gpt2_vs_tiktoken(lines):
    tiktoken = pytest.importorskip("tiktoken")
    from tokenforge.formats.tiktoken_bpe import load_tiktoken_bpe

    ranks = load_tiktoken_bpe(MODELS / "tiktoken" / "r50k_base.tiktoken")
    from tokenforge import patterns

    ref = tiktoken.Encoding("r50k", pat_str=patterns.GPT2, mergeable_ranks=ranks, special_tokens={})
    tok = tokenizer("gpt-2")
    bad = _mismatches(lambda s: tok.encode(s, add_special=False), ref.encode_ordinary, lines)
    assert not bad, f"{len(bad)} of {len(lines)} lines differ; first: {bad[0]}"


def _hf(path):
    tokenizers = pytest.importorskip("tokenizers")
    ref = tokenizers.Tokenizer.from_file(str(path))
    ref.no_padding()
    ref.no_truncation()
    return lambda s: ref.encode(s, add_special_tokens=False).ids


def test_llama_bpe_vs_tokenizers(lines):
    ref = _hf(MODELS / "hf" / "llama3_tokenizer.json")
    tok = tokenizer("llama-bpe")
    bad = _mismatches(lambda s: tok.encode(s, add_special=False, parse_special=True), ref, lines)
    assert not bad, f"{len(bad)} of {len(lines)} lines differ; first: {bad[0]}"


def test_qwen2_vs_tokenizers(lines):
    ref = _hf(MODELS / "hf" / "qwen3_tokenizer.json")
    tok = tokenizer("qwen2")
    # Qwen3's file adds tokens (<|fim_middle|>, ...) that Qwen2's vocabulary has as plain text.
    nfc = [s for s in lines if unicodedata.is_normalized("NFC", s) and "<|" not in s]
    bad = _mismatches(lambda s: tok.encode(s, add_special=False, parse_special=True), ref, nfc)
    assert not bad, f"{len(bad)} of {len(nfc)} lines differ; first: {bad[0]}"


def test_deepseek_v3_sequence_of_regexes_vs_tokenizers(lines):
    from tokenforge.gguf import GGUFTokenizer
    from tokenforge.gguf.convert import vocab_from_tokenizer_json

    path = MODELS / "hf" / "deepseek_v3_tokenizer.json"
    ref = _hf(path)
    vocab = vocab_from_tokenizer_json(path)
    assert vocab.pre == "deepseek-v3"  # found from the file's three Split regexes
    tok = GGUFTokenizer(vocab)
    bad = _mismatches(lambda s: tok.encode(s, add_special=False, parse_special=True), ref, lines)
    assert not bad, f"{len(bad)} of {len(lines)} lines differ; first: {bad[0]}"


def test_t5_unigram_vs_sentencepiece(lines, tmp_path):
    spm = pytest.importorskip("sentencepiece")
    from tokenforge.gguf import load, vocab_from_sentencepiece, write_vocab

    model = MODELS / "sentencepiece" / "rut5_spiece.model"
    write_vocab(vocab_from_sentencepiece(model), tmp_path / "rut5.gguf")
    tok = load(tmp_path / "rut5.gguf")
    ref = spm.SentencePieceProcessor(model_file=str(model))
    bad = _mismatches(lambda s: tok.encode(s, add_special=False), ref.encode, lines)
    assert not bad, f"{len(bad)} of {len(lines)} lines differ; first: {bad[0]}"


def _bert_rules_differ(line: str, hf) -> bool:
    """Lines where llama.cpp's WPM differs from HF's BERT pipeline by design: combining marks
    (HF drops them), characters whose NFD holds more than one non-mark code point (llama.cpp
    keeps the first) or whose lowercase is longer, category-C code points HF's normalizer
    keeps (llama.cpp drops every \\p{C}), and words over HF's 100 characters."""
    for c in set(line):
        cat = unicodedata.category(c)
        d = unicodedata.normalize("NFD", c)
        if cat == "Mn" or any(unicodedata.category(x) != "Mn" for x in d[1:]) or len(d[0].lower()) > 1:
            return True
        if cat[0] == "C" and c not in "\t\n\r" and hf.normalizer.normalize_str(c) != "":
            return True
    words = hf.pre_tokenizer.pre_tokenize_str(hf.normalizer.normalize_str(line))
    return any(len(w) > 100 for w, _ in words)


def test_bert_vs_tokenizers(lines):
    ref = bert_reference()
    tok = tokenizer("bert-bge")
    same_rules = [s for s in lines if not _bert_rules_differ(s, ref)]
    assert len(same_rules) > 0.8 * len(lines)
    bad = _mismatches(lambda s: tok.encode(s, add_special=False, parse_special=True),
                      lambda s: ref.encode(s, add_special_tokens=False).ids,
                      same_rules)
    assert not bad, f"{len(bad)} of {len(same_rules)} lines differ; first: {bad[0]}"
    text = "Hello, World!"  # [CLS] ... [SEP] as BERT's post-processor adds them
    assert tok.encode(text) == ref.encode(text).ids


def test_bert_tokenizer_json_converts_as_llama_cpp_does():
    """Our WordPiece -> GGUF conversion gives the tokens, types and ids of llama.cpp's own
    converter (the test vocabulary was made from the same bert-base-uncased vocabulary)."""
    from _gguf import read
    from tokenforge.gguf import vocab_from_wordpiece

    ours = vocab_from_wordpiece(MODELS / "hf" / "minilm_bert_uncased_tokenizer.json")
    theirs = read("bert-bge")
    assert ours.tokens == theirs.tokens and ours.token_types == theirs.token_types
    assert {k: ours.special_ids[k] for k in theirs.special_ids} == theirs.special_ids
