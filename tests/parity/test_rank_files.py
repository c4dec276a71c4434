"""Every shared `.tiktoken` file reads as tiktoken's own loader reads it (tiktoken.load)."""

from __future__ import annotations

import pytest

from tests._shared import MODELS, need_shared
from tokenforge import load_tiktoken_bpe

tiktoken_load = pytest.importorskip("tiktoken.load")

_FILES = ["cl100k_base", "o200k_base", "p50k_base", "r50k_base", "llama3", "claude", "whisper_multilingual"]


@pytest.mark.parametrize("name", _FILES)
def test_rank_file_reads_as_tiktoken(name):
    need_shared()
    path = MODELS / "tiktoken" / f"{name}.tiktoken"
    assert load_tiktoken_bpe(str(path)) == tiktoken_load.load_tiktoken_bpe(str(path))
