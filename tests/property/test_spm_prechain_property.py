"""PreChain (tokenizer/spm_prechain.py) against the readable normalizers it stands for: on any
text, the text it hands the encoder and the original span of every range of it are those of
the chain's steps run one by one on a NormalizedString (None only for a text holding a
guarded added token)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tokenforge.normalizers import NFD, NFKD, Lowercase, Replace, StripAccents
from tokenforge.normalizers.normalized_string import NormalizedString
from tokenforge.tokenizer.spm_prechain import PreChain

CHAINS = [
    [Replace({"String": "``"}, '"'), Replace({"String": "''"}, '"'), NFKD(), StripAccents(), Lowercase()],
    [Lowercase()],
    [Replace({"String": "ab"}, ""), Replace({"String": "x"}, "XYZ"), NFD(), Lowercase()],
    [NFKD(), Replace({"String": "''"}, '"')],  # a Replace after a form: never character by character
    [Replace({"String": "b"}, "c"), Replace({"String": "a"}, "b"), Lowercase()],  # each Replace once
]
TEXT = (st.text(st.characters(blacklist_categories=("Cs",)), max_size=20)
        | st.text("`'abxXÀéİıǅΣςﬁ\u0301\u0323１ [M]", max_size=20))


def _readable(steps, text):
    ns = NormalizedString.from_text(text)
    for n in steps:
        n.normalize(ns)
    return ns


@settings(max_examples=400, deadline=None)
@given(k=st.integers(0, len(CHAINS) - 1), text=TEXT)
def test_prechain_equals_the_steps(k, text):
    chain = PreChain(CHAINS[k], ["[M]"])
    got = chain.prepare(text)
    if "[M]" in text:
        assert got is None
        return
    want = _readable(CHAINS[k], text)
    mapped, ns = got
    assert mapped == want.text
    for a in range(len(mapped) + 1):
        for b in range(a, len(mapped) + 1):
            span = (a, b) if ns is None and b > a else ns.original_span(a, b) if ns is not None else None
            if span is not None:
                assert span == want.original_span(a, b), (text, a, b)
