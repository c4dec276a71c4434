"""An HF tokenizer.json as the encoding of `tokenize` and `count`: the one `tokenforge train`
writes, and others (SentencePiece-style BPE, WordPiece, Llama 3): the shards hold the ids
`tokenizers` gives each document (without post-processor tokens), then the file's end-of-text
id; a file with none needs an explicit eot; a file that is not a tokenizer.json is named."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
from _shared import MODELS, need_extra, need_shared

from tokenforge import cli
from tokenforge.data import TokenDataset, count_files, tokenize_files
from tokenforge.data.encoders import as_encoder

DOCS = [
    "def greet(name):\n    return f'Hello, {name}!'\n",
    "Größe und Maß — naïve café, 東京, emoji 🎉 and   spaces\t\ttabs",
    "",
    "a document that names <|endoftext|> inside it",
    "x" * 3000,
    " ".join(f"word{k} and more words" for k in range(100)),
]


def train_json(tmp_path, special: list[str]) -> str:
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(("\n".join(DOCS) + "\n") * 20 + open(json.__file__, encoding="utf-8").read(), encoding="utf-8")
    out = tmp_path / ("tok.json" if special else "plain.json")
    args = ["train", str(corpus), "--vocab-size", "400", "-o", str(out), "-q"]
    assert cli.main(args + (["--special", *special] if special else [])) == 0
    return str(out)


def write_jsonl(path, docs) -> None:
    with open(path, "w", encoding="utf-8") as f:
        for d in docs:
            f.write(json.dumps({"text": d}) + "\n")


def expected_ids(tok_file: str, docs: list[str], eot: int | None) -> list[int]:
    tokenizers = need_extra("tokenizers", "test")
    ref = tokenizers.Tokenizer.from_file(tok_file)
    ref.no_truncation()  # a document is encoded whole
    ref.no_padding()
    ids = []
    for d in docs:
        ids += ref.encode(d, add_special_tokens=False).ids + ([eot] if eot is not None else [])
    return ids


def test_trained_tokenizer_json_matches_tokenizers(tmp_path, capsys):
    tok = train_json(tmp_path, ["<|endoftext|>"])
    src = tmp_path / "docs.jsonl"
    write_jsonl(src, DOCS)
    out = tmp_path / "out"
    assert cli.main(["tokenize", str(src), "-o", str(out), "--encoding", tok, "--shard-size", "40", "-q"]) == 0
    eot = as_encoder(tok).default_eot
    assert eot == 400  # the special token, after the 256 bytes and 144 merges
    ds = TokenDataset(out)
    assert ds.eot == eot and len(ds.shards) > 1 and ds.dtype == np.uint16
    assert np.concatenate(ds.shards).tolist() == expected_ids(tok, DOCS, eot)
    assert [ds.document(i).tolist() for i in range(len(DOCS))] == [expected_ids(tok, [d], None) for d in DOCS]
    capsys.readouterr()
    assert cli.main(["count", str(src), "--encoding", tok]) == 0
    assert capsys.readouterr().out.split()[-2:] == [str(len(expected_ids(tok, DOCS, None))), "total"]


def test_resume_with_a_tokenizer_json(tmp_path):
    tok = train_json(tmp_path, ["<|endoftext|>"])
    src = tmp_path / "docs.jsonl"
    write_jsonl(src, DOCS * 5)
    tokenize_files([src], tmp_path / "full", encoding=tok, shard_size=64, progress=False)
    from tokenforge.data import tokenize as tokenize_module

    real, calls = tokenize_module._Writer._finish_shard, [0]

    def finish(self, resume):
        real(self, resume)
        calls[0] += 1
        if calls[0] == 3:
            raise KeyboardInterrupt

    tokenize_module._Writer._finish_shard = finish
    try:
        with pytest.raises(KeyboardInterrupt):
            tokenize_files([src], tmp_path / "cut", encoding=tok, shard_size=64, progress=False)
    finally:
        tokenize_module._Writer._finish_shard = real
    tokenize_files([src], tmp_path / "cut", encoding=tok, shard_size=64, progress=False, resume=True)
    for name in os.listdir(tmp_path / "full"):
        assert (tmp_path / "full" / name).read_bytes() == (tmp_path / "cut" / name).read_bytes(), name


def test_lone_surrogate_becomes_replacement_character(tmp_path):
    tok = train_json(tmp_path, ["<|endoftext|>"])
    src = tmp_path / "docs.jsonl"
    src.write_text('{"text": "before \\ud800 after"}\n{"text": "plain"}\n')
    tokenize_files([src], tmp_path / "out", encoding=tok, progress=False, eot=None)
    ids = np.concatenate(TokenDataset(tmp_path / "out").shards).tolist()
    assert ids == expected_ids(tok, ["before \ufffd after", "plain"], None)


def test_no_end_of_text_token_needs_eot(tmp_path):
    tok = train_json(tmp_path, [])
    src = tmp_path / "docs.jsonl"
    write_jsonl(src, DOCS[:2])
    with pytest.raises(ValueError, match=r"plain\.json: no end-of-text token"):
        tokenize_files([src], tmp_path / "a", encoding=tok, progress=False)
    with pytest.raises(ValueError, match="is not a token"):
        tokenize_files([src], tmp_path / "b", encoding=tok, eot="</s>", progress=False)
    tokenize_files([src], tmp_path / "c", encoding=tok, eot=7, progress=False)
    assert np.concatenate(TokenDataset(tmp_path / "c").shards).tolist() == expected_ids(tok, DOCS[:2], 7)
    tokenize_files([src], tmp_path / "d", encoding=tok, eot=None, progress=False)
    assert np.concatenate(TokenDataset(tmp_path / "d").shards).tolist() == expected_ids(tok, DOCS[:2], None)


def test_not_a_tokenizer_json_is_named(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"model": {"type": "Nonsense"}}')
    with pytest.raises(ValueError, match=r"bad\.json: not a tokenizer\.json"):
        as_encoder(str(bad))
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    with pytest.raises(ValueError, match=r"broken\.json"):
        as_encoder(str(broken))


@pytest.mark.parametrize("name, eot_token", [("mistral_v1_tokenizer.json", "</s>"),
                                             ("llama3_tokenizer.json", "<|end_of_text|>"),
                                             ("gpt2_tokenizer.json", "<|endoftext|>"),
                                             ("minilm_bert_uncased_tokenizer.json", None)])
def test_published_tokenizer_json_files(tmp_path, name, eot_token):
    """SentencePiece-style BPE with a BOS post-processor, Llama 3's byte-level BPE, GPT-2's
    (whose file truncates at 50 tokens) and WordPiece (truncating and padding to 128): the
    documents are encoded whole, longer than those limits."""
    need_shared()
    tok = str(MODELS / "hf" / name)
    src = tmp_path / "docs.jsonl"
    write_jsonl(src, DOCS)
    tokenizers = need_extra("tokenizers", "test")
    ref = tokenizers.Tokenizer.from_file(tok)
    eot = ref.token_to_id(eot_token) if eot_token else ref.token_to_id("[SEP]")
    kw = {} if eot_token else {"eot": "[SEP]"}
    tokenize_files([src], tmp_path / "out", encoding=tok, progress=False, **kw)
    ds = TokenDataset(tmp_path / "out")
    assert np.concatenate(ds.shards).tolist() == expected_ids(tok, DOCS, eot)
    assert max(len(ds.document(i)) for i in range(len(ds))) > 128 and len(ds.document(2)) == 0
    assert count_files([src], tok) == {str(src): len(expected_ids(tok, DOCS, None))}


def test_tokenizer_object_with_truncation_is_left_as_it_is(tmp_path):
    from tokenforge import Tokenizer

    tok_file = train_json(tmp_path, ["<|endoftext|>"])
    tok = Tokenizer.from_file(tok_file)
    tok.enable_truncation(5)
    src = tmp_path / "docs.jsonl"
    write_jsonl(src, DOCS)
    tokenize_files([src], tmp_path / "out", encoding=tok, progress=False)
    assert np.concatenate(TokenDataset(tmp_path / "out").shards).tolist() == expected_ids(tok_file, DOCS, 400)
    assert tok.truncation["max_length"] == 5 and len(tok.encode(DOCS[1]).ids) == 5
