"""Reading and writing GGUF tokenizer metadata: round trips through files, checked with the
`gguf` package's own reader, and conversions from tiktoken ranks and SentencePiece models
that must encode as the original does (expected ids from tiktoken / sentencepiece)."""

from __future__ import annotations

import pytest
from _gguf import need_gguf, read, vectors, vocab_path
from _shared import MODELS, corpus_sample

from tokenforge.gguf import GGUFTokenizer, GGUFVocab, load, read_vocab, vocab_from_encoding, write_vocab
from tokenforge.gguf.vocab import PREFIX


def _tokenizer_fields(path) -> dict:
    """key -> (types, value) of every tokenizer.* key, as gguf's reader gives them."""
    import gguf

    reader = gguf.GGUFReader(path)
    return {k: ([t.name for t in f.types], f.contents()) for k, f in reader.fields.items() if k.startswith("tokenizer.")}


def test_round_trip_keeps_every_tokenizer_value(tmp_path):
    need_gguf()
    original = vocab_path("llama-spm")
    vocab = read("llama-spm")
    write_vocab(vocab, tmp_path / "again.gguf")
    assert read_vocab(tmp_path / "again.gguf") == vocab
    before, after = _tokenizer_fields(original), _tokenizer_fields(tmp_path / "again.gguf")
    assert after == before
    tok = load(tmp_path / "again.gguf")
    for text, ids in vectors("llama-spm"):
        assert tok.encode(text, add_special=False) == ids


def test_extra_keys_and_general_name_survive(tmp_path):
    need_gguf()
    import gguf

    t = gguf.GGUFValueType
    v = GGUFVocab(model="gpt2", pre="gpt-2", tokens=["a", "b", "ab", "<|x|>"], token_types=[1, 1, 1, 3],
                  merges=["a b"], special_ids={"eos": 3, "sep": 0}, add_bos=False, name="tiny",
                  extra={"tokenizer.chat_template": ("{{ x }}", t.STRING, None),
                         PREFIX + "token_type_count": (2, t.UINT32, None)})
    write_vocab(v, tmp_path / "t.gguf")
    again = read_vocab(tmp_path / "t.gguf")
    assert again == GGUFVocab(**{**v.__dict__, "architecture": "llama"})
    fields = _tokenizer_fields(tmp_path / "t.gguf")
    assert fields[PREFIX + "seperator_token_id"] == (["UINT32"], 0)
    assert fields[PREFIX + "add_bos_token"] == (["BOOL"], False)
    assert fields["tokenizer.chat_template"] == (["STRING"], "{{ x }}")


def test_write_is_atomic(tmp_path, monkeypatch):
    need_gguf()
    import gguf

    path = tmp_path / "v.gguf"
    path.write_bytes(b"old")
    monkeypatch.setattr(gguf.GGUFWriter, "write_kv_data_to_file", lambda self: (_ for _ in ()).throw(OSError("disk full")))
    with pytest.raises(OSError, match="disk full"):
        write_vocab(GGUFVocab(model="gpt2", pre="gpt-2", tokens=["a"]), path)
    assert path.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["v.gguf"]


def test_r50k_to_gguf_encodes_as_tiktoken(tmp_path):
    need_gguf()
    pytest.importorskip("tiktoken")
    import gguf
    from _tiktoken_refs import pair

    from tokenforge.gguf.bytelevel import BYTE_TO_CHAR

    enc, ref = pair("r50k_base")
    write_vocab(vocab_from_encoding(enc), tmp_path / "r50k.gguf")
    # gguf's own reader sees the tokens: rank r is the bytes of rank r in GPT-2's alphabet.
    fields = gguf.GGUFReader(tmp_path / "r50k.gguf").fields
    tokens = fields[PREFIX + "tokens"].contents()
    b2c = BYTE_TO_CHAR
    assert len(tokens) == 50257 and tokens[50256] == "<|endoftext|>"
    assert all(tokens[r] == "".join(b2c[b] for b in raw) for raw, r in enc._mergeable_ranks.items())
    assert fields[PREFIX + "pre"].contents() == "gpt-2"
    tok = load(tmp_path / "r50k.gguf")
    text = corpus_sample("mixed")[:200_000]
    for line in text.split("\n"):
        assert tok.encode(line, add_special=False) == ref.encode_ordinary(line)
    assert tok.encode("hi<|endoftext|>", add_special=False, parse_special=True) == \
        ref.encode("hi<|endoftext|>", allowed_special="all")


@pytest.mark.parametrize("model", ["llama2_tokenizer.model", "mistral_v3_tokenizer.model", "botchan_en_unigram_1000.model"])
def test_sentencepiece_to_gguf_encodes_as_sentencepiece(model, tmp_path):
    need_gguf()
    spm = pytest.importorskip("sentencepiece")
    from tokenforge.gguf import vocab_from_sentencepiece

    path = MODELS / "sentencepiece" / model
    write_vocab(vocab_from_sentencepiece(path), tmp_path / "m.gguf")
    tok = load(tmp_path / "m.gguf")
    ref = spm.SentencePieceProcessor(model_file=str(path))
    assert tok.vocab.tokens == [ref.id_to_piece(i) for i in range(ref.get_piece_size())]
    lines = [s for s in corpus_sample("en")[:100_000].split("\n") + corpus_sample("multi")[:50_000].split("\n") if s]
    bad = [s for s in lines if tok.encode(s, add_special=False) != ref.encode(s)]
    assert not bad, f"{len(bad)} of {len(lines)} lines differ; first {bad[0][:80]!r}"
    assert tok.decode(ref.encode(lines[0])) == ref.decode(ref.encode(lines[0]))


@pytest.mark.parametrize("model", ["botchan_en_bpe_1000.model", "llama2c_tok512.model"])
def test_sentencepiece_bpe_llama_cpp_cannot_run_is_refused(model):
    need_gguf()
    from tokenforge.gguf import vocab_from_sentencepiece

    with pytest.raises(ValueError, match="llama.cpp's SentencePiece BPE .* would ignore"):
        vocab_from_sentencepiece(MODELS / "sentencepiece" / model)


def test_gguf_to_encoding_and_back_keeps_tokens(tmp_path):
    """A trained byte-level BPE -> GGUF -> tokenizer: the same ids as the Encoding."""
    need_gguf()
    import tokenforge

    text = corpus_sample("en")[:300_000]
    trainer = tokenforge.BpeTrainer(600, pat_str=tokenforge.patterns.GPT2, show_progress=False,
                                    special_tokens=["<|endoftext|>"])
    enc = trainer.train_from_iterator([text])
    write_vocab(vocab_from_encoding(enc), tmp_path / "t.gguf")
    tok = load(tmp_path / "t.gguf")
    sample = corpus_sample("code")[:100_000]
    assert tok.encode(sample, add_special=False) == enc.encode_ordinary(sample)
    assert tok.decode(tok.encode(sample, add_special=False)) == sample


def test_cl100k_is_llama_bpe_where_no_token_joins_the_cut():
    """llama-bpe cuts whitespace after a final newline apart; no cl100k token can join it
    (parity with tiktoken: tests/parity/test_gguf_cl100k.py)."""
    need_gguf()
    from _tiktoken_refs import pair

    assert vocab_from_encoding(pair("cl100k_base")[0]).pre == "llama-bpe"


def test_missing_extra_says_what_to_install(monkeypatch, tmp_path):
    import sys

    from tokenforge.gguf.reader import read_vocab_with_gguf

    vocab = GGUFVocab(model="gpt2", pre="gpt-2", tokens=["a", "b", "ab"], merges=["a b"])
    write_vocab(vocab, tmp_path / "y.gguf")
    monkeypatch.setitem(sys.modules, "gguf", None)
    # tokenforge's own walk needs no `gguf`; the default reader, gguf.GGUFReader, does
    assert read_vocab(tmp_path / "y.gguf", reader="tokenforge").tokens == vocab.tokens
    for read in (read_vocab, read_vocab_with_gguf):
        with pytest.raises(ImportError, match=r"pip install 'tokenforge\[gguf\]'"):
            read(tmp_path / "y.gguf")
    with pytest.raises(ImportError, match="gguf"):
        write_vocab(GGUFVocab(model="gpt2", tokens=["a"]), tmp_path / "x.gguf")


def test_engine_needs_no_gguf_package(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "gguf", None)
    v = GGUFVocab(model="llama", tokens=["<unk>", "<s>", "</s>", "▁", "a", "▁a"], scores=[0, 0, 0, -1, -2, -0.5],
                  token_types=[2, 3, 3, 1, 1, 1])
    assert GGUFTokenizer(v).encode("a") == [1, 5]


@pytest.mark.parametrize("file, pre", [("gpt2_tokenizer.json", "gpt-2"), ("llama3_tokenizer.json", "llama-bpe"),
                                       ("qwen3_tokenizer.json", "qwen2"), ("gpt35turbo_tokenizer.json", "llama-bpe"),
                                       ("deepseek_v3_tokenizer.json", "deepseek-v3")])
def test_tokenizer_json_pre_is_found_or_asked_for(file, pre):
    need_gguf()
    from tokenforge.gguf.convert import vocab_from_tokenizer_json

    path = MODELS / "hf" / file
    vocab = vocab_from_tokenizer_json(path)
    assert vocab.pre == pre and vocab.model == "gpt2"


def test_gpt2_tokenizer_json_to_gguf_encodes_as_tokenizers(tmp_path):
    need_gguf()
    tokenizers = pytest.importorskip("tokenizers")
    from tokenforge.gguf.convert import vocab_from_tokenizer_json

    path = MODELS / "hf" / "gpt2_tokenizer.json"
    write_vocab(vocab_from_tokenizer_json(path), tmp_path / "gpt2.gguf")
    tok = load(tmp_path / "gpt2.gguf")
    ref = tokenizers.Tokenizer.from_file(str(path))
    ref.no_truncation()
    for line in corpus_sample("multi")[:100_000].split("\n"):
        assert tok.encode(line, add_special=False, parse_special=True) == ref.encode(line, add_special_tokens=False).ids
