"""Tokenizers built in Python from parts, as tokenizers' tutorials build them, against
`tokenizers` itself: models from vocab/merges files (`BPE.from_file`, `WordPiece.from_file`,
`WordLevel.from_file`, filenames given to the constructor) and written back by `model.save`,
byte for byte; constructors' defaults; TemplateProcessing from template strs and (token, id)
pairs; the Strip decoder's `left`/`right`; `DecodeStream` started from a prompt's ids and
stepped with lists; `Encoding.merge`; `ByteLevel.alphabet`; BPE-dropout and Unigram sampling
(by their distributions: the draws are random)."""

from __future__ import annotations

import collections
import json
import math
import pathlib
import random

import pytest
from _hf_json import diff, lines, load
from _shared import MODELS, need_shared


def _pair(kind: str, folder):
    """(tokenizers.Tokenizer, ours) over a model of `kind` read from files written by tokenizers."""
    import tokenizers
    from tokenizers import models as hm

    from tokenforge import models as m
    from tokenforge.tokenizer import Tokenizer

    if kind == "bpe":
        ref, _ = load("gpt2_tokenizer.json")
        vocab, merges = ref.model.save(str(folder))
        return tokenizers.Tokenizer(hm.BPE.from_file(vocab, merges)), Tokenizer(m.BPE.from_file(vocab, merges))
    if kind == "bpe_names":
        ref, _ = load("gpt2_tokenizer.json")
        vocab, merges = ref.model.save(str(folder), "pre")
        return tokenizers.Tokenizer(hm.BPE(vocab, merges)), Tokenizer(m.BPE(vocab, merges))
    if kind == "wordpiece":
        path = str(MODELS / "hf" / "bert_uncased_vocab.txt")
        return tokenizers.Tokenizer(hm.WordPiece.from_file(path)), Tokenizer(m.WordPiece.from_file(path))
    if kind == "wordlevel":
        ref, _ = load("minilm_bert_uncased_tokenizer.json")
        vocab = {t: i for t, i in ref.get_vocab(with_added_tokens=False).items() if not t.startswith("##")}
        path = folder / "wl.json"
        path.write_text(json.dumps(vocab), encoding="utf-8")
        return (tokenizers.Tokenizer(hm.WordLevel.from_file(str(path), "[UNK]")),
                Tokenizer(m.WordLevel.from_file(str(path), "[UNK]")))
    raise AssertionError(kind)


def _dress(tok, lib, kind: str) -> None:
    """The normalizer, pre-tokenizer, post-processor and decoder a tutorial gives such a model."""
    n, p, pp, d = lib.normalizers, lib.pre_tokenizers, lib.processors, lib.decoders
    if kind.startswith("bpe"):
        tok.pre_tokenizer = p.ByteLevel(add_prefix_space=False)
        tok.decoder = d.ByteLevel()
        tok.post_processor = pp.TemplateProcessing(single="$A <|endoftext|>", pair="$A:0 <|endoftext|> $B:1",
                                                   special_tokens=[("<|endoftext|>", 50256)])
        return
    tok.normalizer = n.Sequence([n.NFD(), n.Lowercase(), n.StripAccents()])
    tok.pre_tokenizer = p.Whitespace() if kind == "wordlevel" else p.BertPreTokenizer()
    tok.post_processor = pp.TemplateProcessing(single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
                                               special_tokens=[("[CLS]", 101), (102, "[SEP]")])
    tok.decoder = d.WordPiece(prefix="##") if kind == "wordpiece" else d.Strip(" ", left=1)


class _Lib:
    def __init__(self, ours: bool):
        if ours:
            from tokenforge import decoders, normalizers, pre_tokenizers, processors
        else:
            from tokenizers import decoders, normalizers, pre_tokenizers, processors
        self.normalizers, self.pre_tokenizers = normalizers, pre_tokenizers
        self.processors, self.decoders = processors, decoders


@pytest.mark.parametrize("kind", ["bpe", "bpe_names", "wordpiece", "wordlevel"])
def test_built_from_files_encodes_as_tokenizers(kind, tmp_path):
    need_shared()
    ref, ours = _pair(kind, tmp_path)
    _dress(ref, _Lib(False), kind)
    _dress(ours, _Lib(True), kind)
    assert json.loads(ours.to_str()) == json.loads(ref.to_str())
    sample = lines("en", 25, seed=11) + lines("multi", 15, seed=11) + lines("code", 10, seed=11)
    for k, text in enumerate(sample):
        for special in (True, False):
            a, b = ref.encode(text, add_special_tokens=special), ours.encode(text, add_special_tokens=special)
            assert diff(a, b) is None, (kind, text[:60], diff(a, b))
            assert ours.decode(b.ids) == ref.decode(a.ids)
        pair = sample[(k + 1) % len(sample)]
        assert diff(ref.encode(text, pair), ours.encode(text, pair)) is None


@pytest.mark.parametrize("kind", ["bpe", "bpe_names", "wordpiece", "wordlevel"])
def test_model_save_writes_tokenizers_files(kind, tmp_path):
    """model.save writes the bytes tokenizers' save writes, and read_file reads them back."""
    need_shared()
    from tokenforge import models as m

    ref, ours = _pair(kind, tmp_path)
    (tmp_path / "ref").mkdir()
    (tmp_path / "ours").mkdir()
    for prefix in (None, "name"):
        a = ref.model.save(str(tmp_path / "ref"), prefix)
        b = ours.model.save(str(tmp_path / "ours"), prefix)
        assert [p.rsplit("/", 1)[1] for p in a] == [p.rsplit("/", 1)[1] for p in b]
        for x, y in zip(a, b):
            assert pathlib.Path(x).read_bytes() == pathlib.Path(y).read_bytes(), (kind, prefix, y)
    if kind.startswith("bpe"):
        import tokenizers.models as hm

        vocab, merges = hm.BPE.read_file(*a)
        got_vocab, got_merges = m.BPE.read_file(*b)
        assert got_vocab == vocab and got_merges == [tuple(x) for x in merges]


def test_unigram_save_and_defaults(tmp_path):
    need_shared()
    import tokenizers.models as hm

    from tokenforge import models as m

    ref, ours = load("rut5_tokenizer.json")
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    a, = ref.model.save(str(tmp_path / "a"))
    b, = ours.model.save(str(tmp_path / "b"))
    assert a.rsplit("/", 1)[1] == b.rsplit("/", 1)[1]
    x, y = json.loads(pathlib.Path(a).read_bytes()), json.loads(pathlib.Path(b).read_bytes())
    # (tokenizers' JSON reader may take a score one unit in the last place off the file's)
    xv, yv = x.pop("vocab"), y.pop("vocab")
    assert [p for p, _ in xv] == [p for p, _ in yv]
    assert all(math.isclose(s, t, rel_tol=1e-12) for (_, s), (_, t) in zip(xv, yv))
    assert x == y
    # Constructors with no arguments describe the same empty models as tokenizers'.
    for name in ("BPE", "WordPiece", "WordLevel", "Unigram"):
        want = json.loads(getattr(hm, name)().__getstate__())
        assert getattr(m, name)().to_dict() == want, name
    assert m.WordLevel({"a": 0}).to_dict() == json.loads(hm.WordLevel({"a": 0}).__getstate__())


_TEMPLATES = [
    ("[CLS] $A [SEP]", "[CLS] $A [SEP] $B:1 [SEP]:1"),
    ("$A", "$A $B"),
    ("$0 <e>:2", "$A:0 $B:1 <e>:7"),
    ("$ <e>", "$a $b:3"),
    ("$7", "$1 $B"),
    (["<s>", "$A", "</s>"], ["<s>", "$A", "</s>", "</s>", "$B", "</s>"]),
    (None, None),
    ("<e> $A", None),
    (None, "$B $A:1 <e>"),
]
_BAD = [("$A $B:x", None), ("$A:1:2", None), ("$A <missing>", None), ("$A", "$A <e>"), ("$A", "$B"),
        ("$A  <e>", None), ("$c", None)]


@pytest.mark.parametrize("single,pair", _TEMPLATES + _BAD)
def test_template_strings(single, pair):
    """A template from strs describes what tokenizers' does, and is refused where it is."""
    from tokenizers import processors as hp

    from tokenforge import processors as p

    specials = [("<e>", 5), (9, "<s>"), ("</s>", 2), {"id": "[CLS]", "ids": [101], "tokens": ["[CLS]"]},
                ("[SEP]", 102)]
    kw = {k: v for k, v in (("single", single), ("pair", pair)) if v is not None}
    try:
        want = json.loads(hp.TemplateProcessing(special_tokens=specials, **kw).__getstate__())
    except (ValueError, TypeError, Exception) as e:  # tokenizers raises ValueError for these
        with pytest.raises(ValueError):
            p.TemplateProcessing(special_tokens=specials, **kw)
        assert isinstance(e, ValueError)
        return
    assert p.TemplateProcessing(special_tokens=specials, **kw).to_dict() == want


def test_template_special_token_forms():
    from tokenizers import processors as hp

    from tokenforge import processors as p

    for bad in ([("a", "b")], [5], [{"id": "x", "ids": [1, 2], "tokens": ["x"]}], [{"ids": [1], "tokens": ["x"]}]):
        with pytest.raises((ValueError, TypeError)):
            p.TemplateProcessing(single="$A", special_tokens=bad)
        with pytest.raises(Exception):  # (a bare Exception for a length mismatch: ours says ValueError)
            hp.TemplateProcessing(single="$A", special_tokens=bad)
    b = p.BertProcessing(sep=("[SEP]", 102), cls_token=("[CLS]", 101)).to_dict()
    assert b == json.loads(hp.BertProcessing(sep=("[SEP]", 102), cls_token=("[CLS]", 101)).__getstate__())
    r = p.RobertaProcessing(sep=("</s>", 2), cls_token=("<s>", 0), trim_offsets=False).to_dict()
    assert r == json.loads(hp.RobertaProcessing(sep=("</s>", 2), cls_token=("<s>", 0), trim_offsets=False).__getstate__())


def test_strip_decoder_arguments():
    from tokenizers import decoders as hd

    from tokenforge import decoders as d

    for args, kw in [((), {}), (("▁", 1, 2), {}), ((), {"content": "a", "left": 2}), ((" ",), {"right": 1})]:
        want = json.loads(hd.Strip(*args, **kw).__getstate__())
        assert d.Strip(*args, **kw).to_dict() == want
        tokens = ["▁▁ab▁", "aab a", " x  ", "q▁"]  # (a token stripped whole from the right: tokenizers panics)
        assert d.Strip(*args, **kw).decode(tokens) == hd.Strip(*args, **kw).decode(tokens)


@pytest.mark.parametrize("name", ["gpt2_tokenizer.json", "llama3_tokenizer.json", "mistral_v1_tokenizer.json",
                                  "minilm_bert_uncased_tokenizer.json"])
def test_decode_stream_from_a_prompt_and_with_lists(name):
    """DecodeStream(ids=prompt) returns only what follows the prompt; step takes a list too."""
    need_shared()
    from tokenizers.decoders import DecodeStream as RefStream

    from tokenforge.decoders import DecodeStream

    ref, ours = load(name)
    rng = random.Random(5)
    for text in lines("multi", 12, seed=4) + lines("en", 6, seed=4):
        ids = ref.encode(text).ids[:40]
        cut = rng.randrange(len(ids) + 1)
        for skip in (True, False):
            a = RefStream(ids=ids[:cut], skip_special_tokens=skip)
            b = DecodeStream(ids=ids[:cut], skip_special_tokens=skip)
            k = cut
            while k < len(ids):
                step = rng.choice([1, 1, 2, 3])
                chunk = ids[k:k + step] if step > 1 else ids[k]
                assert b.step(ours, chunk) == a.step(ref, chunk), (text[:40], cut, k)
                k += step
    with pytest.raises(TypeError):
        DecodeStream().step(ours, "a")


def test_encoding_merge():
    need_shared()
    from tokenizers import Encoding as RefEncoding

    from tokenforge.tokenizer import Encoding

    ref, ours = load("minilm_bert_uncased_tokenizer.json", configured=False)
    texts = lines("en", 4, seed=3)
    for t in (ref, ours):
        t.enable_truncation(12, stride=2)
    try:
        a = [ref.encode(x) for x in texts]
        b = [ours.encode(x) for x in texts]
    finally:
        for t in (ref, ours):
            t.no_truncation()
    for growing in (True, False):
        for k in (1, 2, 3):
            x = RefEncoding.merge(a[:k], growing_offsets=growing)
            y = Encoding.merge(b[:k], growing_offsets=growing)
            assert diff(x, y) is None, (growing, k, diff(x, y))
    assert diff(RefEncoding.merge(a[:2]), Encoding.merge(b[:2])) is None


def test_byte_level_alphabet():
    from tokenizers import pre_tokenizers as hp

    from tokenforge import pre_tokenizers as p

    assert len(p.ByteLevel.alphabet()) == 256
    assert set(p.ByteLevel.alphabet()) == set(hp.ByteLevel.alphabet())


def _bpe_pair(dropout, tmp_path):
    import tokenizers
    from tokenizers import models as hm
    from tokenizers import pre_tokenizers as hpt

    from tokenforge import models as m
    from tokenforge import pre_tokenizers as pt
    from tokenforge.tokenizer import Tokenizer

    ref, _ = load("gpt2_tokenizer.json")
    vocab, merges = ref.model.save(str(tmp_path))
    a = tokenizers.Tokenizer(hm.BPE.from_file(vocab, merges, dropout=dropout))
    b = Tokenizer(m.BPE.from_file(vocab, merges, dropout=dropout))
    a.pre_tokenizer = hpt.ByteLevel(add_prefix_space=False)
    b.pre_tokenizer = pt.ByteLevel(add_prefix_space=False)
    return a, b


def test_bpe_dropout(tmp_path):
    """Dropout 0 and 1 are deterministic and equal tokenizers'; 0.3 draws segmentations with
    tokenizers' distribution (token counts per word compared over many draws), none cached."""
    need_shared()
    text = "understanding tokenization internationally nevertheless"
    for p in (0.0, 1.0):
        a, b = _bpe_pair(p, tmp_path)
        for ln in [text] + lines("en", 10, seed=9):
            assert a.encode(ln).ids == b.encode(ln).ids, p
    a, b = _bpe_pair(0.3, tmp_path)
    draws = 1500
    ca = collections.Counter(len(a.encode(text).ids) for _ in range(draws))
    cb = collections.Counter(len(b.encode(text).ids) for _ in range(draws))
    mean = lambda c: sum(k * v for k, v in c.items()) / draws
    assert abs(mean(ca) - mean(cb)) < 0.35, (sorted(ca.items()), sorted(cb.items()))
    assert len(cb) > 3  # it does vary
    for _ in range(50):
        e = b.encode(text)
        assert "".join(e.tokens).replace("Ġ", " ") == text
    with pytest.raises(ValueError):
        from tokenforge.models import BPE

        BPE({}, [], dropout=1.5)


def test_unigram_sampling():
    """Unigram(alpha, nbest_size) draws segmentations with tokenizers' probabilities: the
    frequency of each segmentation of a few words over many draws, compared."""
    need_shared()
    import tokenizers
    from tokenizers import models as hm

    from tokenforge import models as m
    from tokenforge.tokenizer import Tokenizer

    ref, _ = load("rut5_tokenizer.json")
    vocab = json.loads(ref.to_str())["model"]["vocab"]
    unk = json.loads(ref.to_str())["model"]["unk_id"]
    pieces = [(p, s) for p, s in vocab]
    draws = 2000
    for alpha, nbest in ((0.5, None), (0.2, 0), (1.0, 4), (0.3, 10)):
        a = tokenizers.Tokenizer(hm.Unigram(pieces, unk, False, alpha, nbest))
        b = Tokenizer(m.Unigram(pieces, unk, False, alpha, nbest))
        for word in ("▁привет", "▁tokenization", "▁водопровод"):
            ca = collections.Counter(tuple(a.encode(word).tokens) for _ in range(draws))
            cb = collections.Counter(tuple(b.encode(word).tokens) for _ in range(draws))
            if nbest:
                assert len(cb) <= nbest and set(cb) <= set(ca) | set(cb) and len(ca) <= nbest
            top = [seg for seg, n in ca.most_common(4) if n > draws // 20]
            for seg in top:
                pa, pb = ca[seg] / draws, cb[seg] / draws
                assert abs(pa - pb) < 0.06 + 0.15 * pa, (alpha, nbest, word, seg, pa, pb)
    with pytest.raises(ValueError):
        m.Unigram(pieces, unk, False, 0.1, -1)


def test_python_forms_of_components():
    """Regex patterns, tokenizers' Python behavior names ("isolated", "merged_with_next") and a
    Precompiled charsmap given as bytes describe the components tokenizers' do, and a tokenizer
    made of them encodes as tokenizers'."""
    need_shared()
    import base64

    import tokenizers
    from tokenizers import normalizers as hn
    from tokenizers import pre_tokenizers as hp

    from tokenforge import Regex
    from tokenforge import normalizers as n
    from tokenforge import pre_tokenizers as p

    forms = [(r"\d+", "isolated"), (r"\s+", "removed"), ("[.,!?]", "merged_with_previous"),
             (r"(?i)the", "merged_with_next"), (r"\p{L}+", "contiguous")]
    ref, ours = load("mistral_v1_tokenizer.json")
    charsmap = base64.b64decode(json.loads(load("rut5_tokenizer.json")[0].to_str())["normalizer"]["normalizers"][0]
                                ["precompiled_charsmap"])
    a, b = tokenizers.Tokenizer.from_str(ref.to_str()), type(ours).from_str(ours.to_str())
    for k, (pattern, behavior) in enumerate(forms):
        for invert in (False, True):
            x, y = hp.Split(tokenizers.Regex(pattern), behavior, invert), p.Split(Regex(pattern), behavior, invert)
            assert y.to_dict() == json.loads(x.__getstate__())
            a.pre_tokenizer = hp.Sequence([x, hp.Punctuation("removed" if k % 2 else "isolated")])
            b.pre_tokenizer = p.Sequence([y, p.Punctuation("removed" if k % 2 else "isolated")])
            a.normalizer = hn.Sequence([hn.Precompiled(charsmap), hn.Replace(tokenizers.Regex(r"\s+"), " ")])
            b.normalizer = n.Sequence([n.Precompiled(charsmap), n.Replace(Regex(r"\s+"), " ")])
            for text in lines("en", 8, seed=k) + lines("multi", 4, seed=k):
                assert diff(a.encode(text), b.encode(text)) is None, (pattern, behavior, invert, text[:50])
    with pytest.raises(ValueError):
        Regex("(")
    with pytest.raises(ValueError):
        p.Split("a", "sideways")
