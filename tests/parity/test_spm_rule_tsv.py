"""Custom normalization rules (``normalization_rule_tsv``, ``rule_tsv``, ``norm_map``) against
sentencepiece 0.2.3: the compiled charsmap must be sentencepiece's byte for byte, normalize
the same, and a model trained with a rule file must be identical to spm_train's.

The large rule files are sentencepiece's own built-in rules listed by its ``Decompile()``
(so both compilers see the same 225 000 rules); the small ones are written by hand.
"""

from __future__ import annotations

import random

import pytest

from _shared import corpus_sample, need_shared

spm = pytest.importorskip("sentencepiece")
from sentencepiece import sentencepiece_model_pb2 as pb  # noqa: E402

import tokenforge  # noqa: E402
from tokenforge.sentencepiece import SentencePieceNormalizer  # noqa: E402
from tokenforge.spm_train.charsmap_compiler import compile_charsmap, decompile_charsmap, load_rules  # noqa: E402

HAND_RULES = (
    "U+0041\tU+0062 U+0063\t# A -> bc, a third field is a comment\n"
    "41 42\t78\n"  # AB -> x: longest match wins over A
    "FF21\t61\n"
    "3000\t20\n"
    "2460\t31\n"
    "0xAA\t\n"  # deletion by an empty target
    "00E9\n"  # deletion by a missing target
    "0065 0301\t00E9\n"  # a two-code-point source
    "74 68 65\t54 48 45\r\n"  # CRLF line end
    "41\tU+0061\n"  # a repeated source: the last rule wins
)
TEXTS = ["AB A Ａ　① xª", "the théâtre, thé", "  leading and   inner   spaces  ", "", "AAAB ABAB BA",
         "e\u0301 é e", "日本語のテキスト ① ②", "\u0000x\ufffd"]


def _their_charsmap(path) -> tuple[bytes, object]:
    n = spm.SentencePieceNormalizer(rule_tsv=str(path))
    spec = pb.NormalizerSpec()
    spec.ParseFromString(n.serialized_normalizer_spec())
    return spec.precompiled_charsmap, n


def _tsv(pairs) -> str:
    return "".join(" ".join(f"{ord(c):04X}" for c in s) + "\t" + " ".join(f"{ord(c):04X}" for c in t) + "\n"
                   for s, t in pairs)


def test_hand_rules_compile_and_normalize_as_sentencepiece(tmp_path):
    path = tmp_path / "rules.tsv"
    path.write_text(HAND_RULES, encoding="utf-8", newline="")
    theirs, ref = _their_charsmap(path)
    assert compile_charsmap(load_rules(path)) == theirs
    ours = SentencePieceNormalizer(rule_tsv=path)
    assert ours.serialized_normalizer_spec() == ref.serialized_normalizer_spec()
    assert ours.Decompile() == ref.Decompile()
    for text in TEXTS:
        assert ours.normalize(text) == ref.Normalize(text), text
        assert ours.normalize(text, with_offsets=True) == ref.Normalize(text, with_offsets=True), text


def test_norm_map_as_sentencepiece():
    pairs = [("A", "bc"), ("AB", "x"), ("ß", "ss"), ("ﬁ", "fi"), ("x", "")]
    ours, ref = SentencePieceNormalizer(norm_map=pairs), spm.SentencePieceNormalizer(norm_map=pairs)
    assert ours.serialized_model_proto() == ref.serialized_model_proto()
    for text in TEXTS + ["Straße ﬁne ABx"]:
        assert ours.normalize(text) == ref.Normalize(text)
    with pytest.raises(ValueError, match="duplicate"):
        SentencePieceNormalizer(norm_map=[("a", "b"), ("a", "c")])
    with pytest.raises(ValueError, match="empty"):
        SentencePieceNormalizer(norm_map=[("", "b")])


@pytest.mark.parametrize("seed", range(6))
def test_random_rules_byte_identical(seed):
    """Random rule sets large enough to span many blocks, with shared prefixes and targets."""
    rng = random.Random(seed)
    alphabet = [chr(c) for c in rng.sample(range(0x21, 0x3000), 60)] + ["a", "b", "é", "\U0001F600"]
    rules = {}
    for _ in range(rng.choice([5, 300, 3000])):
        source = "".join(rng.choice(alphabet) for _ in range(rng.choice([1, 1, 1, 2, 3])))
        rules[source] = "".join(rng.choice(alphabet) for _ in range(rng.choice([0, 1, 1, 2, 4])))
    pairs = sorted(rules.items())
    ref = spm.SentencePieceNormalizer(norm_map=pairs)
    spec = pb.NormalizerSpec()
    spec.ParseFromString(ref.serialized_normalizer_spec())
    ours = compile_charsmap(rules)
    assert ours == spec.precompiled_charsmap
    assert decompile_charsmap(ours) == ref.Decompile()


def test_builtin_rules_recompiled_byte_identical(tmp_path):
    """sentencepiece's nmt_nfkc_cf rules (Decompile) written as a TSV: both compilers agree,
    and with the built-in charsmap sentencepiece ships."""
    from tokenforge.spm_train.charsmaps import load_charsmap

    path = tmp_path / "nmt_nfkc_cf.tsv"
    path.write_text(_tsv(spm.SentencePieceNormalizer(rule_name="nmt_nfkc_cf").Decompile()), encoding="utf-8")
    theirs, _ = _their_charsmap(path)
    ours = compile_charsmap(load_rules(path))
    assert ours == theirs == load_charsmap("nmt_nfkc_cf")


@pytest.mark.parametrize("text, message", [
    ("41\t42\n\n43\t44\n", "line 2: no source"),
    ("41\t42\n4Z\t42\n", "line 2: '4Z' is not"),
    ("# comment\n41\t42\n", "line 1: '#' is not"),
    ("D800\t42\n", "line 1: 'D800'"),
    ("41\t110000\n", "line 1: '110000'"),
    ("0\t41\n", "line 1: U\\+0000"),
    ("", "no normalization rule"),
])
def test_bad_rule_lines_name_the_line(tmp_path, text, message):
    path = tmp_path / "bad.tsv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        load_rules(path)
    with pytest.raises(ValueError, match=message):
        SentencePieceNormalizer(rule_tsv=path)
    with pytest.raises(ValueError, match=message):
        tokenforge.SentencePieceTrainer.train(sentence_iterator=iter(["a b c"] * 10), model_prefix=str(tmp_path / "m"),
                                              vocab_size=10, normalization_rule_tsv=str(path), minloglevel=2)
    assert not (tmp_path / "m.model").exists()


def test_missing_rule_file_is_oserror(tmp_path):
    with pytest.raises(OSError):
        SentencePieceNormalizer(rule_tsv=tmp_path / "absent.tsv")


CORPUS_RULES = [(chr(c), chr(c + 32)) for c in range(ord("A"), ord("Z") + 1)] + [
    ("th", "þ"), ("ing", "ıŋ"), (",", ""), ("\u3000", " "), ("é", "e\u0301"), ("…", "..."), ("ﬁ", "fi")]


@pytest.mark.parametrize("model_type", ["bpe", "unigram"])
def test_training_with_rule_tsv_as_spm_train(tmp_path, monkeypatch, model_type):
    need_shared()
    text = corpus_sample("en", 150_000)[:150_000] + "\n" + corpus_sample("multi", 100_000)[:100_000]
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(text, encoding="utf-8")
    rules, denorm = tmp_path / "rules.tsv", tmp_path / "denorm.tsv"
    rules.write_text(_tsv(CORPUS_RULES), encoding="utf-8")
    denorm.write_text(_tsv([("þ", "th"), ("▁", " ")]), encoding="utf-8")
    options = dict(input=str(corpus), vocab_size=1500, model_type=model_type, normalization_rule_tsv=str(rules),
                   denormalization_rule_tsv=str(denorm), minloglevel=2)
    models = {}
    for who, trainer in (("ref", spm.SentencePieceTrainer), ("ours", tokenforge.SentencePieceTrainer)):
        (tmp_path / who).mkdir()
        monkeypatch.chdir(tmp_path / who)
        trainer.train(model_prefix="m", **options)
        models[who] = (tmp_path / who / "m.model").read_bytes()
    ref_model, our_model = pb.ModelProto(), pb.ModelProto()
    ref_model.ParseFromString(models["ref"])
    our_model.ParseFromString(models["ours"])
    assert our_model.normalizer_spec == ref_model.normalizer_spec
    assert our_model.denormalizer_spec == ref_model.denormalizer_spec
    if model_type == "bpe":
        assert models["ours"] == models["ref"]
    held_out = corpus_sample("en", 400_000)[300_000:330_000].split("\n")[1:-1] + TEXTS
    ref = spm.SentencePieceProcessor(model_proto=models["ref"])
    in_spm = spm.SentencePieceProcessor(model_proto=models["ours"])
    ours = tokenforge.SentencePieceProcessor(model_proto=models["ours"])
    ref_norm = spm.SentencePieceNormalizer(model_proto=models["ref"])
    our_norm = SentencePieceNormalizer(model_proto=models["ours"])
    for line in held_out + text.split("\n")[:300]:
        assert our_norm.normalize(line) == ref_norm.Normalize(line), line
        ids = ours.encode(line)
        assert ids == in_spm.encode(line), line
        assert ours.decode(ids) == in_spm.decode(ids), line
        if model_type == "bpe":
            assert ids == ref.encode(line), line
