"""tokenforge.SentencePieceTrainer against sentencepiece 0.2.3's trainer on corpus samples.

BPE: the .model and .vocab bytes must be identical (pieces, scores, types, trainer and
normalizer specs).  Unigram: same size and meta ids, held-out tokens per byte and Viterbi
log-likelihood per byte (benchmarks/spm_unigram_quality.py) within 1 % of sentencepiece's,
and the same pieces on 1 and 2 threads.  Every model we write must load in sentencepiece and
encode there as in tokenforge.SentencePieceProcessor.
"""

from __future__ import annotations

import os

import pytest

from _shared import benchmark_module, corpus_sample, corpus_text, need_shared

spm = pytest.importorskip("sentencepiece")
import tokenforge  # noqa: E402

SAMPLE = {"en": 200_000, "code": 200_000, "multi": 200_000, "mixed": 200_000}


@pytest.fixture(scope="module")
def corpus_files(tmp_path_factory):
    need_shared()
    d = tmp_path_factory.mktemp("spm_corpus")
    out = {}
    for name, size in SAMPLE.items():
        # mixed.txt is adversarial and starts with long runs of one letter: take every 12th line.
        text = "\n".join(corpus_text(name).split("\n")[::12]) if name == "mixed" else corpus_sample(name, size)[:size]
        path = d / f"{name}.txt"
        path.write_text(text, encoding="utf-8")
        out[name] = str(path)
    return out


def _train_both(tmp_path, monkeypatch, **options):
    """Trains with both trainers under the same model_prefix in two folders."""
    results = []
    for who, trainer in (("ref", spm.SentencePieceTrainer), ("ours", tokenforge.SentencePieceTrainer)):
        d = tmp_path / who
        d.mkdir()
        monkeypatch.chdir(d)
        trainer.train(model_prefix="m", minloglevel=2, **options)
        results.append(((d / "m.model").read_bytes(), (d / "m.vocab").read_bytes()))
    return results


BPE_CASES = {
    "defaults": dict(vocab_size=2000),
    "bytes_digits_symbols": dict(vocab_size=4000, byte_fallback=True, split_digits=True, pad_id=3, bos_id=-1,
                                 user_defined_symbols=["<u1>", "the"], control_symbols=["<c1>", "<c2>"]),
    "no_whitespace_split_nfkc": dict(vocab_size=2500, split_by_whitespace=False, normalization_rule_name="nfkc"),
}


@pytest.mark.parametrize("case", sorted(BPE_CASES))
@pytest.mark.parametrize("name", sorted(SAMPLE))
def test_bpe_files_identical(corpus_files, tmp_path, monkeypatch, name, case):
    options = dict(BPE_CASES[case])
    if name == "mixed":  # thousands of distinct characters
        options["vocab_size"] += 7000
    (ref_model, ref_vocab), (our_model, our_vocab) = _train_both(
        tmp_path, monkeypatch, input=corpus_files[name], model_type="bpe", **options)
    if our_model != ref_model:
        a = tokenforge.sentencepiece.ModelProto.from_bytes(ref_model)
        b = tokenforge.sentencepiece.ModelProto.from_bytes(our_model)
        pa = [(p.piece, p.score, p.type) for p in a.pieces]
        pb = [(p.piece, p.score, p.type) for p in b.pieces]
        first = next((i for i, (x, y) in enumerate(zip(pa, pb)) if x != y), min(len(pa), len(pb)))
        pytest.fail(f"first difference at piece {first}: {pa[first:first + 3]} vs {pb[first:first + 3]}")
    assert our_vocab == ref_vocab


def test_bpe_string_form(corpus_files, tmp_path, monkeypatch):
    flags = f"--input={corpus_files['en']} --model_prefix=m --vocab_size=1000 --model_type=bpe --minloglevel=2"
    out = []
    for who, trainer in (("ref", spm.SentencePieceTrainer), ("ours", tokenforge.SentencePieceTrainer)):
        (tmp_path / who).mkdir()
        monkeypatch.chdir(tmp_path / who)
        trainer.train(flags)
        out.append((tmp_path / who / "m.model").read_bytes())
    assert out[0] == out[1]


def test_bpe_sentence_iterator():
    need_shared()
    import io

    lines = corpus_sample("en", 100_000).split("\n")
    a, b = io.BytesIO(), io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(lines), model_writer=a, vocab_size=800, model_type="bpe", minloglevel=2)
    tokenforge.SentencePieceTrainer.train(sentence_iterator=iter(lines), model_writer=b, vocab_size=800,
                                          model_type="bpe", minloglevel=2)
    assert b.getvalue() == a.getvalue()


def _held_out(name: str, size: int = 100_000) -> list[str]:
    text = corpus_text(name)
    mid = len(text) // 2 + 12345
    return [line for line in text[mid:mid + size].split("\n")[1:-1] if line]


def _tokens_per_byte(model: bytes, lines: list[str]) -> float:
    sp = spm.SentencePieceProcessor(model_proto=model)
    return sum(map(len, sp.encode(lines))) / sum(len(x.encode()) for x in lines)


@pytest.mark.parametrize("name", ["en", "code", "multi"])
def test_unigram_quality_near_sentencepiece(corpus_files, name):
    import io

    vocab = 4000 if name == "multi" else 2000
    ref, ours = io.BytesIO(), io.BytesIO()
    spm.SentencePieceTrainer.train(input=corpus_files[name], model_writer=ref, vocab_size=vocab, minloglevel=2)
    tokenforge.SentencePieceTrainer.train(input=corpus_files[name], model_writer=ours, vocab_size=vocab, minloglevel=2)
    a = tokenforge.sentencepiece.ModelProto.from_bytes(ref.getvalue())
    b = tokenforge.sentencepiece.ModelProto.from_bytes(ours.getvalue())
    assert len(a.pieces) == len(b.pieces) == vocab
    for i in range(3):
        assert (a.pieces[i].piece, a.pieces[i].type) == (b.pieces[i].piece, b.pieces[i].type)
    assert a.trainer_spec.to_bytes() == b.trainer_spec.to_bytes()
    held = _held_out(name)
    ratio = _tokens_per_byte(ours.getvalue(), held) / _tokens_per_byte(ref.getvalue(), held)
    assert ratio <= 1.01, f"held-out tokens/byte {ratio:.4f} x sentencepiece's"
    # Viterbi log-likelihood per byte, scores renormalized to sum to <= 1 in probability
    # (log-likelihoods are negative: a ratio above 1 is worse than sentencepiece).
    quality = benchmark_module("spm_unigram_quality")
    ll_ref, ll_ours = (quality.viterbi_log_likelihood_per_byte(m.getvalue(), held) for m in (ref, ours))
    assert ll_ours / ll_ref <= 1.01, f"log-likelihood/byte {ll_ours:.4f} vs sentencepiece's {ll_ref:.4f}"


@pytest.mark.parametrize("model_type", ["bpe", "unigram"])
def test_our_models_encode_alike_in_sentencepiece(corpus_files, model_type):
    sp_ours = tokenforge.train_sentencepiece(corpus_files["mixed"], 9000, model_type=model_type, minloglevel=2,
                                             byte_fallback=True)
    ref = spm.SentencePieceProcessor(model_proto=sp_ours.serialized_model_proto())
    lines = _held_out("mixed", 50_000) + _held_out("multi", 30_000)
    assert sp_ours.encode(lines) == ref.encode(lines)
    assert sp_ours.decode(sp_ours.encode(lines)) == ref.decode(ref.encode(lines))


def test_unigram_same_pieces_on_any_thread_count(corpus_files):
    """Expected counts are summed in fixed point: the pieces and scores do not depend on threads."""
    pieces = []
    for threads in (1, 2):
        sp = tokenforge.train_sentencepiece(corpus_files["multi"], 3000, num_threads=threads, minloglevel=2)
        proto = tokenforge.sentencepiece.ModelProto.from_bytes(sp.serialized_model_proto())
        pieces.append([(p.piece, p.score, p.type) for p in proto.pieces])
    assert pieces[0] == pieces[1]


def test_bpe_identical_on_threads_and_several_files(corpus_files, tmp_path, monkeypatch):
    """Counting on several threads (the input cut into runs of lines) gives sentencepiece's pieces."""
    from tokenforge.spm_train import front_end

    monkeypatch.setattr(front_end, "PARALLEL_MIN_BYTES", 1)
    monkeypatch.setattr(front_end, "usable_cpus", lambda: 16)
    monkeypatch.setattr(front_end, "MAX_COUNT_THREADS", 16)
    files = [corpus_files["en"], corpus_files["multi"], corpus_files["code"]]
    ref = spm.SentencePieceTrainer
    out = {}
    for who, threads in (("ref", 2), ("t1", 1), ("t2", 2), ("t5", 5)):
        d = tmp_path / who
        d.mkdir()
        monkeypatch.chdir(d)
        trainer = ref if who == "ref" else tokenforge.SentencePieceTrainer
        trainer.train(input=files, model_prefix="m", vocab_size=3000, model_type="bpe", num_threads=threads,
                      minloglevel=2)
        proto = tokenforge.sentencepiece.ModelProto.from_bytes((d / "m.model").read_bytes())
        out[who] = [(p.piece, p.score, p.type) for p in proto.pieces]
    assert out["t1"] == out["ref"]
    assert out["t2"] == out["ref"]
    assert out["t5"] == out["ref"]
