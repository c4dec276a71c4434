"""Fixtures shared by every test folder (data helpers are in _shared.py)."""

from __future__ import annotations

import pytest
from _shared import CORPUS_FILES, corpus_sample, need_shared


@pytest.fixture(params=CORPUS_FILES)
def corpus(request) -> tuple[str, str]:
    """(name, sampled text) of each file of ../shared/corpus."""
    need_shared()
    return request.param, corpus_sample(request.param)
