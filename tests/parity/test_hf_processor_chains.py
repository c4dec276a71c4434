"""Post-processors chained in a Sequence, against `tokenizers` itself.

tokenizers' BertProcessing and RobertaProcessing frame each encoding on their own (one out per
sequence in), TemplateProcessing gives its pieces one by one, and a second trimming
processor trims the offsets the first one left: so what a processor after them sees differs,
and shows in the result."""

from __future__ import annotations

import pytest
from _hf_json import diff, load_fresh
from _shared import need_shared

TEXTS = [("Hello world it is", None), ("  Hello  there you ", "there now and then"), ("", ""), ("a", None)]


def _chains():
    from tokenizers import processors as pr

    bert = lambda: pr.BertProcessing(("<|endoftext|>", 50256), ("a", 64))  # noqa: E731
    roberta = lambda t: pr.RobertaProcessing(("<|endoftext|>", 50256), ("a", 64), trim_offsets=t)  # noqa: E731
    plain = lambda: pr.TemplateProcessing(single="$A", pair="$A $B:1")  # noqa: E731
    framed = lambda: pr.TemplateProcessing(single="a $A", pair="a $A $B:1", special_tokens=[("a", 64)])  # noqa: E731
    return [
        pr.Sequence([bert(), roberta(True)]), pr.Sequence([roberta(False), bert()]), pr.Sequence([roberta(True), plain()]),
        pr.Sequence([bert(), framed()]), pr.Sequence([framed(), bert()]),
        pr.Sequence([pr.ByteLevel(trim_offsets=True), pr.ByteLevel(trim_offsets=True)]),
        pr.Sequence([pr.ByteLevel(trim_offsets=True), roberta(True)]),
    ]


@pytest.mark.parametrize("k", range(7))
def test_chained_processors(k):
    need_shared()
    from tokenforge.tokenizer import Tokenizer

    ref, _ = load_fresh("gpt2_tokenizer.json")
    ref.post_processor = _chains()[k]
    for truncation in (None, 9):
        if truncation:
            ref.enable_truncation(truncation, stride=1)
        ours = Tokenizer.from_str(ref.to_str())
        for text, pair in TEXTS:
            for special in (True, False):
                try:
                    want = ref.encode(text, pair, add_special_tokens=special)
                except BaseException:  # noqa: BLE001 (tokenizers panics when the stride passes the room left)
                    with pytest.raises(ValueError):
                        ours.encode(text, pair, add_special_tokens=special)
                    continue
                got = ours.encode(text, pair, add_special_tokens=special)
                assert diff(want, got) is None, (text, pair, special, truncation, diff(want, got))
                batch = [text, text + " more"] if pair is None else [(text, pair), (text + " x", pair)]
                for x, y in zip(ref.encode_batch(batch, add_special_tokens=special),
                                ours.encode_batch(batch, add_special_tokens=special)):
                    assert diff(x, y) is None
