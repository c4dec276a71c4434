"""Thread count resolution for one long text, and fork safety of the native pool."""

from __future__ import annotations

import os

import pytest
from _shared import corpus_sample, in_forked_child, need_shared
from _tiktoken_refs import pair

from tokenforge._threads import ENV, resolve_threads


def test_resolution_order(monkeypatch):
    monkeypatch.delenv(ENV, raising=False)
    assert resolve_threads(None) == len(os.sched_getaffinity(0))
    monkeypatch.setenv(ENV, "3")
    assert resolve_threads(None) == 3
    assert resolve_threads(2) == 2
    monkeypatch.setenv(ENV, "zero")
    with pytest.raises(ValueError, match=ENV):
        resolve_threads(None)
    with pytest.raises(ValueError, match="num_threads"):
        resolve_threads(0)


def test_one_thread_or_short_text_is_not_split(monkeypatch):
    need_shared()
    ours, _ = pair("cl100k_base")
    text = corpus_sample("en")[:600_000]
    assert ours._parallel_parts(text, 1) is None
    assert ours._parallel_parts(text[:1000], 4) is None
    monkeypatch.setenv(ENV, "1")
    assert ours._parallel_parts(text, None) is None
    monkeypatch.setenv(ENV, "2")
    assert ours._parallel_parts(text, None) is not None


def _child(text, queue):
    from _tiktoken_refs import pair

    ours, _ = pair("cl100k_base")
    queue.put(ours.encode_ordinary(text, num_threads=2))


def test_forked_child_does_not_deadlock():
    """The parent's pool threads do not exist in a forked child; it must still encode on
    several threads (tokenizers' TOKENIZERS_PARALLELISM problem)."""
    need_shared()
    ours, ref = pair("cl100k_base")
    text = corpus_sample("en")[:600_000]
    expected = ref.encode_ordinary(text)
    assert ours.encode_ordinary(text, num_threads=2) == expected  # the pool now runs
    exitcode, got = in_forked_child(_child, (text,))
    assert exitcode == 0 and got == expected
