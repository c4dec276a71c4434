"""Hypothesis: tokenforge.minbpe's native training (minbpe's tie rule) and encoding equal
the pure-Python reference of minbpe's algorithm, and decode inverts encode."""

from __future__ import annotations

import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from tokenforge.minbpe import BasicTokenizer, RegexTokenizer
from tokenforge.minbpe import reference as R

# Few distinct characters, so that pairs repeat and counts tie often.
texts = st.text(alphabet=st.sampled_from("ab c\n'1é中"), min_size=0, max_size=120)


def chunks(tok, text):
    if isinstance(tok, BasicTokenizer):
        return [list(text.encode("utf-8"))]
    return [list(c.encode("utf-8")) for c in regex.findall(tok.pattern, text)]


@settings(max_examples=150, deadline=None)
@given(text=texts, merges=st.integers(0, 40), other=texts, basic=st.booleans())
def test_native_equals_reference(text, merges, other, basic):
    tok = BasicTokenizer() if basic else RegexTokenizer()
    tok.train(text, 256 + merges)
    assert tok.merges == R.train(chunks(tok, text), 256 + merges)
    assert tok.encode(other) == [i for c in chunks(tok, other) for i in R.encode_chunk(c, tok.merges)]
    assert tok.decode(tok.encode(other)) == other
