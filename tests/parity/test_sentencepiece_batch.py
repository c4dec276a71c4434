"""Batches of texts (the chunked, threaded path) against sentencepiece 0.2.3 and against
tokenforge's own one-text calls: every output option, one and two threads, errors, and
several Python threads encoding at once.  Expected values come from sentencepiece."""

from __future__ import annotations

import threading

import pytest
from _shared import MODELS, corpus_sample, need_shared

spm = pytest.importorskip("sentencepiece")

from tokenforge.sentencepiece import SentencePieceProcessor  # noqa: E402

SPM_MODELS = MODELS / "sentencepiece"
MODEL_FILES = ["botchan_en_bpe_1000.model", "kyoto_ja_unigram_8000.model", "llama2_tokenizer.model",
               "mistral_v3_tokenizer.model", "rut5_spiece.model"]
OPTIONS = [dict(out_type=str), dict(out_type=bytes), dict(add_eos=True), dict(reverse=True),
           dict(out_type=str, emit_unk_piece=True), dict(out_type=str, reverse=True, add_eos=True),
           dict(add_bos=True, add_eos=True, reverse=True), dict(out_type=str, add_bos=True)]


@pytest.fixture(scope="module")
def lines() -> list[str]:
    need_shared()
    out = ["", " ", "x", "  Hello,  wörld! 😀 ｆｕｌｌ　width\t[INST] x [/INST] <s> ∰ "]
    for name in ("en", "multi", "mixed"):
        sample = corpus_sample(name).split("\n")
        out += sample[:60] + sample[60::max(1, len(sample) // 300)]
    return out


@pytest.fixture(scope="module", params=MODEL_FILES)
def processors(request):
    need_shared()
    path = str(SPM_MODELS / request.param)
    return SentencePieceProcessor(model_file=path), spm.SentencePieceProcessor(model_file=path)


@pytest.mark.parametrize("threads", [1, 2])
def test_batch_options(processors, lines, threads):
    ours, theirs = processors
    for kw in OPTIONS:
        if kw.get("add_bos") and theirs.bos_id() < 0:
            with pytest.raises(ValueError):
                ours.encode(lines, num_threads=threads, **kw)
            continue
        want = theirs.encode(lines, **kw)
        assert ours.encode(lines, num_threads=threads, **kw) == want, kw
        assert [ours.encode(t, **kw) for t in lines] == want, kw


def test_batch_errors_match_single_calls(processors):
    ours, _ = processors
    bad = "ok \ud800 surrogate"
    for kw in (dict(), dict(out_type=str), dict(add_eos=True)):
        with pytest.raises(UnicodeEncodeError):
            ours.encode(bad, **kw)
        with pytest.raises(UnicodeEncodeError):
            ours.encode(["fine", bad, "fine"], num_threads=2, **kw)
        with pytest.raises(TypeError):
            ours.encode(["fine", 3], num_threads=2, **kw)


def test_concurrent_batches(processors, lines):
    ours, theirs = processors
    want_ids, want_pieces = theirs.encode(lines), theirs.encode(lines, out_type=str)
    failures = []

    def work(k):
        for _ in range(3):
            if ours.encode(lines, num_threads=2) != want_ids:
                failures.append(("ids", k))
            if ours.encode(lines, out_type=str, num_threads=2) != want_pieces:
                failures.append(("pieces", k))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []


def test_input_list_emptied_during_the_call(processors, lines):
    """The chunks are encoded without the GIL, which the caller retakes to build lists:
    another thread that empties the input list meanwhile (made certain by _races.py) frees
    nothing still being read, and the result is the list's as the call began.  The native
    batch is called directly (Python code before it may give up the GIL first)."""
    from _races import check_emptied_during_call

    ours, ref = processors
    lines = lines * 10  # a call long enough for the other thread to wake up in it
    want = ref.encode(lines)
    batch = ours._core.encode_ids_batch
    for threads in (1, 2):
        # fresh strs where Python makes copies
        check_emptied_during_call(lambda: [line + "" for line in lines], lambda texts: batch(texts, threads), want)
