"""SentencePiece-style files with normalizer steps ahead of the charsmap, and added tokens that
strip spaces, on the native path (tokenizer/spm_prechain.py): against `tokenizers`.

ALBERT's pipeline (``Replace`` of ``\\`\\``` and ``''``, NFKD, StripAccents, Lowercase, the
charsmap, space runs collapsed; Metaspace; ``[CLS] $A [SEP]``; a ``[MASK]`` with lstrip) on
ruT5's Unigram, and Mistral's BPE with Lowercase first and a ``<mask>`` with lstrip: every
field of encode, encode_batch (with truncation and padding), encode_batch_fast and pairs, on
corpus lines, on texts that hold the added tokens, quotes, accents and case pairs, and on
Hypothesis text; and which texts took which route.
"""

from __future__ import annotations

import json

import pytest
from _hf_json import albert_normalizer, diff, lines
from _shared import MODELS, need_shared
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

EDGE = ["``Quoted'' TEXT", "a [MASK] b", "[MASK]", "  [MASK]x", "x<mask> y", "  <mask>", "ÀÉÎÕÜ straße ﬁne",
        "İstanbul ǅ Σ ΣΑΣ", "Ǆ\u0301 e\u0301", "  lead  trail  ", "", " ", "tab\tand\nnew", "１２３ ＡＢＣ", "[CLS] [SEP]",
        "'' `` ''``", "MiXeD CaSe 123", "<PAD> </S> [cls] [Mask] <MASK>", "<UNK>x<Pad>"]


def _albert(d: dict) -> dict:
    d["normalizer"] = albert_normalizer(d["normalizer"]["normalizers"][0])
    n = len(d["model"]["vocab"])
    d["model"]["vocab"] += [["[CLS]", 0.0], ["[SEP]", 0.0], ["[MASK]", 0.0]]
    d["added_tokens"] += [{"id": n + k, "content": c, "single_word": False, "lstrip": c == "[MASK]", "rstrip": False,
                           "normalized": False, "special": True} for k, c in enumerate(["[CLS]", "[SEP]", "[MASK]"])]
    seq = lambda name, t: {"Sequence": {"id": name, "type_id": t}}  # noqa: E731
    tok = lambda name, t: {"SpecialToken": {"id": name, "type_id": t}}  # noqa: E731
    d["post_processor"] = {"type": "TemplateProcessing", "single": [tok("[CLS]", 0), seq("A", 0), tok("[SEP]", 0)],
                           "pair": [tok("[CLS]", 0), seq("A", 0), tok("[SEP]", 0), seq("B", 1), tok("[SEP]", 1)],
                           "special_tokens": {c: {"id": c, "ids": [n + k], "tokens": [c]}
                                              for k, c in enumerate(["[CLS]", "[SEP]", "[MASK]"])}}
    return d


def _mistral_lower(d: dict) -> dict:
    d["normalizer"]["normalizers"].insert(0, {"type": "Lowercase"})
    d["added_tokens"].append({"id": len(d["model"]["vocab"]), "content": "<mask>", "single_word": False,
                              "lstrip": True, "rstrip": False, "normalized": False, "special": True})
    return d


FILES = {"albert": ("rut5_tokenizer.json", _albert), "mistral_lower": ("mistral_v1_tokenizer.json", _mistral_lower)}


def _pair(kind: str):
    import tokenizers

    from tokenforge.tokenizer import Tokenizer

    name, edit = FILES[kind]
    d = edit(json.loads((MODELS / "hf" / name).read_text(encoding="utf-8")))
    d["truncation"] = d["padding"] = None
    s = json.dumps(d, ensure_ascii=False)
    return tokenizers.Tokenizer.from_str(s), Tokenizer.from_str(s)


@pytest.mark.parametrize("kind", sorted(FILES))
def test_prechain_files(kind):
    from tokenforge.tokenizer.native_spm import NativeSpm

    need_shared()
    ref, ours = _pair(kind)
    native = ours._native_engine()
    assert isinstance(native, NativeSpm) and native.chain is not None, kind
    texts = EDGE + [ln[:600] for c in ("en", "multi", "code", "mixed") for ln in lines(c, 12, seed=5)]
    routes = {native.chain.prepare(t) is None: 1 for t in texts}  # both routes are taken
    assert routes == {True: 1, False: 1}
    for t in texts:
        for special in (True, False):
            assert diff(ref.encode(t, add_special_tokens=special), ours.encode(t, add_special_tokens=special)) is None, t
    for x, y in zip(ref.encode_batch(texts), ours.encode_batch(texts)):
        assert diff(x, y) is None
    for x, y in zip(ref.encode_batch_fast(texts), ours.encode_batch_fast(texts)):
        assert diff(x, y) is None
    pairs = list(zip(texts, texts[3:] + texts[:3]))
    for x, y in zip(ref.encode_batch(pairs), ours.encode_batch(pairs)):
        assert diff(x, y) is None
    for t in (ref, ours):
        t.enable_truncation(max_length=12, stride=3)
        t.enable_padding(pad_id=0, pad_token=t.id_to_token(0))
    for batch in (texts, pairs):
        for x, y in zip(ref.encode_batch(batch), ours.encode_batch(batch)):
            assert diff(x, y) is None
        for x, y in zip(ref.encode_batch_fast(batch), ours.encode_batch_fast(batch)):
            assert diff(x, y) is None


_TEXT = (st.text(st.characters(blacklist_categories=("Cs",)), max_size=30)
         | st.text("aAbB `'\n\t [MASK]<>ÀéİıǅΣς\u0301ﬁ１", max_size=30))


@pytest.mark.parametrize("kind", sorted(FILES))
def test_prechain_any_text(kind):
    need_shared()
    ref, ours = _pair(kind)

    @settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(text=_TEXT)
    def check(text):
        assert diff(ref.encode(text), ours.encode(text)) is None, text
        x, y = ref.encode_batch([text, text + " A"]), ours.encode_batch([text, text + " A"])
        assert diff(x[0], y[0]) is None and diff(x[1], y[1]) is None, text

    check()
