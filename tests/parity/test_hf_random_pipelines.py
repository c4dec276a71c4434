"""Random normalizer and pre-tokenizer mixes (every type, random options, Sequences of up to
three) put into shared files, against `tokenizers` itself: Encodings (offsets through every
alignment), fast ids and decodes on text of spaces, marks, CJK, emoji and punctuation."""

from __future__ import annotations

import random

import pytest
from _hf_json import diff, load_fresh
from _shared import need_shared

PARTS = ["a", "B", "ab", "Hello", " ", "  ", "\n", "\t", "é", "e\u0301", "中文", "!", "?", ",", "'s", "1", "123", "4567",
         "ß", "İ", "ﬁ", "Ⅻ", "\u3000", "\u00a0", "\u200b", "x y", "_", "▁", "😀", "ǅ", "ΣΑΣ", "Straße", "\r\n", "-", "..."]
BEHAVIORS = ["removed", "isolated", "merged_with_previous", "merged_with_next", "contiguous"]


def _normalizer(r: random.Random):
    import tokenizers
    from tokenizers import normalizers as n

    kinds = [
        n.NFC, n.NFD, n.NFKC, n.NFKD, n.Lowercase, n.StripAccents, n.Nmt,
        lambda: n.Strip(left=r.random() < .5, right=r.random() < .5),
        lambda: n.Replace(r.choice([" ", "a", "1", "  "]), r.choice(["▁", "", "x", "  "])),
        lambda: n.Replace(tokenizers.Regex(r.choice([r"\s+", r"\d", r"[a-z]+", r" {2,}", r"\p{P}"])), r.choice([" ", "", "#"])),
        lambda: n.Prepend(r.choice(["▁", "x", " "])),
        lambda: n.BertNormalizer(clean_text=r.random() < .5, handle_chinese_chars=r.random() < .5,
                                 strip_accents=r.choice([None, True, False]), lowercase=r.random() < .5),
    ]
    k = r.randint(0, 3)
    return None if k == 0 else n.Sequence([r.choice(kinds)() for _ in range(k)])


def _pre_tokenizer(r: random.Random):
    import tokenizers
    from tokenizers import pre_tokenizers as p

    kinds = [
        p.Whitespace, p.WhitespaceSplit, p.BertPreTokenizer, p.UnicodeScripts,
        lambda: p.Punctuation(r.choice(BEHAVIORS)),
        lambda: p.Digits(individual_digits=r.random() < .5),
        lambda: p.Metaspace(replacement=r.choice(["▁", "_"]), prepend_scheme=r.choice(["always", "first", "never"]),
                            split=r.random() < .5),
        lambda: p.ByteLevel(add_prefix_space=r.random() < .5, use_regex=r.random() < .7, trim_offsets=r.random() < .5),
        lambda: p.Split(r.choice([" ", "a", "1", "ab"]), r.choice(BEHAVIORS), invert=r.random() < .3),
        lambda: p.Split(tokenizers.Regex(r.choice([r"\s+", r"\d+", r"\p{L}+", r"'s|'t|\p{L}+|\p{N}", r"\p{P}",
                                                    r" ?\p{L}+| ?[^\s\p{L}]+|\s+(?!\S)|\s+"])),
                        r.choice(BEHAVIORS), invert=r.random() < .3),
        lambda: p.FixedLength(r.randint(1, 4)),
        lambda: p.CharDelimiterSplit(r.choice([" ", "a", "▁"])),
    ]
    k = r.randint(0, 3)
    return None if k == 0 else p.Sequence([r.choice(kinds)() for _ in range(k)])


@pytest.mark.parametrize("name", ["gpt2_tokenizer.json", "minilm_bert_uncased_tokenizer.json", "mistral_v1_tokenizer.json"])
def test_random_pipelines(name):
    need_shared()
    from tokenforge.tokenizer import Tokenizer

    ref, _ = load_fresh(name)
    for seed in range(16):
        r = random.Random(seed)
        ref.normalizer = _normalizer(r)
        ref.pre_tokenizer = _pre_tokenizer(r)
        ours = Tokenizer.from_str(ref.to_str())
        for _ in range(8):
            text = "".join(r.choice(PARTS) for _ in range(r.randint(0, 12)))
            pair = "".join(r.choice(PARTS) for _ in range(r.randint(1, 6))) if r.random() < .3 else None
            want = ref.encode(text, pair)
            assert diff(want, ours.encode(text, pair)) is None, (seed, text, pair)
            assert ours.encode_batch_fast([text])[0].ids == ref.encode_batch_fast([text])[0].ids, (seed, text)
            for skip in (True, False):
                assert ours.decode(want.ids, skip_special_tokens=skip) == ref.decode(want.ids, skip_special_tokens=skip)
