"""SentencePiece-style ``tokenizer.json`` -> GGUF (``llama``, ``t5``) -> tokenforge.

References: HF `tokenizers` 0.23.3 on the original file (Mistral v1, Gemma, ruT5, and the
files ``Tokenizer.from_sentencepiece`` writes), sentencepiece on the ``.model`` of the same
model, and `gguf`'s own reader for the written file.  Where llama.cpp's convention differs
from the file's, the text compared is the text on which they agree, and the test says so:

- ruT5's file collapses runs of spaces but keeps a trailing one (llama.cpp's
  ``remove_extra_whitespaces`` drops it): lines are compared right-stripped;
- `tokenizers` and sentencepiece choose differently between Unigram segmentations of equal
  score and apply ruT5's charsmap differently to some combining sequences; the GGUF follows
  sentencepiece (checked on every line), and equals `tokenizers` on the lines where
  `tokenizers` and sentencepiece agree;
- Gemma's user-defined ``▁▁...`` tokens are matched by HF in the raw text, where a ``▁`` is
  never a space: lines holding a literal ``▁`` are left out.
"""

from __future__ import annotations

import json

import pytest
from _gguf import need_gguf
from _shared import MODELS, corpus_sample
from hypothesis import given, settings
from hypothesis import strategies as st

import tokenforge

HF = MODELS / "hf"


def _lines(name: str, n: int = 400) -> list[str]:
    text = corpus_sample(name).split("\n")
    return [t for t in text[:: max(1, len(text) // n)] if t]


def _reference(path_or_dict):
    tokenizers = pytest.importorskip("tokenizers")
    if isinstance(path_or_dict, dict):
        ref = tokenizers.Tokenizer.from_str(json.dumps(path_or_dict))
    else:
        ref = tokenizers.Tokenizer.from_file(str(path_or_dict))
    ref.no_padding()
    ref.no_truncation()
    return ref


_CACHE: dict = {}


def _mistral(tmp_path_factory):
    """Mistral v1's tokenizer.json written as a GGUF once per session, and read back."""
    if "mistral" not in _CACHE:
        need_gguf()
        path = tmp_path_factory.mktemp("spm_json") / "mistral.gguf"
        tokenforge.Tokenizer.from_file(HF / "mistral_v1_tokenizer.json").to_gguf(path)
        _CACHE["mistral"] = path, tokenforge.Tokenizer.from_gguf(path), _reference(HF / "mistral_v1_tokenizer.json")
    return _CACHE["mistral"]


def test_mistral_gguf_encodes_and_decodes_as_tokenizers(tmp_path_factory):
    _, tok, ref = _mistral(tmp_path_factory)
    for line in _lines("en") + _lines("code") + _lines("multi") + _lines("mixed"):
        ours, theirs = tok.encode(line), ref.encode(line)
        assert ours.ids == theirs.ids, line  # <s> added as the file's template says
        assert tok.decode(ours.ids) == ref.decode(theirs.ids), line


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(list("ab ab\n\t ÿé中文🙂0123") + ["<unk>", "<s>", "</s>", "  ", "the", "▁"]),
                max_size=20).map("".join))
def test_mistral_gguf_matches_tokenizers_on_generated_text(tmp_path_factory, text):
    _, tok, ref = _mistral(tmp_path_factory)
    assert tok.encode(text, add_special_tokens=False).ids == ref.encode(text, add_special_tokens=False).ids


def test_mistral_gguf_values_read_back_by_gguf_and_tokenforge(tmp_path_factory):
    """The `gguf` package reads the written file to the tokens, scores, types and flags
    tokenforge converted; tokenforge's reader gives the same vocabulary."""
    import gguf

    from tokenforge.gguf import read_vocab, vocab_from_json

    path, _, _ = _mistral(tmp_path_factory)
    vocab = vocab_from_json(HF / "mistral_v1_tokenizer.json")
    assert read_vocab(path) == vocab
    fields = gguf.GGUFReader(path).fields

    def array(key):
        f = fields["tokenizer.ggml." + key]
        return [bytes(f.parts[i]).decode() if key == "tokens" else f.parts[i][0].item() for i in f.data]

    def scalar(key):
        f = fields["tokenizer.ggml." + key]
        return f.parts[f.data[0]][0].item()

    assert array("tokens") == vocab.tokens and array("token_type") == vocab.token_types
    assert array("scores") == vocab.scores
    assert bytes(fields["tokenizer.ggml.model"].parts[-1]).decode() == "llama"
    assert (scalar("add_bos_token"), scalar("add_eos_token"), scalar("add_space_prefix")) == (True, False, True)
    assert (scalar("bos_token_id"), scalar("eos_token_id"), scalar("unknown_token_id")) == (1, 2, 0)


def test_rut5_gguf_follows_sentencepiece_and_tokenizers_where_they_agree(tmp_path):
    need_gguf()
    spm = pytest.importorskip("sentencepiece")
    from tokenforge.gguf import load

    path = HF / "rut5_tokenizer.json"
    tokenforge.Tokenizer.from_file(path).to_gguf(tmp_path / "rut5.gguf")
    ours, face, ref = load(tmp_path / "rut5.gguf"), tokenforge.Tokenizer.from_gguf(tmp_path / "rut5.gguf"), _reference(path)
    sp = spm.SentencePieceProcessor(model_file=str(MODELS / "sentencepiece" / "rut5_spiece.model"))
    assert ours.special_ids["unk"] == 0  # the file's unk_id (the .model's is 1)
    lines = [s.rstrip() for c in ("en", "code", "multi", "mixed") for s in _lines(c, 250) if s.rstrip()]
    agree = 0
    for line in lines:
        ids = ours.encode(line)  # </s> added, as the file's template
        assert ids == [0 if i == 1 else i for i in sp.encode(line, add_eos=True)], line
        assert face.encode(line).ids == ids, line
        theirs = ref.encode(line).ids
        if theirs == ids:
            agree += 1
        else:  # a tie or charsmap difference between tokenizers and sentencepiece
            assert theirs != [0 if i == 1 else i for i in sp.encode(line, add_eos=True)], line
    assert agree >= 0.97 * len(lines)


def test_gemma_vocab_encodes_as_tokenizers():
    """Gemma's 256k-token file (converted in memory: writing and reading it back is what the
    Mistral test checks, at a tenth of the time)."""
    need_gguf()
    from tokenforge.gguf import GGUFTokenizer, vocab_from_json

    path = HF / "gemma_tokenizer.json"
    vocab = vocab_from_json(path)
    assert (vocab.add_space_prefix, vocab.add_bos, vocab.special_ids) == (False, True,
                                                                           {"unk": 3, "bos": 2, "eos": 1, "pad": 0})
    assert vocab.token_types[vocab.tokens.index("\u2581\u2581")] == 1  # a run of spaces: made by merges
    assert vocab.token_types[vocab.tokens.index("\n\n")] == 4  # cut out of the raw text, as HF does
    tok, ref = GGUFTokenizer(vocab), _reference(path)
    for line in _lines("en", 200) + _lines("code", 200) + _lines("multi", 200) + _lines("mixed", 200):
        if "\u2581" not in line:
            assert tok.encode(line, parse_special=True) == ref.encode(line).ids, line


@pytest.mark.parametrize("model", ["llama2_tokenizer.model", "mistral_v3_tokenizer.model", "rut5_spiece.model",
                                   "kyoto_ja_unigram_8000.model"])
def test_from_sentencepiece_json_to_gguf_encodes_as_sentencepiece(model, tmp_path):
    """.model -> Tokenizer.from_sentencepiece -> tokenizer.json -> GGUF: sentencepiece's ids."""
    need_gguf()
    spm = pytest.importorskip("sentencepiece")
    from tokenforge.gguf import load

    path = MODELS / "sentencepiece" / model
    tokenforge.Tokenizer.from_sentencepiece(path).to_gguf(tmp_path / "m.gguf")
    ours, sp = load(tmp_path / "m.gguf"), spm.SentencePieceProcessor(model_file=str(path))
    assert not ours.add_bos and not ours.add_eos  # the written tokenizer.json adds none
    for line in _lines("en", 100) + _lines("multi", 100) + _lines("mixed", 100):
        assert ours.encode(line) == sp.encode(line), line


def _bpe(vocab: dict, merges: list[str], **model) -> dict:
    return {"model": {"type": "BPE", "byte_fallback": True, "unk_token": "<unk>", "vocab": vocab, "merges": merges,
                      **model},
            "normalizer": {"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"},
            "added_tokens": [{"id": 0, "content": "<unk>", "special": True}]}


_V = {"<unk>": 0, "a": 1, "b": 2, "c": 3, "ab": 4, "bc": 5, "abc": 6}
_M = ["a b", "b c", "ab c", "a bc"]


@pytest.mark.parametrize("j, message", [
    (_bpe(_V, ["a b", "b c", "ab c"]), "'a' \\+ 'bc' make the token 'abc' but are not a merge"),
    (_bpe(_V, ["a b", "b c", "ab c", "a bc"]), None),
    (_bpe(_V, ["a b", "ab c", "b c", "a bc"]), "the merges making 'abc' are not contiguous"),
    (_bpe(_V, ["a b", "b c", "ab c", "a bc"], byte_fallback=False), "without byte_fallback"),
    (_bpe(_V, ["a b", "b c", "ab c", "a bc"], continuing_subword_prefix="##"), "no continuing_subword_prefix"),
    ({**_bpe(_V, _M), "normalizer": {"type": "NFKC"}}, "normalizer step .*'NFKC'.* has no such step"),
    ({**_bpe(_V, _M), "normalizer": None}, "spaces stay spaces"),
    ({**_bpe({**_V, "\u2581a": 7, "a\u2581": 8}, _M), "normalizer": None,
      "pre_tokenizer": {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always", "split": True}},
     "tokens such as 'a▁' hold a ▁ inside"),
    ({**_bpe(_V, _M), "added_tokens": [{"id": 7, "content": "<x>", "special": True, "lstrip": True}]}, "has lstrip"),
    ({**_bpe(_V, _M), "post_processor": {"type": "RobertaProcessing", "sep": ["</s>", 2], "cls": ["<s>", 1]}},
     "llama.cpp adds at most a BOS before and an EOS after"),
])
def test_refusals_say_why(j, message, tmp_path):
    need_gguf()
    from tokenforge.gguf import vocab_from_json

    if message is None:
        assert vocab_from_json(j).scores == [0.0, -5.0, -6.0, -7.0, 0.0, -1.0, -2.0]  # worked by hand
        return
    with pytest.raises(ValueError, match=message):
        vocab_from_json(j)
    with pytest.raises(ValueError, match=message):
        tokenforge.Tokenizer.from_str(json.dumps(j)).to_gguf(tmp_path / "x.gguf")
    assert not (tmp_path / "x.gguf").exists()


@pytest.mark.parametrize("model, message", [
    ("botchan_en_bpe_1000.model", "would ignore this pipeline's a Precompiled charsmap and collapsed spaces"),
    ("llama2c_tok512.model", "would ignore this pipeline's collapsed spaces"),
])
def test_bpe_pipelines_llama_cpp_would_not_follow_are_refused(model, message, tmp_path):
    need_gguf()
    tok = tokenforge.Tokenizer.from_sentencepiece(MODELS / "sentencepiece" / model)
    with pytest.raises(ValueError, match=message):
        tok.to_gguf(tmp_path / "x.gguf")
