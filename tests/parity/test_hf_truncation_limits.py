"""Truncation at the edge of each text's length, against HF tokenizers 0.23.3: the native
paths finish an Encoding and keep it when truncation would leave it as it is
(`Tokenizer._untruncated`), and re-encode it on the Python path otherwise.  Here max_length
is set around each text's own finished length (one less, equal, one more), and to the small
limits where the room left for the text is zero or less (a post-processor adding one or two
tokens), with and without special tokens, through encode, encode_batch and
encode_batch_fast, with padding on: every field and the overflowing windows as tokenizers.
"""

from __future__ import annotations

import pytest
from _hf_json import HF_FILES, diff, lines, load
from _shared import need_shared

pytestmark = pytest.mark.skipif(not HF_FILES, reason="needs ../shared/models/hf")

# One file per native path: byte-level (no added tokens), WordPiece with [CLS]/[SEP],
# SentencePiece-style BPE with <s>, Unigram with </s>, Llama 3's template, DeepSeek's.
FILES = [f for f in ("gpt2_tokenizer.json", "minilm_bert_uncased_tokenizer.json", "mistral_v1_tokenizer.json",
                     "rut5_tokenizer.json", "llama3_tokenizer.json", "deepseek_v3_tokenizer.json") if f in HF_FILES]


def _outcome(call):
    """The Encodings, or the kind of error (tokenizers panics where the limit is below the
    post-processor's tokens: a BaseException that is not an Exception)."""
    try:
        return call()
    except BaseException as e:  # noqa: BLE001 - pyo3's PanicException derives from BaseException
        if isinstance(e, (KeyboardInterrupt, SystemExit)):
            raise
        return e


def _same(ref_out, our_out, what):
    if isinstance(ref_out, BaseException):
        assert isinstance(our_out, ValueError), f"{what}: tokenizers raised {ref_out!r}, ours gave {our_out!r}"
        return
    assert not isinstance(our_out, BaseException), f"{what}: ours raised {our_out!r}"
    for k, (x, y) in enumerate(zip(ref_out, our_out)):
        d = diff(x, y)
        assert d is None, f"{what} item {k}: {d}"
    assert len(ref_out) == len(our_out)


@pytest.mark.parametrize("name", FILES)
def test_limits_around_each_length(name):
    need_shared()
    ref, ours = load(name)
    texts = lines("en", 6, seed=5) + lines("multi", 4, seed=5) + ["", " ", "a"]
    for special in (True, False):
        full = [len(e.ids) for e in ref.encode_batch(texts, add_special_tokens=special)]
        limits = sorted({n + d for n in full for d in (-1, 0, 1) if n + d > 0} | {1, 2, 3})
        for limit in limits:
            for pad in (False, True):
                for t in (ref, ours):
                    t.enable_truncation(limit, stride=0)
                    if pad:
                        t.enable_padding(pad_id=0, pad_token="<pad>")
                    else:
                        t.no_padding()
                try:
                    what = f"{name} max_length={limit} special={special} pad={pad}"
                    for text in texts:
                        _same(_outcome(lambda: [ref.encode(text, add_special_tokens=special)]),
                              _outcome(lambda: [ours.encode(text, add_special_tokens=special)]), f"{what} {text[:30]!r}")
                    _same(_outcome(lambda: ref.encode_batch(texts, add_special_tokens=special)),
                          _outcome(lambda: ours.encode_batch(texts, add_special_tokens=special)), f"{what} batch")
                    a = _outcome(lambda: ref.encode_batch_fast(texts, add_special_tokens=special))
                    b = _outcome(lambda: ours.encode_batch_fast(texts, add_special_tokens=special))
                    if isinstance(a, BaseException):
                        assert isinstance(b, ValueError), f"{what} fast: tokenizers raised {a!r}, ours gave {b!r}"
                    else:
                        assert [(e.ids, e.type_ids, e.attention_mask, e.special_tokens_mask) for e in a] == \
                               [(e.ids, e.type_ids, e.attention_mask, e.special_tokens_mask) for e in b], f"{what} fast"
                        assert [[o.ids for o in e.overflowing] for e in a] == [[o.ids for o in e.overflowing] for e in b]
                finally:
                    for t in (ref, ours):
                        t.no_truncation()
                        t.no_padding()


@pytest.mark.parametrize("name", FILES)
def test_pairs_at_small_limits(name):
    """Pairs take the Python path; limits below, at and just above the post-processor's tokens
    for a pair (tokenizers 0.23.3 truncates nothing below them)."""
    need_shared()
    ref, ours = load(name)
    sample = lines("en", 6, seed=6)
    pairs = list(zip(sample[::2], sample[1::2])) + [("", "a b"), ("a", "")]
    for special in (True, False):
        for limit in range(0, 7):
            for t in (ref, ours):
                t.enable_truncation(limit, stride=0)
            try:
                for a, b in pairs:
                    _same(_outcome(lambda: [ref.encode(a, b, add_special_tokens=special)]),
                          _outcome(lambda: [ours.encode(a, b, add_special_tokens=special)]),
                          f"{name} max_length={limit} special={special} {a[:20]!r} / {b[:20]!r}")
            finally:
                for t in (ref, ours):
                    t.no_truncation()
