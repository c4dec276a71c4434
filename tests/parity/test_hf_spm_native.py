"""The native SentencePiece-style path (tokenforge.tokenizer.native_spm) against HF tokenizers
0.23.3: which files take it (and, for ruT5's charsmap, that documents stay native), and
every field identical on 4 KB documents of each corpus
(single and batch, pairs, with and without special tokens), on long runs that take the
heap merge, on added tokens spliced in, on unknown characters without byte fallback, and on
Metaspace pre-tokenizers of every prepend scheme (written into Mistral's file).  The corpus
lines of every file in ../shared/models/hf are compared in test_hf_json_parity.py."""

from __future__ import annotations

import functools
import json
import random

import pytest
from _hf_json import diff, lines, load
from _shared import MODELS, corpus_sample, need_shared

NATIVE = ["mistral_v1_tokenizer.json", "gemma_tokenizer.json", "rut5_tokenizer.json"]
SPM_NATIVE = ["llama2_tokenizer.model", "mistral_v1_tokenizer.model", "mistral_v3_tokenizer.model",
              "llama2c_tok512.model", "botchan_en_bpe_1000.model", "botchan_en_unigram_1000.model",
              "kyoto_ja_unigram_8000.model", "rut5_spiece.model"]
LONG = ["a" * 300, " " * 200 + "x", "\t" * 100, "😀" * 80, "1234567890" * 40, "中文" * 150, "\n\n\n" * 50 + " y",
        "▁" * 70, "ab" * 200 + "<s>" + "ba" * 100, "x" + "\u0301" * 120]


def _docs(corpus: str, n: int = 6, size: int = 4096) -> list[str]:
    text = corpus_sample(corpus)
    rng = random.Random(corpus)
    out = []
    for _ in range(n):
        a = rng.randrange(max(1, len(text) - size))
        out.append(text[a:a + size])
    return out


def _same(ref, ours, texts, **kw) -> None:
    for t in texts:
        d = diff(ref.encode(t, **kw), ours.encode(t, **kw))
        assert d is None, f"{t[:60]!r} {kw}: {d}"


@functools.lru_cache(maxsize=None)
def _variant(edit: str):
    """Mistral's file with its normalizer and pre-tokenizer replaced (edit names how)."""
    import tokenizers

    from tokenforge.tokenizer import Tokenizer

    d = json.loads((MODELS / "hf" / "mistral_v1_tokenizer.json").read_text(encoding="utf-8"))
    if edit.startswith("metaspace"):
        _, scheme, split = edit.split("-")
        d["normalizer"] = None
        d["pre_tokenizer"] = {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": scheme,
                              "split": split == "split"}
    elif edit == "no-byte-fallback":
        d["model"]["byte_fallback"] = False
    elif edit == "no-fuse":
        d["model"]["byte_fallback"] = False
        d["model"]["fuse_unk"] = False
    elif edit == "lowercase":
        d["normalizer"]["normalizers"].insert(0, {"type": "Lowercase"})
    elif edit == "strip":
        d["normalizer"]["normalizers"].insert(0, {"type": "Strip", "strip_left": True, "strip_right": True})
    elif edit == "replace-only":
        d["normalizer"] = {"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"}
    elif edit == "no-merges":  # characters and byte tokens only (an empty merge table, once a UBSan report)
        d["model"]["merges"] = []
    s = json.dumps(d, ensure_ascii=False)
    return tokenizers.Tokenizer.from_str(s), Tokenizer.from_str(s)


def _is_native(tok) -> bool:
    from tokenforge.tokenizer.native_spm import NativeSpm

    return isinstance(tok._native_engine(), NativeSpm)


@pytest.mark.parametrize("name", NATIVE)
def test_files_take_the_native_path(name):
    need_shared()
    assert _is_native(load(name)[1])


def test_which_pipelines_are_native():
    need_shared()
    from tokenforge import Tokenizer

    for name in SPM_NATIVE:  # charsmaps, whitespace removal, BPE and Unigram
        assert _is_native(Tokenizer.from_sentencepiece(MODELS / "sentencepiece" / name)), name
    assert not _is_native(_variant("strip")[1])  # a normalizer it does not run
    assert _is_native(_variant("lowercase")[1])  # run ahead of the encoder (spm_prechain.py)


@pytest.mark.parametrize("corpus", ["en", "code", "multi", "mixed"])
def test_charsmap_documents_stay_native(corpus):
    """ruT5's Precompiled charsmap runs natively on every document, marks, Hangul and emoji
    sequences included (only a control character the charsmap deletes at the start of a
    stretch leaves a text to Python)."""
    need_shared()
    native = load("rut5_tokenizer.json")[1]._native_engine()
    for d in _docs(corpus, 10):
        if d[:1] >= " " and not any(c < " " and c not in "\t\n\r" for c in d):
            assert native.encode(d) is not None, d[:60]


def test_graphemes_against_tokenizers():
    """Text built to make graphemes matter to ruT5's charsmap: decomposed accents, a replaced
    character followed by marks, CR LF, prepends, Hangul jamo, emoji ZWJ and modifier
    sequences, regional indicators, Indic conjuncts, deleted control characters."""
    need_shared()
    ref, ours = load("rut5_tokenizer.json")
    native = ours._native_engine()
    rng = random.Random(15)
    parts = ["e\u0301", "A\u030a", "\u00b2\u0301", "\ufb01\u0308", "\u00bd\u200d", "\r\n", "\r", "\u0600" "12",
             "\u1100\u1161\u11a8", "\uac00\u11a8", "\U0001f468\u200d\U0001f469\u200d\U0001f467",
             "\U0001f44d\U0001f3fb", "\U0001f1fa\U0001f1f8\U0001f1eb", "\u0915\u094d\u0937", "\u00b2\u094d\u0915",
             "a\x01b", "\u0e01\u0e33", "\u0645\u064e", " ", "  ", "x", "\u3000", "\uff21\u0301"]
    texts = ["".join(rng.choice(parts) for _ in range(rng.randrange(1, 12))) for _ in range(400)]
    texts = ["x" + t for t in texts]  # a control character deleted first in a stretch takes the Python path
    for t in texts:
        fast = native.encode(t)
        assert fast is not None, repr(t)
        assert diff(ref.encode(t, add_special_tokens=False), fast) is None, repr(t)
    _same(ref, ours, texts[:100])


@pytest.mark.parametrize("name", NATIVE)
@pytest.mark.parametrize("corpus", ["en", "code", "multi", "mixed"])
def test_documents_single_and_batch(name, corpus):
    need_shared()
    ref, ours = load(name)
    docs = _docs(corpus)
    for s in (True, False):
        _same(ref, ours, docs, add_special_tokens=s)
        for x, y in zip(ref.encode_batch(docs, add_special_tokens=s), ours.encode_batch(docs, add_special_tokens=s)):
            assert diff(x, y) is None
        fast = ours.encode_batch_fast(docs, add_special_tokens=s)
        assert [e.ids for e in fast] == [e.ids for e in ref.encode_batch_fast(docs, add_special_tokens=s)]
    pairs = list(zip(docs[::2], docs[1::2]))
    for x, y in zip(ref.encode_batch(pairs), ours.encode_batch(pairs)):
        assert diff(x, y) is None


@pytest.mark.parametrize("name", NATIVE)
def test_long_runs_and_added_tokens(name):
    need_shared()
    ref, ours = load(name)
    added = [t.content for _, t in sorted(ref.get_added_tokens_decoder().items())]
    rng = random.Random(9)
    texts = list(LONG)
    for ln in lines("en", 20, seed=9):
        a, b = rng.sample(added, 2)
        cut = rng.randrange(len(ln) + 1)
        texts += [ln[:cut] + a + ln[cut:] + b, a + b + ln, ln + " " + a + "  " + b + " "]
    _same(ref, ours, texts)
    _same(ref, ours, texts, add_special_tokens=False)


@pytest.mark.parametrize("edit", ["metaspace-always-split", "metaspace-first-split", "metaspace-never-split",
                                  "metaspace-always-nosplit", "metaspace-first-nosplit", "no-byte-fallback",
                                  "no-fuse", "replace-only", "no-merges"])
def test_pipeline_variants(edit):
    need_shared()
    ref, ours = _variant(edit)
    assert _is_native(ours)
    texts = lines("en", 25, seed=10) + lines("multi", 25, seed=10) + lines("mixed", 10, seed=10) + LONG
    texts += ["", " ", "  a", "a  ", "<s> hi", "hi <s>", " <s>", "<s>", "x</s>y", "\u2581a \u2581"]
    _same(ref, ours, texts)
    _same(ref, ours, texts[:20], pair="and the pair")


@pytest.mark.parametrize("name", SPM_NATIVE)
def test_from_sentencepiece_native(name):
    """Tokenizer.from_sentencepiece: the native path gives what tokenizers gives on the
    written file."""
    need_shared()
    import tokenizers

    from tokenforge import Tokenizer

    ours = Tokenizer.from_sentencepiece(MODELS / "sentencepiece" / name)
    ref = tokenizers.Tokenizer.from_str(ours.to_str())
    added = [t.content for t in ours.added.tokens.values()][:20]
    texts = lines("en", 20, seed=11) + lines("multi", 20, seed=11) + LONG
    texts += [ln[:10] + a + ln[10:] for ln, a in zip(lines("code", 20, seed=11), added)]
    texts += ["  Hello   world ", " ", "", "x\tz  ", "\ufb01\u2026 \uff21\uff22  ", "<s> hi </s>", "  <s>  "]
    _same(ref, ours, texts)
    docs = _docs("multi", 3)
    for x, y in zip(ref.encode_batch(docs), ours.encode_batch(docs)):
        assert diff(x, y) is None


@pytest.mark.parametrize("name", NATIVE)
@pytest.mark.parametrize("special", [True, False])
def test_documents_finished_natively(name, special):
    """Single texts come back as DocEncodings (the template framed in C++, lists built when
    read): every list equal to tokenizers', whichever field is read first."""
    need_shared()
    from tokenforge.tokenizer.doc_encoding import DocEncoding

    ref, ours = load(name)
    docs = _docs("multi", 4) + lines("en", 10, seed=12) + ["", " ", "<s>", "a</s>b"]
    refs = ref.encode_batch(docs, add_special_tokens=special)
    mine = ours.encode_batch(docs, add_special_tokens=special)
    assert all(type(e) is DocEncoding for e in mine)
    for d, r, e in zip(docs, refs, mine):
        assert e.offsets == r.offsets, d[:60]  # offsets alone first, then the rest
        assert e.ids == r.ids and e.word_ids == r.word_ids and e.tokens == r.tokens, d[:60]
        assert diff(r, e) is None, d[:60]
    for d in docs[:6]:
        e = ours.encode(d, add_special_tokens=special)
        assert type(e) is DocEncoding
        assert e.ids == ref.encode(d, add_special_tokens=special).ids  # ids first
        assert diff(ref.encode(d, add_special_tokens=special), e) is None


@pytest.mark.parametrize("name", NATIVE)
def test_documents_padded_and_truncated(name):
    """Padding on DocEncodings, and truncation (the Encoding path), as tokenizers."""
    need_shared()
    ref, ours = load(name)
    docs = lines("en", 8, seed=13) + _docs("code", 2)
    for t in (ref, ours):
        t.enable_padding(pad_id=0, pad_token="<pad>", pad_to_multiple_of=8)
    try:
        for x, y in zip(ref.encode_batch(docs), ours.encode_batch(docs)):
            assert diff(x, y) is None
        for t in (ref, ours):
            t.enable_truncation(40, stride=5)
        for x, y in zip(ref.encode_batch(docs), ours.encode_batch(docs)):
            assert diff(x, y) is None
    finally:
        for t in (ref, ours):
            t.no_padding()
            t.no_truncation()


@pytest.mark.parametrize("name", NATIVE)
def test_fast_documents(name):
    """encode_batch_fast on documents: every field as tokenizers' (tokens "", offsets (0, 0)
    and word ids None, but a post-processor's special tokens keep their text), also for
    texts the Python path takes (ruT5's charsmap deleting a control character first)."""
    need_shared()
    ref, ours = load(name)
    docs = _docs("multi", 3) + lines("en", 6, seed=14) + ["", "e\u0301 x <s>", "\x01e\u0301 x <s>", "a</s>b"]
    for special in (True, False):
        for x, y in zip(ref.encode_batch_fast(docs, add_special_tokens=special),
                        ours.encode_batch_fast(docs, add_special_tokens=special)):
            assert diff(x, y) is None


@pytest.mark.parametrize("name", NATIVE)
def test_lone_surrogates_raise(name):
    """A lone surrogate: ValueError naming the character, on every entry point (the engine
    finds it: the UTF-8 it encodes shows it as U+FFFD, which a text may also hold itself)."""
    need_shared()
    ref, ours = load(name)
    for bad, at in (("ab\ud800c", 2), ("\u00e9\U0001F600 \udfff", 3), ("\ufffd x \ud83d", 4)):
        for call in (lambda: ours.encode(bad), lambda: ours.encode_batch(["fine", bad]),
                     lambda: ours.encode_batch_fast([bad]), lambda: ours.encode(bad, "pair")):
            with pytest.raises(ValueError, match=f"surrogate at character {at}"):
                call()
    good = ["\ufffd real replacement \u00e9", "x\ufffd\U0001F600"]
    for x, y in zip(ref.encode_batch(good), ours.encode_batch(good)):
        assert diff(x, y) is None
