"""Added tokens with every mix of flags, added and added again, against `tokenizers` itself.

tokenizers 0.23.3 keeps, per id, the token as last added (its flags decide matching), a set
of the contents ever added as special (what decode's skip_special_tokens and
`encode_special_tokens` test), and the normalized form a `normalized` token had when added
(what id_to_token and decode give, kept when the token is added again as not normalized).
Its scan for added tokens goes on from a match's end even where rstrip took the whitespace
after it, so a token right after can take that whitespace again (BERT's normalizer puts a
space on both sides of a CJK character)."""

from __future__ import annotations

import random

import pytest
from _hf_json import diff, load_fresh
from _shared import need_shared

FILES = ["gpt2_tokenizer.json", "minilm_bert_uncased_tokenizer.json", "mistral_v1_tokenizer.json",
         "rut5_tokenizer.json"]
PARTS = ["a", "b", "ab", " ", "  ", "\n", "\t", "X", "é", "中", "!", "<", ">", "|", "1", "ß", "İ", "\u3000", "\u00a0",
         "x y"]


def _pair():
    import tokenizers

    from tokenforge.tokenizer import AddedToken

    return tokenizers.AddedToken, AddedToken


def _same_everywhere(ref, ours, texts) -> None:
    """Encodings (single, fast), decodes (both skip modes) and the token lists agree."""
    for text in texts:
        for special in (True, False):
            x, y = ref.encode(text, add_special_tokens=special), ours.encode(text, add_special_tokens=special)
            assert diff(x, y) is None, (text, special, diff(x, y))
            assert ref.encode_batch_fast([text], add_special_tokens=special)[0].ids == \
                ours.encode_batch_fast([text], add_special_tokens=special)[0].ids, text
            for skip in (True, False):
                assert ours.decode(x.ids, skip_special_tokens=skip) == ref.decode(x.ids, skip_special_tokens=skip), text
    assert _listed(ours) == _listed(ref)


def _listed(tok) -> list[tuple]:
    return [(i, t.content, t.single_word, t.lstrip, t.rstrip, t.normalized, t.special)
            for i, t in sorted(tok.get_added_tokens_decoder().items())]


@pytest.mark.parametrize("name", FILES)
def test_random_flags(name):
    """A few tokens with random flags (a content may come again with other flags, special or
    not) and texts made of them and of spaces, CJK, punctuation."""
    need_shared()
    ref_tok, our_tok = _pair()
    for seed in range(8):
        rng = random.Random(seed)
        ref, ours = load_fresh(name)
        contents = ["".join(rng.choice(PARTS) for _ in range(rng.randint(1, 3))).strip() or "tok" for _ in range(3)]
        for _ in range(rng.randint(1, 5)):
            flags = dict(content=rng.choice(contents), single_word=rng.random() < .3, lstrip=rng.random() < .3,
                         rstrip=rng.random() < .3, normalized=rng.random() < .5, special=rng.random() < .5)
            special = flags["special"]
            assert (ref.add_special_tokens if special else ref.add_tokens)([ref_tok(**flags)]) == \
                (ours.add_special_tokens if special else ours.add_tokens)([our_tok(**flags)])
        texts = ["".join(rng.choice(contents) if rng.random() < .5 else rng.choice(PARTS) for _ in range(rng.randint(1, 9)))
                 for _ in range(8)]
        _same_everywhere(ref, ours, texts)


def test_rstrip_whitespace_taken_again():
    """BERT: 中 normalizes to " 中 "; with rstrip the first match takes the next one's leading
    space, and the scan, going on from the match's end, still finds the next one there."""
    need_shared()
    ref_tok, our_tok = _pair()
    for lstrip in (False, True):
        ref, ours = load_fresh("minilm_bert_uncased_tokenizer.json")
        ref.add_special_tokens([ref_tok("中", rstrip=True, lstrip=lstrip, normalized=True)])
        ours.add_special_tokens([our_tok("中", rstrip=True, lstrip=lstrip, normalized=True)])
        _same_everywhere(ref, ours, ["中中\n", "中中中 x", "a中 中b", "中"])


def test_added_again():
    """A token added again takes the new flags; decode still skips a content once added as
    special; a normalized form, once kept, stays the decoded text; an AddedToken given to
    add_special_tokens without `normalized` becomes not normalized; the counts returned."""
    need_shared()
    ref_tok, our_tok = _pair()
    steps = [
        ("special", dict(content="X", normalized=True)),
        ("plain", dict(content="X", normalized=False)),
        ("plain", dict(content="zq", rstrip=True)),
        ("plain", dict(content="zq", rstrip=True)),  # equal in every field: not counted
        ("special", dict(content="zq")),
        ("plain", dict(content="zq", special=True, normalized=False)),
        ("plain", dict(content="hello")),  # in the vocab already
        ("special", dict(content="ABC", normalized=True)),  # decodes to its normalized form: not skipped
    ]
    for name in ("minilm_bert_uncased_tokenizer.json", "mistral_v1_tokenizer.json", "gpt2_tokenizer.json"):
        ref, ours = load_fresh(name)
        for kind, flags in steps:
            a, b = ref_tok(**flags), our_tok(**flags)
            if kind == "special":
                assert ref.add_special_tokens([a]) == ours.add_special_tokens([b]), flags
                assert a.special and b.special and a.normalized == b.normalized
            else:
                assert ref.add_tokens([a]) == ours.add_tokens([b]), flags
            _same_everywhere(ref, ours, ["x X zq  y", "XX", "ABC abc zq hello", "X1X zq"])
            assert ours.id_to_token(ours.token_to_id("X")) == ref.id_to_token(ref.token_to_id("X"))


def test_token_changed_after_adding():
    """The vocabulary keeps a copy: changing an AddedToken after adding it changes nothing."""
    need_shared()
    ref_tok, our_tok = _pair()
    ref, ours = load_fresh("gpt2_tokenizer.json")
    a, b = ref_tok("zq"), our_tok("zq")
    ref.add_tokens([a])
    ours.add_tokens([b])
    a.special = b.special = True  # (tokenizers lets only `special` be set)
    _same_everywhere(ref, ours, ["a zq   b"])


def test_lstrip_token_inside_taken_whitespace():
    """A whitespace token with lstrip found inside the whitespace an rstrip token took would
    start after its end: tokenizers panics ("AddedVocabulary bad split"), we raise ValueError;
    where it does not, both give the overlapping spans."""
    need_shared()
    ref_tok, our_tok = _pair()
    ref, ours = load_fresh("gpt2_tokenizer.json")
    for t, tok in ((ref, ref_tok), (ours, our_tok)):
        t.add_tokens([tok("XQ", rstrip=True), tok("  ", lstrip=True)])
    for text in ["XQ   a", "XQ    b"]:
        with pytest.raises(BaseException):  # noqa: B017 (a Rust panic: no narrower type)
            ref.encode(text)
        with pytest.raises(ValueError, match="bad split"):
            ours.encode(text)
    _same_everywhere(ref, ours, ["a XQ  XQ b", "XQ  b", "XQ \n\t x"])
