"""The front end's file split and threaded counting: the counted words (and their order)
do not depend on how many threads count them (no reference needed: one thread is the oracle)."""

from __future__ import annotations

import random

import pytest

from tokenforge.spm_train import front_end


def _files(tmp_path, texts):
    paths = []
    for i, text in enumerate(texts):
        p = tmp_path / f"f{i}.txt"
        p.write_bytes(text)
        paths.append(str(p))
    return paths


@pytest.mark.parametrize("parts", [1, 2, 3, 7])
def test_split_covers_every_byte_once_at_line_starts(tmp_path, parts):
    rng = random.Random(parts)
    texts = [b"".join(b"x" * rng.randrange(0, 30) + b"\n" for _ in range(rng.randrange(0, 40))) for _ in range(4)]
    texts.append(b"no newline at the end")
    texts.append(b"")
    texts.append(b"a" * 500 + b"\nshort\n")  # a line longer than a part
    paths = _files(tmp_path, texts)
    split = front_end.split_files(paths, parts)
    assert len(split) == parts
    flat = [r for part in split for r in part]
    covered = {p: [] for p in paths}
    for path, start, end in flat:
        assert start < end
        covered[path].append((start, end))
        data = open(path, "rb").read()
        assert start == 0 or data[start - 1:start] == b"\n"
    for path, text in zip(paths, texts):
        spans = covered[path]
        assert [s for s, _ in spans] == sorted(s for s, _ in spans)
        assert b"".join(text[s:e] for s, e in spans) == text
    assert [p for p, _, _ in flat] == sorted((p for p, _, _ in flat), key=paths.index)


def _counted(paths, threads, monkeypatch):
    from tokenforge.formats.sentencepiece_model import NormalizerSpec, TrainerSpec
    from tokenforge.spm_train.charsmaps import fill_normalizer_spec

    monkeypatch.setattr(front_end, "PARALLEL_MIN_BYTES", 1)
    monkeypatch.setattr(front_end, "usable_cpus", lambda: 16)
    monkeypatch.setattr(front_end, "MAX_COUNT_THREADS", 16)
    ts, ns = TrainerSpec(num_threads=threads), NormalizerSpec(name="nmt_nfkc")
    fill_normalizer_spec(ns)
    corpus = front_end.count_corpus(ts, ns, ["<unk>", "<s>", "</s>"], paths, None, lambda msg: None)
    return list(corpus.counter.words().items()), corpus.alphabet, corpus.stats


def test_threads_count_the_same_words_in_the_same_order(tmp_path, monkeypatch):
    rng = random.Random(5)
    vocab = ["the", "cat", "sat", "<s>", "Ünïcode", "ｆｕｌｌ", "日本語", "x" * 20, "  ", "\u2585"]
    texts = []
    for n in (300, 1, 0, 200):
        lines = [" ".join(rng.choice(vocab) for _ in range(rng.randrange(0, 8))) for _ in range(n)]
        texts.append("\n".join(lines).encode("utf-8"))
    paths = _files(tmp_path, texts)
    one = _counted(paths, 1, monkeypatch)
    for threads in (2, 3, 5):
        assert _counted(paths, threads, monkeypatch) == one


def test_bad_utf8_named_with_its_offset_on_threads(tmp_path, monkeypatch):
    paths = _files(tmp_path, [b"good line\n" * 50 + b"bad \xff byte\n" + b"more\n" * 50])
    with pytest.raises(ValueError, match=r"not UTF-8 \(byte 504\)"):
        _counted(paths, 3, monkeypatch)


def test_file_reader_counts_the_lines_python_splits(tmp_path, monkeypatch):
    """The native reader against Python's own line split: a line longer than a read block,
    '\\r\\n' endings (the '\\r' stays, as in spm_train), a last line without '\\n'."""
    from tokenforge.formats.sentencepiece_model import NormalizerSpec, TrainerSpec
    from tokenforge.spm_train.charsmaps import fill_normalizer_spec

    long_line = " ".join(f"w{i % 5000}" for i in range(300_000))  # about 2 MB
    text = "first line\r\nsecond\n\n" + long_line + "\nnaïve café\r\n日本語 テキスト\nlast without newline"
    path = tmp_path / "t.txt"
    path.write_bytes(text.encode("utf-8"))
    ns = NormalizerSpec(name="identity")
    fill_normalizer_spec(ns)
    monkeypatch.setattr(front_end, "PARALLEL_MIN_BYTES", 1)
    monkeypatch.setattr(front_end, "usable_cpus", lambda: 16)
    monkeypatch.setattr(front_end, "MAX_COUNT_THREADS", 16)
    results = []
    for threads in (1, 3):
        ts = TrainerSpec(num_threads=threads, max_sentence_length=1 << 24)
        corpus = front_end.count_corpus(ts, ns, [], [str(path)], None, lambda msg: None)
        results.append((list(corpus.counter.words().items()), corpus.alphabet))
    ts = TrainerSpec(max_sentence_length=1 << 24)
    corpus = front_end.count_corpus(ts, ns, [], [], iter(text.split("\n")), lambda msg: None)
    assert results[0] == results[1] == (list(corpus.counter.words().items()), corpus.alphabet)
    assert corpus.counter.words()["▁first".encode()] == 1
