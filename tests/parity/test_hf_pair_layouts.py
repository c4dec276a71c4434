"""Pair batches laid out in one step (tokenizer/pair_encoding.py) under every post-processor kind
the layout takes: each shared base file (a byte-level, a BERT and a SentencePiece-style native
path) with its post-processor swapped for BertProcessing, RobertaProcessing with and without
trimming, a trimming ByteLevel (the byte-level path's sides come trimmed), none, ByteLevel then
a template with the sequences swapped and a two-id special, against
`tokenizers` on every field and on the position queries of both sequences, with and without
special tokens, padding, and truncation that leaves the pairs whole (or cannot apply); and the
same through `encode(text, pair)` and encode_batch_fast.  Truncation that cuts (the sides cut
lazily, the windows from the general path) is checked the same three ways, every window; and
five shared files as they are on Hypothesis pairs of any text."""

from __future__ import annotations

import json

import pytest
from _hf_json import diff, lines, load_fresh
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from _shared import MODELS, need_shared

BASES = ["llama3_tokenizer.json", "minilm_bert_uncased_tokenizer.json", "mistral_v1_tokenizer.json"]


def _processors(vocab_token) -> dict:
    (a, ia), (b, ib), (c, ic) = vocab_token(5), vocab_token(6), vocab_token(7)
    template = {"type": "TemplateProcessing",
                "single": [{"Sequence": {"id": "A", "type_id": 0}}],
                "pair": [{"SpecialToken": {"id": "X", "type_id": 3}}, {"Sequence": {"id": "B", "type_id": 1}},
                         {"SpecialToken": {"id": c, "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 2}}],
                "special_tokens": {"X": {"id": "X", "ids": [ia, ib], "tokens": [a, b]},
                                   c: {"id": c, "ids": [ic], "tokens": [c]}}}
    return {
        "bert": {"type": "BertProcessing", "sep": [a, ia], "cls": [b, ib]},
        "roberta": {"type": "RobertaProcessing", "sep": [a, ia], "cls": [b, ib], "trim_offsets": False,
                    "add_prefix_space": False},
        "roberta_trim": {"type": "RobertaProcessing", "sep": [a, ia], "cls": [b, ib], "trim_offsets": True,
                         "add_prefix_space": True},
        "trim": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
        "none": None,
        "swapped": {"type": "Sequence", "processors": [
            {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": True}, template]},
    }


def _pair(name: str, kind: str):
    import tokenizers

    from tokenforge.tokenizer import Tokenizer

    d = json.loads((MODELS / "hf" / name).read_text(encoding="utf-8"))
    inverse = {v: k for k, v in d["model"]["vocab"].items()} if isinstance(d["model"]["vocab"], dict) else \
        {i: p[0] for i, p in enumerate(d["model"]["vocab"])}
    d["post_processor"] = _processors(lambda i: (inverse[i], i))[kind]
    d["truncation"] = d["padding"] = None
    text = json.dumps(d)
    return tokenizers.Tokenizer.from_str(text), Tokenizer.from_str(text)


def _queries(e) -> list:
    """Position queries of both sequences (tokenizers answers them from its sequence ranges)."""
    out = [e.n_sequences, [e.token_to_sequence(i) for i in range(len(e.ids) + 1)]]
    for s in (0, 1):
        out.append([e.char_to_token(c, s) for c in range(0, 40, 3)])
        out.append([e.word_to_tokens(w, s) for w in range(6)])
    return out


@pytest.mark.parametrize("kind", ["bert", "roberta", "roberta_trim", "trim", "none", "swapped"])
@pytest.mark.parametrize("name", BASES)
def test_pair_layouts(name, kind):
    from tokenforge.tokenizer.pair_encoding import PairEncoding, pair_layout

    need_shared()
    ref, ours = _pair(name, kind)
    texts = [ln[:200] for c in ("en", "multi", "code") for ln in lines(c, 6, seed=71)] + ["", " ", "a  b", "  two  spaces ", "\tx\n"]
    pairs = list(zip(texts, texts[2:] + texts[:2]))
    pairs[1::2] = [list(p) for p in pairs[1::2]]  # a list of two texts is a pair too
    sides = ours._native_pair_sides(pairs, 1)  # None: this path has no native sides (the general path's)
    native = sides is not None and all(s is not None for side in sides for s in side) and \
        pair_layout(ours.post_processor, True, trimmed=ours._sides_trimmed()) is not None
    cutting = [dict(max_length=30, stride=3), dict(max_length=40, strategy="only_first"),
               dict(max_length=40, strategy="only_second", direction="left")]
    for truncation in [None, dict(max_length=10_000), dict(max_length=1)] + cutting:
        for padded in (False, True):
            for t in (ref, ours):
                t.no_truncation()
                t.no_padding()
                if truncation is not None:
                    t.enable_truncation(**truncation)
                if padded:
                    t.enable_padding(pad_id=0, pad_token=t.id_to_token(0))
            for special in (True, False):
                if truncation == dict(max_length=1) and (kind in ("none", "trim") or not special):
                    continue  # nothing added: the limit cuts every pair (the general path's)
                if truncation in cutting:  # pairs cut (PairEncoding but for a side cut to nothing)
                    try:
                        want = ref.encode_batch(pairs, add_special_tokens=special)
                    except Exception:  # noqa: BLE001 - tokenizers refuses some (a text too short to cut)
                        with pytest.raises(ValueError):
                            ours.encode_batch(pairs, add_special_tokens=special)
                        continue
                    got = ours.encode_batch(pairs, add_special_tokens=special)
                    for k, (x, y) in enumerate(zip(want, got)):
                        assert diff(x, y) is None, (name, kind, truncation, padded, special, k, diff(x, y))
                        assert _queries(x) == _queries(y), (name, kind, truncation, special, k)
                    for k, (x, y) in enumerate(zip(ref.encode_batch_fast(pairs, add_special_tokens=special),
                                                   ours.encode_batch_fast(pairs, add_special_tokens=special))):
                        assert diff(x, y) is None, ("fast", name, kind, truncation, padded, special, k, diff(x, y))
                    for k, (x0, x1) in enumerate(pairs[::4]):
                        x, y = (ref.encode(x0, x1, add_special_tokens=special),
                                ours.encode(x0, x1, add_special_tokens=special))
                        assert diff(x, y) is None, ("encode", name, kind, truncation, padded, special, k, diff(x, y))
                    continue
                want = ref.encode_batch(pairs, add_special_tokens=special)
                got = ours.encode_batch(pairs, add_special_tokens=special)
                for k, (x, y) in enumerate(zip(want, got)):
                    assert isinstance(y, PairEncoding) or not native, (name, kind, k)
                    assert diff(x, y) is None, (name, kind, truncation, padded, special, k, diff(x, y))
                    assert _queries(x) == _queries(y), (name, kind, special, k)
                for k, (x0, x1) in enumerate(pairs[::3]):
                    x, y = ref.encode(x0, x1, add_special_tokens=special), ours.encode(x0, x1, add_special_tokens=special)
                    assert isinstance(y, PairEncoding) or not native, (name, kind, k)
                    assert diff(x, y) is None, ("encode", name, kind, truncation, padded, special, k, diff(x, y))
                    assert _queries(x) == _queries(y), ("encode", name, kind, special, k)
                want = ref.encode_batch_fast(pairs, add_special_tokens=special)
                got = ours.encode_batch_fast(pairs, add_special_tokens=special)
                for k, (x, y) in enumerate(zip(want, got)):
                    assert isinstance(y, PairEncoding) or not native, (name, kind, k)
                    assert diff(x, y) is None, ("fast", name, kind, truncation, padded, special, k, diff(x, y))


_TEXT = (st.text(st.characters(blacklist_categories=("Cs",)), max_size=24)
         | st.text("aAbB '\n\t 1234./-_\u00e9\u0301\u4e2d\u0915\u093e!?", max_size=24))


@pytest.mark.parametrize("name", BASES + ["rut5_tokenizer.json", "deepseek_v3_tokenizer.json"])
def test_pairs_of_any_text(name):
    """Each file's own post-processor on Hypothesis pairs of any text: encode_batch, encode and
    encode_batch_fast as tokenizers, truncation off and cutting (every window)."""
    need_shared()
    ref, ours = load_fresh(name)

    @settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(a=_TEXT, b=_TEXT, cut=st.booleans())
    def check(a, b, cut):
        for t in (ref, ours):
            t.no_truncation()
            if cut:
                t.enable_truncation(max_length=9, stride=2)
        pairs = [(a, b), [b, a]]
        for x, y in zip(ref.encode_batch(pairs), ours.encode_batch(pairs)):
            assert diff(x, y) is None, (a, b, cut, diff(x, y))
        for x, y in zip(ref.encode_batch_fast(pairs), ours.encode_batch_fast(pairs)):
            assert diff(x, y) is None, ("fast", a, b, cut, diff(x, y))
        assert diff(ref.encode(a, b), ours.encode(a, b)) is None, ("encode", a, b, cut)

    check()
