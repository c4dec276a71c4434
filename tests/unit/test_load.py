"""Rank files: round trips, the GPT-2 data gym pair, and malformed input."""

from __future__ import annotations

import base64
import re
import os

import pytest
from _shared import MODELS, need_shared

import tokenforge
from tokenforge.load import data_gym_to_mergeable_bpe_ranks, dump_tiktoken_bpe, load_tiktoken_bpe


def write(tmp_path, lines: list[bytes]) -> str:
    path = tmp_path / "bad.tiktoken"
    path.write_bytes(b"\n".join(lines) + b"\n")
    return str(path)


def b64(s: bytes) -> bytes:
    return base64.b64encode(s)


def test_round_trip(tmp_path):
    ranks = {bytes([b]): b for b in range(256)} | {b"hello": 256, b" \xff": 300}
    path = tmp_path / "x.tiktoken"
    dump_tiktoken_bpe(ranks, path)
    assert load_tiktoken_bpe(path) == ranks
    assert [p for p in os.listdir(tmp_path) if p.startswith(".tmp")] == []


@pytest.mark.parametrize(
    "lines, message",
    [
        ([b64(b"a") + b" 0", b"!!notbase64 1"], ":2: bad base64"),
        ([b64(b"a") + b" 0", b64(b"b") + b" 0"], ":2: rank 0 appears twice"),
        ([b64(b"a") + b" 0", b64(b"a") + b" 1"], ":2: token b'a' appears twice"),
        ([b64(b"a") + b" 0", b64(b"b")], ":2: expected 'base64 rank'"),
        ([b64(b"a") + b" zero"], ":1: rank 'zero' is not an integer"),
        ([b64(b"a") + b" -3"], ":1: rank -3 out of range"),
    ],
)
def test_malformed_rank_file_names_the_line(tmp_path, lines, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        load_tiktoken_bpe(write(tmp_path, lines))


def test_base64_read_as_tiktoken_reads_it(tmp_path):
    """tiktoken decodes without validation: "=" is the empty token (Whisper's rank 50256)."""
    assert load_tiktoken_bpe(write(tmp_path, [b64(b"a") + b" 0", b"= 1"])) == {b"a": 0, b"": 1}


def test_truncated_real_file(tmp_path):
    need_shared()
    data = (MODELS / "tiktoken" / "r50k_base.tiktoken").read_bytes()
    cut = data[: len(data) // 2]
    cut = cut[: cut.rindex(b" ") - 3]  # the last line loses its rank and part of its base64
    path = tmp_path / "cut.tiktoken"
    path.write_bytes(cut)
    with pytest.raises(ValueError, match=r"cut.tiktoken:\d+:"):
        load_tiktoken_bpe(path)


def test_expected_hash(tmp_path):
    path = tmp_path / "x.tiktoken"
    dump_tiktoken_bpe({b"a": 0}, path)
    with pytest.raises(ValueError, match="sha256"):
        load_tiktoken_bpe(path, expected_hash="0" * 64)


def test_missing_file_is_oserror(tmp_path):
    with pytest.raises(OSError):
        load_tiktoken_bpe(tmp_path / "nope.tiktoken")


def test_data_gym_matches_r50k():
    need_shared()
    tk = MODELS / "tiktoken"
    ranks = data_gym_to_mergeable_bpe_ranks(tk / "gpt2_vocab.bpe", tk / "gpt2_encoder.json")
    assert ranks == load_tiktoken_bpe(tk / "r50k_base.tiktoken")
    import tiktoken.load

    assert ranks == tiktoken.load.data_gym_to_mergeable_bpe_ranks(str(tk / "gpt2_vocab.bpe"), str(tk / "gpt2_encoder.json"))


def test_get_encoding_offline_error_says_where(tmp_path, monkeypatch):
    monkeypatch.setenv("TOKENFORGE_MODELS_DIR", str(tmp_path))
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    import urllib.request

    import tokenforge.registry as registry

    registry._ranks.cache_clear()
    monkeypatch.setattr(urllib.request, "urlopen", lambda *a, **k: (_ for _ in ()).throw(OSError("offline")))
    with pytest.raises(OSError, match="TOKENFORGE_MODELS_DIR"):
        registry.get_encoding("p50k_base")
    registry._ranks.cache_clear()


def test_unknown_names():
    with pytest.raises(ValueError, match="Unknown encoding"):
        tokenforge.get_encoding("nope")
    with pytest.raises(KeyError):
        tokenforge.encoding_for_model("nope-model")
    assert tokenforge.encoding_name_for_model("gpt-4") == "cl100k_base"
    assert tokenforge.encoding_name_for_model("gpt-oss-120b") == "o200k_harmony"
