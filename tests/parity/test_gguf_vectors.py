"""llama.cpp's own tokenizer tests: every string of each test vocabulary's ``.gguf.inp`` gives
the ids of its ``.gguf.out`` (made by ``transformers`` with ``add_special_tokens=False``;
llama.cpp's test-tokenizer-0 runs them with special-token parsing off and no BOS).
"""

from __future__ import annotations

import pytest
from _gguf import VOCABS, need_gguf, tokenizer, vectors


@pytest.mark.parametrize("name", VOCABS)
def test_llama_cpp_vectors(name):
    need_gguf()
    tok = tokenizer(name)
    wrong = [(text, tok.encode(text, add_special=False), ids) for text, ids in vectors(name)
             if tok.encode(text, add_special=False) != ids]
    assert not wrong, f"{len(wrong)} of the {len(vectors(name))} strings differ; first: {wrong[0]}"

