"""tokenforge.tokenizer.Tokenizer against HF tokenizers 0.23.3 on every tokenizer.json in
../shared/models/hf: ids, tokens, offsets, word ids, type ids and masks identical on sampled
lines of every corpus (with and without special tokens), on pairs, with every added token
spliced in, as configured in the file (truncation/padding/overflow), pre-tokenized; decode,
decode_batch and DecodeStream identical; to_str reloaded in tokenizers encodes identically."""

from __future__ import annotations

import json
import random

import pytest
from _hf_json import HF_FILES, diff, lines, load, load_fresh
from _shared import CORPUS_FILES, MODELS, need_shared

pytestmark = pytest.mark.skipif(not HF_FILES, reason="needs ../shared/models/hf")


def _check(ref, ours, text, pair=None, **kw):
    a, b = ref.encode(text, pair, **kw), ours.encode(text, pair, **kw)
    d = diff(a, b)
    assert d is None, f"{text[:60]!r} / {str(pair)[:30]!r} {kw}: {d}"


@pytest.mark.parametrize("name", HF_FILES)
@pytest.mark.parametrize("corpus", CORPUS_FILES)
def test_lines(name, corpus):
    need_shared()
    ref, ours = load(name)
    for ln in lines(corpus):
        for s in (True, False):
            _check(ref, ours, ln, add_special_tokens=s)


@pytest.mark.parametrize("name", HF_FILES)
def test_pairs_and_batch(name):
    need_shared()
    ref, ours = load(name)
    sample = lines("en", 40, seed=1) + lines("multi", 20, seed=1)
    pairs = list(zip(sample[::2], sample[1::2]))
    for a, b in pairs:
        for s in (True, False):
            _check(ref, ours, a, b, add_special_tokens=s)
    batch = pairs
    for x, y in zip(ref.encode_batch(batch), ours.encode_batch(batch)):
        assert diff(x, y) is None
    texts = [p[0] for p in batch]
    for x, y in zip(ref.encode_batch_fast(texts), ours.encode_batch_fast(texts)):
        assert x.ids == y.ids and x.attention_mask == y.attention_mask and x.type_ids == y.type_ids


@pytest.mark.parametrize("name", HF_FILES)
def test_added_tokens_spliced(name):
    need_shared()
    ref, ours = load(name)
    added = sorted(ref.get_added_tokens_decoder().items())
    rng = random.Random(2)
    if len(added) > 60:
        added = rng.sample(added, 60)
    sample = lines("en", 30, seed=2) + lines("code", 10, seed=2)
    for k, (_, tok) in enumerate(added):
        ln = sample[k % len(sample)]
        cut = rng.randrange(len(ln) + 1)
        for text in (ln[:cut] + tok.content + ln[cut:], ln[:cut] + " " + tok.content + " " + ln[cut:],
                     tok.content + ln + tok.content, tok.content):
            for s in (True, False):
                _check(ref, ours, text, add_special_tokens=s)


@pytest.mark.parametrize("name", HF_FILES)
def test_as_configured(name):
    """The file's own truncation and padding (GPT-2 truncates at 50, MiniLM pads to 128)."""
    need_shared()
    ref, ours = load(name, configured=True)
    assert ref.truncation == ours.truncation and ref.padding == ours.padding
    sample = lines("en", 20, seed=3) + lines("code", 10, seed=3)
    long_text = " ".join(sample)
    for text in sample + [long_text]:
        assert diff(ref.encode(text), ours.encode(text)) is None
    for x, y in zip(ref.encode_batch(sample), ours.encode_batch(sample)):
        assert diff(x, y) is None


def test_truncation_stride_and_padding_options():
    need_shared()
    ref, ours = load("minilm_bert_uncased_tokenizer.json")
    text = " ".join(lines("en", 10, seed=4))
    try:
        for t in (ref, ours):
            t.enable_truncation(20, stride=5, strategy="longest_first", direction="right")
            t.enable_padding(pad_to_multiple_of=8, pad_id=0, pad_token="[PAD]")
        assert diff(ref.encode(text), ours.encode(text)) is None
        for strategy in ("longest_first", "only_first", "only_second"):  # pairs: every combination of windows
            for t in (ref, ours):
                t.enable_truncation(20, stride=2, strategy=strategy)
            for a_text, b_text in ((text, text[:50]), (text[:50], text), (text[:200], text[:120])):
                try:
                    a = ref.encode(a_text, b_text)
                except Exception:  # the sequence to cut is too short: we raise ValueError
                    with pytest.raises(ValueError):
                        ours.encode(a_text, b_text)
                    continue
                assert diff(a, ours.encode(a_text, b_text)) is None, (strategy, len(a_text), len(b_text))
        for t in (ref, ours):
            t.enable_truncation(20, stride=5)
        for t in (ref, ours):
            t.enable_truncation(16, stride=3, direction="left")
            t.enable_padding(direction="left", length=24)
        assert diff(ref.encode(text), ours.encode(text)) is None
        assert ref.truncation == ours.truncation and ref.padding == ours.padding
    finally:
        for t in (ref, ours):
            t.no_truncation()
            t.no_padding()


@pytest.mark.parametrize("name", HF_FILES)
def test_pretokenized(name):
    need_shared()
    ref, ours = load(name)
    for ln in lines("en", 10, seed=5):
        words = ln.split()
        if words:
            assert diff(ref.encode(words, is_pretokenized=True), ours.encode(words, is_pretokenized=True)) is None


@pytest.mark.parametrize("name", HF_FILES)
def test_decode(name):
    need_shared()
    from tokenforge.decoders import DecodeStream
    from tokenizers.decoders import DecodeStream as RefStream

    ref, ours = load(name)
    sample = lines("en", 20, seed=6) + lines("multi", 20, seed=6) + lines("mixed", 10, seed=6)
    batch = [ref.encode(ln).ids for ln in sample]
    for skip in (True, False):
        assert ours.decode_batch(batch, skip_special_tokens=skip) == ref.decode_batch(batch, skip_special_tokens=skip)
    for ids in batch[:8]:
        a, b = RefStream(skip_special_tokens=False), DecodeStream(skip_special_tokens=False)
        assert [a.step(ref, i) for i in ids] == [b.step(ours, i) for i in ids]


@pytest.mark.parametrize("name", ["gpt2_tokenizer.json", "mistral_v1_tokenizer.json", "minilm_bert_uncased_tokenizer.json"])
def test_decode_stream_goes_on_after_an_unknown_id(name):
    """An id past the vocabulary: our step raises ValueError (tokenforge's decode rule), and
    the stream is left as it was, so every other step returns what tokenizers' DecodeStream
    returns (tokenizers drops the id).  A stream that kept the bad id raised on every later step."""
    need_shared()
    from tokenforge.decoders import DecodeStream
    from tokenizers.decoders import DecodeStream as RefStream

    ref, ours = load(name)
    bad = ref.get_vocab_size(True) + 7
    rng = random.Random(3)
    for ln in lines("en", 6, seed=8) + lines("multi", 6, seed=8):
        ids = ref.encode(ln).ids[:30]
        at = rng.randrange(len(ids) + 1)
        ids = ids[:at] + [bad] + ids[at:]
        for skip in (True, False):
            a, b = RefStream(skip_special_tokens=skip), DecodeStream(skip_special_tokens=skip)
            for k, i in enumerate(ids):
                want = a.step(ref, i)
                if k == at:
                    with pytest.raises(ValueError):
                        b.step(ours, i)
                else:
                    assert b.step(ours, i) == want, (ln, k)


@pytest.mark.parametrize("name", HF_FILES)
def test_to_str_round_trip(name):
    """What we write, tokenizers loads and encodes identically (and we read back too)."""
    need_shared()
    import tokenizers

    from tokenforge.tokenizer import Tokenizer

    ref, ours = load(name)
    text = ours.to_str()
    again, mine = tokenizers.Tokenizer.from_str(text), Tokenizer.from_str(text)
    for ln in lines("en", 15, seed=7) + lines("multi", 15, seed=7):
        want = ref.encode(ln)
        assert diff(want, again.encode(ln)) is None
        assert diff(want, mine.encode(ln)) is None


@pytest.mark.parametrize("name", ["minilm_bert_uncased_tokenizer.json", "llama3_1_tokenizer.json", "gpt2_tokenizer.json"])
def test_enable_truncation_refuses_the_strides_tokenizers_refuses(name):
    """tokenizers refuses, at enable_truncation, a stride above what max_length leaves a single
    text beside the post-processor's tokens (and keeps the setting it had); a grid of limits
    around that edge, each compared with it."""
    need_shared()
    import tokenizers

    from tokenforge.tokenizer import Tokenizer

    path = str(MODELS / "hf" / name)
    for max_length in range(5):
        for stride in range(4):
            ref, ours = tokenizers.Tokenizer.from_file(path), Tokenizer.from_file(path)
            try:
                ref.enable_truncation(max_length, stride=stride)
                refused = False
            except Exception:
                refused = True
            if refused:
                with pytest.raises(ValueError):
                    ours.enable_truncation(max_length, stride=stride)
                assert ours.truncation == ref.truncation  # unchanged
            else:
                ours.enable_truncation(max_length, stride=stride)
                assert ours.truncation == ref.truncation


@pytest.mark.parametrize("name", ["gpt2_tokenizer.json", "minilm_bert_uncased_tokenizer.json", "qwen3_tokenizer.json"])
def test_pretokenized_lone_surrogate_raises(name):
    """A lone surrogate in a pre-tokenized word: tokenizers refuses it (TypeError), we raise
    ValueError naming the word, in encode and encode_batch alike."""
    need_shared()
    _, ours = load(name)
    with pytest.raises(ValueError, match="surrogate"):
        ours.encode(["a", "\ud800"], is_pretokenized=True)
    with pytest.raises(ValueError, match="surrogate"):
        ours.encode_batch([["a", "b\udfff"]], is_pretokenized=True)


def test_single_word_word_characters_as_tokenizers():
    """A single_word added token needs no word character on either side; a word character is
    the regex crate's Unicode \\w (letters, marks, decimal digits, connector punctuation,
    joiners), not str.isalnum: other numbers ("⁷", "½") are none, marks and ZWJ are."""
    need_shared()
    import tokenizers

    from tokenforge.tokenizer import AddedToken, Tokenizer

    path = str(MODELS / "hf" / "minilm_bert_uncased_tokenizer.json")
    ref, ours = tokenizers.Tokenizer.from_file(path), Tokenizer.from_file(path)
    for t in (ref, ours):
        t.no_padding()
        t.no_truncation()
    ref.add_tokens([tokenizers.AddedToken("##", single_word=True, normalized=False)])
    ours.add_tokens([AddedToken("##", single_word=True, normalized=False)])
    for text in ["\u2077##", "##\u00bd", "\u093e##", "x\u200d##", "a ## b", "a##", "\u0663##", "_##", "\u00e9##", "## \u2460"]:
        assert ours.encode(text, add_special_tokens=False).ids == ref.encode(text, add_special_tokens=False).ids, text


@pytest.mark.parametrize("name", ["mistral_v1_tokenizer.json", "gemma_tokenizer.json", "minilm_bert_uncased_tokenizer.json",
                                  "rut5_tokenizer.json", "gpt2_tokenizer.json"])
def test_normalized_added_tokens_read_back_normalized(name):
    """tokenizers gives a `normalized` added token's content through the normalizer in
    id_to_token and decode (Mistral's "<x>" reads "▁<x>", BERT's "İX" "ix"), while
    token_to_id and the saved file keep it as written."""
    need_shared()
    import tokenizers

    from tokenforge.tokenizer import AddedToken, Tokenizer

    path = str(MODELS / "hf" / name)
    ref, ours = tokenizers.Tokenizer.from_file(path), Tokenizer.from_file(path)
    contents = ["<x>", "\u0130X", " sp ace", "\ufb01"]
    ref.add_tokens([tokenizers.AddedToken(c, normalized=True) for c in contents])
    ours.add_tokens([AddedToken(c, normalized=True) for c in contents])
    ids = [ref.token_to_id(c) for c in contents]
    assert [ours.token_to_id(c) for c in contents] == ids
    assert [ours.id_to_token(i) for i in ids] == [ref.id_to_token(i) for i in ids]
    assert ours.decode(ids) == ref.decode(ids)
    saved = {a["id"]: a["content"] for a in json.loads(ours.to_str())["added_tokens"]}
    assert saved == {a["id"]: a["content"] for a in json.loads(ref.to_str())["added_tokens"]}


def _check_every_way(ref, ours, texts):
    """texts encoded one by one (with and without special tokens), as a batch and as a fast batch."""
    for text in texts:
        for s in (True, False):
            _check(ref, ours, text, add_special_tokens=s)
    for x, y in zip(ref.encode_batch(texts), ours.encode_batch(texts)):
        assert diff(x, y) is None
    assert [e.ids for e in ref.encode_batch_fast(texts)] == [e.ids for e in ours.encode_batch_fast(texts)]


@pytest.mark.parametrize("name", HF_FILES)
def test_encode_special_tokens(name):
    """tokenizers' `encode_special_tokens` flag: special added tokens in the text are encoded as
    text, non-special ones still matched, and a special token's match still takes its span (a
    non-special token inside it stays text); turned off again, the file's own behaviour."""
    need_shared()
    import tokenizers

    from tokenforge.tokenizer import AddedToken

    ref, ours = load_fresh(name)
    specials = [t.content for _, t in sorted(ref.get_added_tokens_decoder().items()) if t.special][:8]
    inner = next((s[2:-2] for s in specials if len(s) > 4), "qz")
    for t, tok in ((ref, tokenizers.AddedToken), (ours, AddedToken)):
        t.add_tokens([tok("plainword"), tok(inner, normalized=False)])
    rng = random.Random(3)
    texts = lines("en", 8, seed=3) + lines("multi", 4, seed=3)
    texts = [ln[:k] + " " + rng.choice(specials or ["x"]) + "plainword " + inner + ln[k:]
             for ln in texts for k in [rng.randrange(len(ln) + 1)]] + ["".join(specials), " ".join(specials)]
    for flag in (True, False):
        ref.encode_special_tokens = ours.encode_special_tokens = flag
        assert ours.encode_special_tokens is flag
        _check_every_way(ref, ours, texts)
    assert "encode_special_tokens" not in json.loads(ours.to_str()).get("added_tokens", [{}])[0]


@pytest.mark.parametrize("name", ["gpt2_tokenizer.json", "deepseek_v3_tokenizer.json"])
def test_raw_tokens_overlapping_normalized_ones(name):
    """tokenizers matches the added tokens of the raw text first and the `normalized` ones in
    the pieces between: a raw token inside a normalized one, or overlapping its end, takes the
    text first (GPT-2's `<|endoftext|>` and fifteen of DeepSeek V3's are `normalized`)."""
    need_shared()
    import tokenizers

    from tokenforge.tokenizer import AddedToken

    ref, ours = load_fresh(name)
    norm = [t.content for _, t in sorted(ref.get_added_tokens_decoder().items()) if t.normalized][:3]
    extra = [norm[0][2:-2], norm[0][-3:] + "zq", "qz" + norm[0][:3]]  # inside, over the end, over the start
    ref.add_special_tokens([tokenizers.AddedToken(x, normalized=False) for x in extra])
    ours.add_special_tokens([AddedToken(x, normalized=False) for x in extra])
    texts = [f"a {t}zq b qz{t} c {t}" for t in norm] + ["".join(norm) + "zq", " ".join(extra + norm)]
    texts += [ln + norm[0] for ln in lines("en", 5, seed=4)]
    _check_every_way(ref, ours, texts)
