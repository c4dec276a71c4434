"""Tokenizer.train / train_from_iterator with tokenforge.trainers against tokenizers' own
trainers on the shared corpora: the trained tokenizer.json identical (vocab, merges, added
tokens) where tokenizers' result is deterministic: BPE with special tokens, min_frequency,
an initial alphabet, max_token_length; WordLevel.  Where tokenizers' result depends on its
hash maps' order (WordPiece's `##` continuations, a limit_alphabet cut between equal counts)
only what does not: the same vocab size and special tokens, and most of the vocab shared."""

from __future__ import annotations

import json

import pytest
from _shared import corpus_sample, need_shared


def _texts(corpus: str, size: int) -> list[str]:
    return corpus_sample(corpus)[:size].split("\n")


def _trained(hf: bool, model: str, pre: str, texts, normalizer: bool = False, **kw):
    if hf:
        import tokenizers
        from tokenizers import models as m
        from tokenizers import normalizers as n
        from tokenizers import pre_tokenizers as p
        from tokenizers import trainers as t

        tok = tokenizers.Tokenizer({"bpe": m.BPE, "wordlevel": m.WordLevel, "wordpiece": m.WordPiece}[model]
                                   (**({"unk_token": "[UNK]"} if model != "bpe" else {})))
        kw["show_progress"] = False
    else:
        from tokenforge import models as m
        from tokenforge import normalizers as n
        from tokenforge import pre_tokenizers as p
        from tokenforge import trainers as t
        from tokenforge.tokenizer import Tokenizer

        tok = Tokenizer({"bpe": m.BPE, "wordlevel": m.WordLevel, "wordpiece": m.WordPiece}[model]
                        (**({"unk_token": "[UNK]"} if model != "bpe" else {})))
    tok.pre_tokenizer = {"bytelevel": lambda: p.ByteLevel(add_prefix_space=False), "whitespace": p.Whitespace,
                         "bert": p.BertPreTokenizer}[pre]()
    if normalizer:
        tok.normalizer = n.Sequence([n.NFKC(), n.Lowercase()])
    trainer = {"bpe": t.BpeTrainer, "wordlevel": t.WordLevelTrainer, "wordpiece": t.WordPieceTrainer}[model](**kw)
    tok.train_from_iterator(texts, trainer)
    return tok


CASES = [
    ("bpe", "whitespace", "en", False, {"vocab_size": 700, "special_tokens": ["[UNK]", "<s>", "</s>"]}),
    ("bpe", "bytelevel", "multi", False, {"vocab_size": 1500, "min_frequency": 2, "initial_alphabet": "ALPHABET"}),
    ("bpe", "bytelevel", "code", False, {"vocab_size": 900, "max_token_length": 5}),
    ("bpe", "bert", "mixed", True, {"vocab_size": 800, "special_tokens": ["[CLS]", "[SEP]"], "min_frequency": 3}),
    ("wordlevel", "whitespace", "en", True, {"vocab_size": 600, "min_frequency": 2, "special_tokens": ["[UNK]", "[PAD]"]}),
    ("wordlevel", "bert", "multi", False, {"vocab_size": 50000, "special_tokens": ["[UNK]"]}),
]


@pytest.mark.parametrize("model,pre,corpus,normalizer,kw", CASES)
def test_trained_as_tokenizers(model, pre, corpus, normalizer, kw):
    need_shared()
    from tokenizers.pre_tokenizers import ByteLevel

    kw = dict(kw)
    if kw.get("initial_alphabet") == "ALPHABET":
        kw["initial_alphabet"] = ByteLevel.alphabet()
    texts = _texts(corpus, 60_000 if pre == "bert" else 120_000)
    ref = _trained(True, model, pre, texts, normalizer, **kw)
    ours = _trained(False, model, pre, texts, normalizer, **kw)
    assert json.loads(ours.to_str()) == json.loads(ref.to_str())
    for text in texts[:40]:
        assert ours.encode(text).ids == ref.encode(text).ids


def test_train_from_files(tmp_path):
    """train(files) reads lines with their line breaks, as tokenizers does."""
    need_shared()
    texts = _texts("mixed", 60_000)
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("\n".join(texts[: len(texts) // 2]) + "\r\n", encoding="utf-8")
    b.write_text("\n".join(texts[len(texts) // 2:]), encoding="utf-8")
    import tokenizers
    from tokenizers import models as hm
    from tokenizers import pre_tokenizers as hp
    from tokenizers import trainers as ht

    from tokenforge import models as m
    from tokenforge import pre_tokenizers as p
    from tokenforge import trainers as t
    from tokenforge.tokenizer import Tokenizer

    ref = tokenizers.Tokenizer(hm.BPE())
    ref.pre_tokenizer = hp.ByteLevel()
    ref.train([str(a), str(b)], ht.BpeTrainer(vocab_size=600, show_progress=False, special_tokens=["<|end|>"]))
    ours = Tokenizer(m.BPE())
    ours.pre_tokenizer = p.ByteLevel()
    ours.train([str(a), b], t.BpeTrainer(vocab_size=600, special_tokens=["<|end|>"]))
    assert json.loads(ours.to_str()) == json.loads(ref.to_str())
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"ok\n\xff\xfe\n")
    with pytest.raises(ValueError, match="bad.txt: line 2"):
        ours.train([str(bad)])
    with pytest.raises(ValueError, match="WordLevel"):
        ours.train([str(a)], t.WordLevelTrainer())


@pytest.mark.parametrize("kw", [{"vocab_size": 900, "special_tokens": ["[UNK]", "[CLS]"]},
                                {"vocab_size": 700, "limit_alphabet": 50}])
def test_nondeterministic_cases_agree_in_substance(kw):
    """WordPiece (ids of `##` forms follow tokenizers' hash order) and a limit_alphabet cut among
    equal counts: the same vocab size and specials, and most tokens shared."""
    need_shared()
    texts = _texts("en", 80_000)
    ref = _trained(True, "wordpiece", "bert", texts, True, **kw)
    ours = _trained(False, "wordpiece", "bert", texts, True, **kw)
    a, b = ref.get_vocab(), ours.get_vocab()
    assert len(a) == len(b)
    for s in kw.get("special_tokens", []):
        assert a[s] == b[s]
    assert len(set(a) & set(b)) > 0.9 * len(a)
    assert json.loads(ours.to_str())["model"]["type"] == "WordPiece"
