"""The training bar on stderr: redrawn in place on a terminal, plain lines to a log or pipe."""

from __future__ import annotations

import io
import sys
import time

from tokenforge.training import progress


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _run(stream, monkeypatch, plain_every: float = 30.0) -> str:
    monkeypatch.setattr(sys, "stderr", stream)
    monkeypatch.setattr(progress, "PLAIN_EVERY", plain_every)
    out = progress.run_with_progress(lambda: time.sleep(0.35) or 7, poll=lambda: 3, total=10, label="merges", show=True)
    assert out == 7
    return stream.getvalue()


def test_a_log_gets_the_last_line_only_without_carriage_returns(monkeypatch):
    text = _run(io.StringIO(), monkeypatch)
    assert "\r" not in text and text.count("\n") == 1 and text.startswith("merges    [#########")


def test_a_log_gets_a_plain_line_every_plain_every_seconds(monkeypatch):
    text = _run(io.StringIO(), monkeypatch, plain_every=0.1)
    assert "\r" not in text and text.count("\n") >= 2


def test_a_terminal_is_redrawn_in_place(monkeypatch):
    text = _run(_Terminal(), monkeypatch)
    assert text.count("\r") >= 2 and text.count("\n") == 1 and text.endswith("\n")


def test_is_terminal_of_a_closed_stream_is_false():
    s = io.StringIO()
    s.close()
    assert not progress.is_terminal(s)
