"""tokenizer.json files like common Hub files that ../shared does not hold, made from the shared
vocabularies with the pipelines those files declare (BLOOM's nested-class Split regex before a
regex-free ByteLevel, Falcon's Punctuation/Digits/Split sequence, StarCoder's individual digits,
RoBERTa's processor, cased and accent-keeping BERT normalizers, XLNet's Replace/NFKD/charsmap
chain, T5's template), against `tokenizers` on sampled corpus lines: encode, encode_batch,
encode_batch_fast, pairs and decode.  Each takes whatever path tokenforge picks for it (native
or the Python pipeline), so a path that handles a pipeline it should not shows here."""

from __future__ import annotations

import copy
import json

import pytest
from _hf_json import albert_normalizer, diff, lines
from _shared import MODELS, need_shared


def _file(name: str) -> dict:
    return json.loads((MODELS / "hf" / f"{name}_tokenizer.json").read_text(encoding="utf-8"))


def _byte_level(prefix: bool = False, regex: bool = True) -> dict:
    return {"type": "ByteLevel", "add_prefix_space": prefix, "trim_offsets": True, "use_regex": regex}


def _split(pattern: str) -> dict:
    return {"type": "Split", "pattern": {"Regex": pattern}, "behavior": "Isolated", "invert": False}


def _config(kind: str) -> dict:
    if kind in ("bloom", "falcon", "starcoder", "roberta", "gpt2_prefix", "nested_and"):
        d = copy.deepcopy(_file("gpt2"))
        pre = {
            "bloom": [_split(" ?[^(\\s|[.,!?…。，、।۔،])]+"), _byte_level(regex=False)],
            "nested_and": [_split("[a-z&&[^aeiou]]+|[[:digit:]]+"), _byte_level(regex=False)],
            "falcon": [{"type": "Punctuation", "behavior": "Contiguous"}, _byte_level(),
                       {"type": "Digits", "individual_digits": False}, _split("[0-9][0-9][0-9]")],
            "starcoder": [{"type": "Digits", "individual_digits": True}, _byte_level()],
            "roberta": [_byte_level()],
            "gpt2_prefix": [_byte_level(prefix=True)],
        }[kind]
        d["pre_tokenizer"] = {"type": "Sequence", "pretokenizers": pre} if len(pre) > 1 else pre[0]
        if kind == "roberta":
            d["post_processor"] = {"type": "RobertaProcessing", "sep": ["</s>", 50256], "cls": ["<s>", 50256],
                                   "trim_offsets": True, "add_prefix_space": False}
        return d
    if kind in ("bert_cased", "bert_no_chinese"):
        d = copy.deepcopy(_file("minilm_bert_uncased"))
        d["normalizer"] = {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": kind == "bert_cased",
                           "strip_accents": None if kind == "bert_cased" else True, "lowercase": kind != "bert_cased"}
        return d
    d = copy.deepcopy(_file("rut5"))
    if kind == "xlnet_like":
        d["normalizer"] = albert_normalizer(d["normalizer"]["normalizers"][0])
    else:  # t5: `$A </s>` and `$A </s> $B </s>`
        seq = lambda name: {"Sequence": {"id": name, "type_id": 0}}  # noqa: E731
        end = {"SpecialToken": {"id": "</s>", "type_id": 0}}
        d["post_processor"] = {"type": "TemplateProcessing", "single": [seq("A"), end],
                               "pair": [seq("A"), end, seq("B"), end],
                               "special_tokens": {"</s>": {"id": "</s>", "ids": [1], "tokens": ["</s>"]}}}
    return d


KINDS = ["bloom", "nested_and", "falcon", "starcoder", "roberta", "gpt2_prefix", "bert_cased", "bert_no_chinese",
         "xlnet_like", "t5"]


@pytest.mark.parametrize("kind", KINDS)
def test_hub_like_file(kind):
    need_shared()
    import tokenizers

    from tokenforge.tokenizer import Tokenizer

    text = json.dumps(_config(kind))
    ref, ours = tokenizers.Tokenizer.from_str(text), Tokenizer.from_str(text)
    for t in (ref, ours):
        t.no_truncation()
        t.no_padding()
    sample = [ln for c in ("en", "multi", "code", "mixed") for ln in lines(c, 25, seed=12)]
    for ln in sample:
        assert diff(ref.encode(ln), ours.encode(ln)) is None, (kind, ln[:60], diff(ref.encode(ln), ours.encode(ln)))
    for x, y in zip(ref.encode_batch(sample), ours.encode_batch(sample)):
        assert diff(x, y) is None, kind
    for x, y in zip(ref.encode_batch_fast(sample), ours.encode_batch_fast(sample)):
        assert x.ids == y.ids, kind
        assert ours.decode(y.ids) == ref.decode(x.ids)
    for a, b in zip(sample[:20:2], sample[1:20:2]):
        assert diff(ref.encode(a, b), ours.encode(a, b)) is None, kind
