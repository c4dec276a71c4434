"""An added token marked `normalized` whose content the normalizer turns into "" (a zero-width
space under BERT's normalizer, a control character under ruT5's charsmap, an accent that
StripAccents removes), against `tokenizers` itself: its empty pattern matches at every byte
no other token's match covers, so each normalized piece is cut into single characters; a
non-ASCII character left outside every match is cut inside, where `tokenizers` panics and we
raise ValueError.  A piece that ends inside another `normalized` token's key makes
`tokenizers` loop until memory runs out: never asked of it here, only of us (ValueError)."""

from __future__ import annotations

import json

import pytest
from _hf_json import diff, lines
from _shared import MODELS, need_shared

TEXTS = ["hello world", "a\u0301b c", "", " ", "x", "ab\u200bcd", "\u00ad\u00ad", "Hello, how are you? I'm fine.",
         "caf\u00e9 na\u00efve", "x \u4e2d y", "[CLS] a [SEP]", "a\u2060b <s> c", "\x01a\x01", "a\u200b\u200bb",
         "xqzx qzx", "it's 2 qzxq"]


def _variant(name: str) -> str:
    """The tokenizer.json text of one case: a shared file, or one with a normalizer put in."""
    text = (MODELS / "hf" / name.split("+")[0]).read_text(encoding="utf-8")
    if "+" not in name:
        return text
    js = json.loads(text)
    drop = {"type": "Replace", "pattern": {"String": "\u2060"}, "content": ""}
    if name.endswith("+strip"):
        js["normalizer"] = {"type": "Sequence", "normalizers": [{"type": "NFD"}, {"type": "StripAccents"}, drop]}
    else:
        js["normalizer"] = {"type": "Sequence", "normalizers": [drop] + ([js["normalizer"]] if js["normalizer"] else [])}
    return json.dumps(js)


@pytest.mark.parametrize("name, char", [
    ("minilm_bert_uncased_tokenizer.json", "\u200b"), ("minilm_bert_uncased_tokenizer.json", "\u0301"),
    ("rut5_tokenizer.json", "\x01"), ("gpt2_tokenizer.json+strip", "\u0301"), ("gpt2_tokenizer.json+strip", "\u2060"),
    ("mistral_v1_tokenizer.json+replace", "\u2060"), ("gemma_tokenizer.json+replace", "\u2060"),
])
def test_empty_normalized_added_token(name, char):
    need_shared()
    import tokenizers

    from tokenforge.tokenizer import AddedToken, Tokenizer

    ref, ours = tokenizers.Tokenizer.from_str(_variant(name)), Tokenizer.from_str(_variant(name))
    for t in (ref, ours):
        t.no_padding()
        t.no_truncation()
    assert ref.normalizer.normalize_str(char) == ""
    # with a second normalized token, which takes its span whole (or none of it, single_word)
    ref.add_tokens([tokenizers.AddedToken(char, normalized=True), tokenizers.AddedToken("qzx", normalized=True, single_word=True)])
    ours.add_tokens([AddedToken(char, normalized=True), AddedToken("qzx", normalized=True, single_word=True)])
    compared = failed = 0
    for text in TEXTS + [char, "a" + char + "b"] + lines("en", 15) + lines("code", 10):
        for pair in (None, "pair " + char + " two"):
            for special in (True, False):
                try:
                    got = ours.encode(text, pair, add_special_tokens=special)
                except ValueError as e:
                    if "never returns" in str(e):
                        continue
                    with pytest.raises(BaseException, match="bad split"):  # pyo3's PanicException
                        ref.encode(text, pair, add_special_tokens=special)
                    failed += 1
                    continue
                assert diff(ref.encode(text, pair, add_special_tokens=special), got) is None, (text, pair, special)
                compared += 1
    assert compared > 0 and compared + failed > 100  # Metaspace files ("▁" in every piece) mostly fail


def test_piece_ending_inside_another_key_is_refused():
    from tokenforge.models import WordLevel
    from tokenforge.normalizers import Replace
    from tokenforge.tokenizer.added_vocabulary import AddedToken, AddedVocabulary

    av = AddedVocabulary()
    av.add([AddedToken("\u200b", normalized=True), AddedToken("ab", normalized=True)], WordLevel({"a": 0}))
    av.set_normalizer(Replace("\u200b", ""))
    assert av.find("xy", normalized=True) == [(1, (0, 0)), (None, (0, 1)), (1, (1, 1)), (None, (1, 2)), (1, (2, 2))]
    assert av.find("xaby", normalized=True) == [(1, (0, 0)), (None, (0, 1)), (2, (1, 3)), (None, (3, 4)), (1, (4, 4))]
    with pytest.raises(ValueError, match="never returns"):
        av.find("xa", normalized=True)
    with pytest.raises(ValueError, match="bad split"):
        av.find("x\u00e9", normalized=True)
