"""The progress line redraws in place only on a terminal; written to a file or a pipe it is
plain lines (every `plain_every` seconds, and the final one), with no carriage return."""

from __future__ import annotations

import io
import sys

from tokenforge import cli
from tokenforge.data import progress as progress_module
from tokenforge.data.progress import Progress


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_not_a_terminal_prints_plain_lines(monkeypatch):
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    p = Progress(100, True, plain_every=0.0)
    for _ in range(3):
        p.update(10, 1, 5)
    p.close()
    lines = err.getvalue().split("\n")
    assert "\r" not in err.getvalue() and lines[-1] == "" and len(lines) == 5
    assert lines[-2].startswith("tokenize 30 B / 100 B  3 docs  15 tokens")


def test_not_a_terminal_is_quiet_between_intervals(monkeypatch):
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    p = Progress(100, True)  # the default interval: no line before it has passed
    for _ in range(50):
        p.update(1, 1, 1)
    assert err.getvalue() == ""
    p.close()
    assert err.getvalue().count("\n") == 1 and "50 docs" in err.getvalue()


def test_terminal_redraws_in_place(monkeypatch):
    err = Terminal()
    monkeypatch.setattr(sys, "stderr", err)
    monkeypatch.setattr(progress_module, "REDRAW_EVERY", 0.0)
    p = Progress(100, True)
    p.update(10, 1, 5)
    p.update(10, 1, 5)
    p.close()
    assert err.getvalue().count("\r") == 3 and err.getvalue().endswith("\n") and err.getvalue().count("\n") == 1


def test_cli_tokenize_to_a_log_has_no_carriage_return(tmp_path, monkeypatch, capsys):
    src = tmp_path / "a.txt"
    src.write_text("hello world\n" * 100)
    rank_file = tmp_path / "tiny.tiktoken"
    import base64

    rank_file.write_text("".join(f"{base64.b64encode(bytes([b])).decode()} {b}\n" for b in range(256)))
    assert cli.main(["tokenize", str(src), "-o", str(tmp_path / "out"), "--encoding", str(rank_file),
                     "--by-line", "--eot", "none"]) == 0
    err = capsys.readouterr().err
    assert "\r" not in err and err.startswith("tokenize 1.2 kB / 1.2 kB  100 docs") and err.count("\n") == 1
