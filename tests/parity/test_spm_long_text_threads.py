"""One long text through SentencePieceProcessor.encode on several native threads (cut where
no piece crosses, tokenforge.sentencepiece.cuts): the same ids and pieces as sentencepiece
0.2.3 and as our one-thread path, for every ../shared SentencePiece model (BPE and Unigram,
byte fallback, NFKC charsmaps, USER_DEFINED pieces) and for variants of two of them with
the normalizer flags changed (no dummy prefix, spaces kept, whitespace as suffix)."""

from __future__ import annotations

import random

import pytest
from _shared import MODELS, corpus_sample, in_forked_child, need_shared
from hypothesis import given, settings
from hypothesis import strategies as st

from tokenforge.sentencepiece import SentencePieceProcessor, set_random_generator_seed
from tokenforge.formats.sentencepiece_model import ModelProto
from tokenforge.sentencepiece import processor as processor_module

spm = pytest.importorskip("sentencepiece")

SPM = MODELS / "sentencepiece"
NAMES = ["botchan_en_bpe_1000", "botchan_en_unigram_1000", "kyoto_ja_unigram_8000", "llama2_tokenizer",
         "llama2c_tok512", "mistral_v1_tokenizer", "mistral_v3_tokenizer", "rut5_spiece"]
# (model, normalizer/trainer flags) variants built from the shared files.
VARIANTS = [(name, flags) for name in ("botchan_en_unigram_1000", "llama2_tokenizer") for flags in (
    {"add_dummy_prefix": False}, {"remove_extra_whitespaces": False}, {"remove_extra_whitespaces": True},
    {"treat_whitespace_as_suffix": True}, {"treat_whitespace_as_suffix": True, "remove_extra_whitespaces": True})]


def _pair(name: str, flags: dict | None = None):
    need_shared()
    data = (SPM / f"{name}.model").read_bytes()
    if flags:
        model = ModelProto.from_bytes(data)
        for key, value in flags.items():
            spec = model.trainer_spec if key == "treat_whitespace_as_suffix" else model.normalizer_spec
            setattr(spec, key, value)
        data = model.to_bytes()
    return SentencePieceProcessor(model_proto=data), spm.SentencePieceProcessor(model_proto=data)


def _parts_of(ours, text: str, threads: int) -> list[int]:
    parts, _ = processor_module._parts(text, threads)
    return ours._core.cut_points(ours._core.normalize(text, False), parts)


def _tricky(seed: int, size: int) -> str:
    """Corpus lines joined by what normalization and the cut rule must get right."""
    rng = random.Random(seed)
    lines = [x for x in corpus_sample(["en", "code", "multi", "mixed"][seed % 4]).split("\n") if x][:4000]
    seps = [" ", "   ", "\n", "\n\n", " \n ", "\t", "\r\n", "\u3000", "\u00a0", "", "日本語の文章", "😀", "\u2581"]
    out, total = [rng.choice(["", "  ", "\n", " \u3000"])], 0
    while total < size:
        line = rng.choice(lines)
        out.append(line)
        out.append(rng.choice(seps))
        total += len(line) + 1
    out.append(rng.choice(["", "   ", "\n\n", " \t "]))
    return "".join(out)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("corpus_name", ["en", "code", "multi", "mixed"])
def test_long_text_matches_sentencepiece(name, corpus_name):
    ours, ref = _pair(name)
    text = corpus_sample(corpus_name)[:300_000]
    assert _parts_of(ours, text, 2)  # the parts path is taken
    expected = ref.encode(text)
    assert ours.encode(text, num_threads=1) == expected
    assert ours.encode(text, num_threads=2) == expected
    assert ours.encode_as_ids(text, num_threads=3) == expected
    if corpus_name == "multi":
        assert ours.encode_as_pieces(text, num_threads=2) == ref.encode_as_pieces(text)


@pytest.mark.parametrize("name", NAMES)
def test_tricky_cut_points(name, monkeypatch):
    """Short texts cut into many parts: runs of spaces, text starting and ending with
    spaces, newlines, tabs, ideographic and no-break spaces, CJK without spaces, emoji."""
    ours, ref = _pair(name)
    monkeypatch.setattr(processor_module, "PARALLEL_MIN_CHARS", 64)
    for seed in range(4):
        text = _tricky(seed, 6000)
        assert len(_parts_of(ours, text, 8)) > 4
        expected = ref.encode(text)
        assert ours.encode(text, num_threads=1) == expected
        assert ours.encode(text, num_threads=8) == expected
        assert ours.encode(text, out_type=str, num_threads=8) == ref.encode(text, out_type=str)
        assert ours.encode(text.encode(), num_threads=8) == expected  # bytes input
        broken = text.encode().replace(b"e", b"e\xff", 7).replace(b"a", b"\xe2\x96a", 5)  # malformed UTF-8
        assert ours.encode(broken, num_threads=8) == ref.encode(broken)
        one = ours.encode(text, out_type="offset_mapping", num_threads=1)
        assert ours.encode(text, out_type="offset_mapping", num_threads=8) == one
        # A batch of fewer texts than threads runs each text in parts.
        assert ours.encode([text, text[:500]], num_threads=8) == [expected, ref.encode(text[:500])]


@pytest.mark.parametrize("name,flags", VARIANTS)
def test_normalizer_variants(name, flags, monkeypatch):
    ours, ref = _pair(name, flags)
    monkeypatch.setattr(processor_module, "PARALLEL_MIN_CHARS", 64)
    for seed in range(2):
        text = _tricky(seed + 10, 5000)
        expected = ref.encode(text)
        assert ours.encode(text, num_threads=1) == expected
        assert ours.encode(text, num_threads=8) == expected
        assert ours.encode(text, out_type=str, num_threads=8) == ref.encode(text, out_type=str)


@pytest.mark.parametrize("name", ["kyoto_ja_unigram_8000", "llama2_tokenizer"])
def test_cjk_without_spaces_is_cut(name, monkeypatch):
    """No whitespace at all: cuts fall between characters no piece joins."""
    ours, ref = _pair(name)
    monkeypatch.setattr(processor_module, "PARALLEL_MIN_CHARS", 64)
    cjk = "".join(ch for ch in corpus_sample("multi") if "\u3040" <= ch <= "\u9fff")[:20_000]
    assert len(cjk) > 5000
    assert len(_parts_of(ours, cjk, 8)) > 4
    assert ours.encode(cjk, num_threads=8) == ref.encode(cjk)


_PIECES = st.sampled_from(["a", "ab", "the", " ", "  ", "    ", "\n", "\n\n", "\t", "\u3000", "\u00a0", "日本", "語",
                           "😀", "é", "e\u0301", "ﬁ", "Ａ", "1234", ".", "▁", "[INST]", "<s>"])


@settings(max_examples=60, deadline=None)
@given(st.lists(_PIECES, min_size=1, max_size=120), st.sampled_from(NAMES + ["variant"]))
def test_any_text_any_cut(chunks, name):
    text = "".join(chunks)
    ours, ref = _pair("botchan_en_unigram_1000", {"treat_whitespace_as_suffix": True}) if name == "variant" else _pair(name)
    old = processor_module.PARALLEL_MIN_CHARS
    processor_module.PARALLEL_MIN_CHARS = 1
    try:
        got = ours.encode(text, num_threads=16)
        pieces = ours.encode(text, out_type=str, num_threads=16)
    finally:
        processor_module.PARALLEL_MIN_CHARS = old
    assert got == ref.encode(text)
    assert pieces == ref.encode(text, out_type=str)


def test_sampling_stays_on_one_thread(monkeypatch):
    """Sampling is not cut: with the same seed, any num_threads draws the same."""
    ours, _ = _pair("botchan_en_unigram_1000")
    monkeypatch.setattr(processor_module, "PARALLEL_MIN_CHARS", 64)
    text = _tricky(3, 3000)
    results = []
    for threads in (1, 8):
        set_random_generator_seed(5)
        results.append(ours.encode(text, enable_sampling=True, alpha=0.1, nbest_size=-1, num_threads=threads))
    assert results[0] == results[1]


def test_thread_count_resolution(monkeypatch):
    """num_threads, then TOKENFORGE_NUM_THREADS, then the usable CPUs; 0 or 1: one thread."""
    monkeypatch.setattr(processor_module, "PARALLEL_MIN_CHARS", 64)
    text = "x" * 1000
    monkeypatch.setenv("TOKENFORGE_NUM_THREADS", "3")
    assert processor_module._parts(text, None) == (48, 3)
    assert processor_module._parts(text, -1) == (48, 3)  # sentencepiece's "automatic"
    assert processor_module._parts(text, 2) == (32, 2)
    assert processor_module._parts(text, 0) == (1, 1)
    assert processor_module._parts(text, 1) == (1, 1)
    assert processor_module._parts("x" * 10, 4) == (1, 1)  # short: not cut
    monkeypatch.setenv("TOKENFORGE_NUM_THREADS", "1")
    assert processor_module._parts(text, None) == (1, 1)
    monkeypatch.setenv("TOKENFORGE_NUM_THREADS", "many")
    with pytest.raises(ValueError, match="TOKENFORGE_NUM_THREADS"):
        processor_module._parts(text, None)
    monkeypatch.delenv("TOKENFORGE_NUM_THREADS")
    monkeypatch.setattr(processor_module, "resolve_threads", lambda n: n if n is not None else 5)
    assert processor_module._parts(text, None) == (80, 5)


def _child(path, text, queue):
    ours = SentencePieceProcessor(model_file=path)
    queue.put(ours.encode(text, num_threads=2))


def test_forked_child_does_not_deadlock():
    """A child forked after the pool ran still encodes one long text in parts."""
    ours, ref = _pair("llama2_tokenizer")
    text = corpus_sample("en")[:400_000]
    expected = ref.encode(text)
    assert ours.encode(text, num_threads=2) == expected  # the pool now runs
    exitcode, got = in_forked_child(_child, (str(SPM / "llama2_tokenizer.model"), text))
    assert exitcode == 0 and got == expected


@pytest.mark.parametrize("name", ["botchan_en_bpe_1000", "botchan_en_unigram_1000", "rut5_spiece"])
def test_unknown_runs_across_cuts(name, monkeypatch):
    """Without byte fallback a run of characters in no piece is one <unk>, also when a cut
    falls inside the run."""
    ours, ref = _pair(name)
    monkeypatch.setattr(processor_module, "PARALLEL_MIN_CHARS", 64)
    text = "".join(f"w{i} " + "\U0001f600\U0001f680\u0d9a" * (i % 7 + 1) for i in range(600))
    normalized = ours._core.normalize(text, False).encode()
    unknown_cut = [c for c in _parts_of(ours, text, 8) if normalized[c] >= 0xF0 and normalized[c - 1] >= 0x80]
    assert unknown_cut  # some cut falls between two unknown characters
    assert ours.encode(text, num_threads=8) == ref.encode(text)
    assert ours.encode(text, out_type=str, num_threads=8) == ref.encode(text, out_type=str)
