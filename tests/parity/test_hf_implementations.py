"""tokenforge.implementations against tokenizers.implementations: each ready-made tokenizer
trained on the same lines gives the same tokenizer.json where tokenizers' own training is
deterministic (ByteLevelBPETokenizer, SentencePieceBPETokenizer), and the same substance where
it is not (CharBPETokenizer's `</w>` and BertWordPieceTokenizer's `##` tokens are numbered in
hash-map order there); built from files, they encode as tokenizers'; `from_spm` reads a
sentencepiece Unigram model without protobuf into the pipeline tokenizers' from_spm builds."""

from __future__ import annotations

import json

import pytest
from _hf_json import diff, lines
from _shared import MODELS, corpus_sample, need_shared

DETERMINISTIC = [
    ("ByteLevelBPETokenizer", {}),
    ("ByteLevelBPETokenizer", {"add_prefix_space": True, "lowercase": True, "unicode_normalizer": "nfkc",
                               "trim_offsets": True}),
    ("SentencePieceBPETokenizer", {"add_prefix_space": False}),
]


def _texts(size: int = 50_000) -> list[str]:
    return corpus_sample("mixed")[:size].split("\n")


@pytest.mark.parametrize("name,kw", DETERMINISTIC)
def test_trained_as_tokenizers(name, kw):
    need_shared()
    import tokenizers.implementations as theirs

    import tokenforge.implementations as ours

    a, b = getattr(theirs, name)(**kw), getattr(ours, name)(**kw)
    train = {"vocab_size": 800, "show_progress": False}
    if name == "SentencePieceBPETokenizer":
        train["limit_alphabet"] = 100_000  # (a cut among equal counts is tokenizers' hash order)
    a.train_from_iterator(_texts(), **train)
    b.train_from_iterator(_texts(), **train)
    assert json.loads(b.to_str()) == json.loads(a.to_str())
    for text in lines("en", 20, seed=5) + lines("multi", 10, seed=5):
        assert diff(a.encode(text), b.encode(text)) is None
        ids = a.encode(text).ids
        assert b.decode(ids) == a.decode(ids)
    assert repr(b) == repr(a)


@pytest.mark.parametrize("name", ["CharBPETokenizer", "BertWordPieceTokenizer"])
def test_nondeterministic_ones_agree_in_substance(name, tmp_path):
    need_shared()
    import tokenizers.implementations as theirs

    import tokenforge.implementations as ours

    a, b = getattr(theirs, name)(), getattr(ours, name)()
    path = tmp_path / "train.txt"
    path.write_text("\n".join(_texts()), encoding="utf-8")
    a.train(str(path), vocab_size=700, show_progress=False, limit_alphabet=100_000)
    b.train(str(path), vocab_size=700, show_progress=False, limit_alphabet=100_000)
    x, y = a.get_vocab(), b.get_vocab()
    assert len(x) == len(y) and len(set(x) & set(y)) > 0.9 * len(x)
    for k in ("normalizer", "pre_tokenizer", "decoder", "post_processor", "added_tokens"):
        assert json.loads(b.to_str())[k] == json.loads(a.to_str())[k], k


def test_from_files(tmp_path):
    """Built from a saved model (save_model), each encodes as tokenizers' built the same way."""
    need_shared()
    import tokenizers.implementations as theirs

    import tokenforge.implementations as ours

    ref = theirs.ByteLevelBPETokenizer()
    ref.train_from_iterator(_texts(), vocab_size=900, show_progress=False)
    vocab, merges = ref.save_model(str(tmp_path))
    wp = str(MODELS / "hf" / "bert_uncased_vocab.txt")
    pairs = [(theirs.ByteLevelBPETokenizer.from_file(vocab, merges), ours.ByteLevelBPETokenizer.from_file(vocab, merges)),
             (theirs.CharBPETokenizer.from_file(vocab, merges, bert_normalizer=False),
              ours.CharBPETokenizer.from_file(vocab, merges, bert_normalizer=False)),
             (theirs.BertWordPieceTokenizer.from_file(wp), ours.BertWordPieceTokenizer.from_file(wp))]
    for a, b in pairs:
        assert json.loads(b.to_str()) == json.loads(a.to_str())
        for text in lines("en", 15, seed=6) + lines("code", 5, seed=6):
            try:
                want = a.encode(text)
            except Exception:  # noqa: BLE001 (CharBPE over a byte-level vocab: no <unk> for a character)
                with pytest.raises(ValueError):
                    b.encode(text)
                continue
            assert diff(want, b.encode(text)) is None
    with pytest.raises(TypeError):
        ours.BertWordPieceTokenizer({"a": 0, "[UNK]": 1})  # no [SEP] in the vocab: tokenizers raises TypeError too


def test_from_spm():
    need_shared()
    import tokenizers
    from tokenizers import Regex, decoders, normalizers, pre_tokenizers
    from tokenizers.models import Unigram

    from tokenforge.formats.sentencepiece_model import ModelProto
    from tokenforge.implementations import SentencePieceUnigramTokenizer

    path = MODELS / "sentencepiece" / "rut5_spiece.model"
    ours = SentencePieceUnigramTokenizer.from_spm(path)
    m = ModelProto.load(str(path))  # the same fields tokenizers' from_spm reads with protobuf
    ref = tokenizers.Tokenizer(Unigram([(p.piece, p.score) for p in m.pieces], m.trainer_spec.unk_id,
                                       m.trainer_spec.byte_fallback))
    ref.normalizer = normalizers.Sequence([normalizers.Precompiled(m.normalizer_spec.precompiled_charsmap),
                                           normalizers.Replace(Regex(" {2,}"), " ")])
    ref.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always")
    ref.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="always")
    assert json.loads(ours.to_str()) == json.loads(ref.to_str())
    for text in lines("multi", 15, seed=7) + lines("en", 10, seed=7):
        assert diff(ref.encode(text), ours.encode(text)) is None
    with pytest.raises(ValueError):
        SentencePieceUnigramTokenizer.from_spm(MODELS / "sentencepiece" / "botchan_en_bpe_1000.model")
    with pytest.raises(NotImplementedError):
        ours.train_from_iterator(["a b"])
