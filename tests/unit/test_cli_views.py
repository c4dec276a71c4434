"""The everyday commands (encode, decode, inspect, show) run as a user runs them, through
subprocess, and compared with the Python API and the reference libraries."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from _shared import MODELS, need_shared

TEXT = "Hello wörld, tokens!\n  def f(): return 42"


def run(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "tokenforge.cli", *args], input=stdin, capture_output=True,
                          text=True, encoding="utf-8", timeout=120)


@pytest.fixture(scope="module")
def cl100k():
    need_shared()
    from _tiktoken_refs import pair

    return pair("cl100k_base")[1]  # tiktoken's


def test_encode_texts_stdin_and_json(cl100k):
    r = run("encode", "Hello world", TEXT, "--model", "cl100k_base")
    assert r.returncode == 0, r.stderr
    assert [list(map(int, line.split())) for line in r.stdout.splitlines()] == [cl100k.encode("Hello world"), cl100k.encode(TEXT)]
    r = run("encode", "--model", "cl100k_base", "--json", stdin=TEXT)
    assert json.loads(r.stdout) == [cl100k.encode(TEXT)]
    r = run("encode", "<|endoftext|>", "--model", "cl100k_base", "--allow-special")
    assert r.stdout.split() == ["100257"]


def test_encode_file(tmp_path, cl100k):
    path = tmp_path / "t.txt"
    path.write_text(TEXT, encoding="utf-8")
    r = run("encode", "-f", str(path), "--model", "cl100k_base")
    assert list(map(int, r.stdout.split())) == cl100k.encode(TEXT)


def test_decode_args_and_stdin_lines(cl100k):
    ids = cl100k.encode("Hello world")
    assert run("decode", *map(str, ids), "--model", "cl100k_base").stdout == "Hello world\n"
    r = run("decode", "--model", "cl100k_base", stdin=f"{json.dumps(ids)}\n{ids[0]},\n")
    assert r.stdout.splitlines() == ["Hello world", "Hello"]


def test_errors_say_what_was_tried(tmp_path):
    r = run("encode", "x", "--model", "nosuch")
    assert r.returncode == 1 and "nosuch" in r.stderr and "no such file" in r.stderr and "cl100k_base" in r.stderr
    assert "Traceback" not in r.stderr
    r = run("decode", "12", "x7", "--model", "gpt2")
    assert r.returncode == 1 and "'x7'" in r.stderr
    r = run("decode", "999999999", "--model", "gpt2")
    assert r.returncode == 1 and "not in gpt2" in r.stderr
    bad = tmp_path / "w.json"
    bad.write_text(json.dumps({"model": {"type": "NoSuchModel", "vocab": {}}}))
    r = run("inspect", str(bad))
    assert r.returncode == 1 and "NoSuchModel" in r.stderr and "Traceback" not in r.stderr


def test_show_plain_when_not_a_terminal(cl100k):
    r = run("show", TEXT, "--model", "cl100k_base", "--model", "gpt2")
    assert r.returncode == 0, r.stderr
    assert "\x1b[" not in r.stdout
    blocks = r.stdout.split("\n\n")
    assert blocks[0].startswith(f"cl100k_base (tiktoken): {len(cl100k.encode(TEXT))} tokens")
    assert str(cl100k.encode(TEXT)) in blocks[0]
    assert "Hello| w|ör|ld|,| tokens|!" in blocks[0]
    assert blocks[1].startswith("gpt2 (tiktoken)")


def test_paint_colours_tokens():
    from tokenforge.views.terminal import paint

    out = paint([b"a", b"b"], color=True)
    assert out.count("\x1b[48;5;") == 2 and out.endswith("\x1b[0m")


def test_show_merges_ends_in_the_encoding(cl100k):
    r = run("show", "--merges", " tokenization", "--model", "cl100k_base")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().splitlines()[-1].strip() == f"-> {cl100k.encode(' tokenization')}"
    r = run("show", "--merges", "x", "--model", str(MODELS / "sentencepiece" / "llama2c_tok512.model"))
    assert r.returncode == 1 and "byte-level BPE" in r.stderr


def test_sentencepiece_and_tokenizer_json_models():
    need_shared()
    import sentencepiece
    import tokenizers

    sp_path = str(MODELS / "sentencepiece" / "llama2c_tok512.model")
    want = sentencepiece.SentencePieceProcessor(model_file=sp_path).encode(TEXT)
    assert list(map(int, run("encode", TEXT, "--model", sp_path).stdout.split())) == want
    for name in ("gpt2_tokenizer.json", "minilm_bert_uncased_tokenizer.json", "mistral_v1_tokenizer.json"):
        hf_path = str(MODELS / "hf" / name)
        want = tokenizers.Tokenizer.from_file(hf_path).encode(TEXT, add_special_tokens=False).ids
        assert list(map(int, run("encode", TEXT, "--model", hf_path).stdout.split())) == want, name
    r = run("show", TEXT, "--model", str(MODELS / "hf" / "minilm_bert_uncased_tokenizer.json"))
    assert r.returncode == 0, r.stderr


def test_inspect_minbpe_and_tiktoken(tmp_path):
    from tokenforge.minbpe import RegexTokenizer

    tok = RegexTokenizer()
    tok.train("hello hello world " * 10, 256 + 5)
    tok.register_special_tokens({"<|eot|>": 261})
    model, _ = tok.save(tmp_path / "m")
    r = run("inspect", model)
    assert r.returncode == 0, r.stderr
    assert "type        minbpe (byte-level BPE)" in r.stdout
    assert "vocab       262 ids (261 tokens, 1 special)" in r.stdout
    assert "'<|eot|>'=261" in r.stdout and "256/256 single bytes" in r.stdout
    assert list(map(int, run("encode", "hello world", "--model", model).stdout.split())) == tok.encode("hello world")


def test_visualize_writes_one_offline_page(tmp_path):
    need_shared()
    sp_path = str(MODELS / "sentencepiece" / "llama2c_tok512.model")
    page = tmp_path / "p.html"
    sample = tmp_path / "s.txt"
    sample.write_text("Once upon a time there was a tokenizer.", encoding="utf-8")
    r = run("visualize", "--model", "gpt2", "--model", sp_path, "-f", str(sample), "-o", str(page))
    assert r.returncode == 0, r.stderr
    html = page.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") and "gpt2" in html and "llama2c_tok512.model" in html
    assert "http://" not in html.replace("http://www.w3.org/2000/svg", "") and "https://" not in html  # offline
    r = run("visualize", "--model", "gpt2", "--model", "gpt2", "--model", "gpt2", "-o", str(page))
    assert r.returncode == 1 and "two models" in r.stderr


def test_inspect_sentencepiece_names_its_normalizer():
    need_shared()
    r = run("inspect", str(MODELS / "sentencepiece" / "llama2_tokenizer.model"))
    assert r.returncode == 0, r.stderr
    assert "split       BPE model; normalizer identity" in r.stdout and "byte fallback True" in r.stdout
    assert "vocab       32000 ids" in r.stdout


def test_a_closed_pipe_ends_quietly(tmp_path):
    need_shared()
    path = tmp_path / "big.txt"
    path.write_text("hello\n" * 200_000)
    p = subprocess.Popen([sys.executable, "-m", "tokenforge.cli", "show", "-f", str(path), "--model", "gpt2"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    p.stdout.close()  # as `| head` does
    assert p.wait(timeout=120) == 141
    assert p.stderr.read() == b""


def test_a_tiktoken_file_named_after_an_encoding_gets_its_pattern():
    need_shared()
    from _tiktoken_refs import pair

    ref = pair("r50k_base")[1]
    text = "it's   12345 tokens\n\n"  # GPT-2's pattern splits digits and spaces unlike cl100k's
    r = run("encode", text, "--model", str(MODELS / "tiktoken" / "r50k_base.tiktoken"), "--allow-special")
    assert list(map(int, r.stdout.split())) == ref.encode(text)
