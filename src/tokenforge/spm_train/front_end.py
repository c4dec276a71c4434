"""sentencepiece's training front end: lines in, counted words and the alphabet out.

Lines come from files (split at '\\n' as spm_train's ReadLine does, so a '\\r' stays in
the line), from ``input_format="tsv"`` files (``text<TAB>count``) or from an iterator of
str (one sentence each).  Empty lines, lines over ``max_sentence_length`` bytes and lines
holding U+2585 (the trainer's unknown mark) are skipped.  With ``input_sentence_size``
N > 0 only N lines are kept: a reservoir sample with a fixed seed when
``shuffle_input_sentence`` (sentencepiece's own sample is random), else the first N.  The
native :class:`SpmSentenceCounter` reads whole files itself (in 1 MB reads), normalizes,
cuts out meta pieces and counts words; memory grows with the distinct words.  Whole files
(no sampling, no tsv) are counted on up to ``num_threads`` threads (at most
``MAX_COUNT_THREADS``): the input, taken as one run of lines, is cut at line starts into
one part per thread, each counted into its own table, and the tables are merged in the
parts' order, so every word keeps the place of its first occurrence and the result is the
same on any number of threads.

The alphabet: characters sorted by (given in ``required_chars``, count, code point), taken
while the covered share, computed in float32 as sentencepiece does, is below
``character_coverage``; the others become the unknown mark.

What this leaves out: the model types' training (bpe.py, the native merger).
"""

from __future__ import annotations

import os
import random
import struct
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from tokenforge import _native
from tokenforge.formats.sentencepiece_model import NormalizerSpec, TrainerSpec
from tokenforge.spm_train.charsmaps import load_charsmap

BLOCK = 4 << 20
PARALLEL_MIN_BYTES = 1 << 20  # each counting thread gets at least this much input
# Each counting thread fills its own word table, and words repeat across parts, so the
# tables' memory grows with the thread count, while merging them stays serial: past a few
# threads that costs more than it saves.
MAX_COUNT_THREADS = 4
UNKNOWN_MARK = "\u2585"
BOUNDARY = 0x1F  # what meta pieces are replaced by; never in the alphabet
_F32 = struct.Struct("<f")


def f32(x: float) -> float:
    """`x` rounded to float32 (sentencepiece keeps coverage and scores in float)."""
    return _F32.unpack(_F32.pack(x))[0]


@dataclass
class Corpus:
    """What the front end hands to a model trainer."""

    counter: Any  # _native.SpmSentenceCounter holding the counted words
    alphabet: dict[int, int]  # code point -> count, the kept characters
    stats: dict[str, int] = field(default_factory=dict)


def _blocks(path: str) -> Iterator[bytes]:
    """The file in blocks that end at a '\\n' (the last one may not), checked to be UTF-8."""
    offset = 0
    carry = b""
    with open(path, "rb") as f:
        while True:
            data = f.read(BLOCK)
            if not data:
                break
            data = carry + data
            cut = data.rfind(b"\n") + 1
            if cut == 0:
                carry = data
                continue
            block, carry = data[:cut], data[cut:]
            _check_utf8(block, path, offset)
            offset += len(block)
            yield block
    if carry:
        _check_utf8(carry, path, offset)
        yield carry


def _line_start_at_or_after(path: str, pos: int, size: int) -> int:
    """The first line start at or after `pos` in the file (its size if none)."""
    if pos <= 0:
        return 0
    with open(path, "rb") as f:
        base = pos - 1  # a line starts at pos when the byte before it is '\n'
        f.seek(base)
        while True:
            data = f.read(1 << 16)
            if not data:
                return size
            i = data.find(b"\n")
            if i >= 0:
                return base + i + 1
            base += len(data)


def split_files(files: list[str], parts: int) -> list[list[tuple[str, int, int]]]:
    """The files, taken as one run of lines, cut at line starts into `parts` runs of about
    the same size: per part, its (path, start, end) ranges in order.  Parts may be empty.

    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "a.txt")
    >>> _ = open(p, "wb").write(b"aaaa\\nbb\\ncccccc\\n")
    >>> [[(s, e) for _, s, e in part] for part in split_files([p], 2)]
    [[(0, 8)], [(8, 15)]]
    """
    sizes = [os.path.getsize(p) for p in files]
    total = sum(sizes)
    cuts = []  # (file index, offset) where each part after the first starts
    for k in range(1, parts):
        want, i = total * k // parts, 0
        while i < len(files) - 1 and want >= sizes[i]:
            want -= sizes[i]
            i += 1
        cuts.append((i, _line_start_at_or_after(files[i], want, sizes[i])))
    bounds = [(0, 0)]
    for b in [*cuts, (len(files) - 1, sizes[-1] if sizes else 0)]:
        bounds.append(max(b, bounds[-1]))  # a long line may carry a cut past the next one
    out = []
    for (fa, oa), (fb, ob) in zip(bounds, bounds[1:]):
        part = []
        for i in range(fa, fb + 1):
            start = oa if i == fa else 0
            end = ob if i == fb else sizes[i]
            if end > start:
                part.append((files[i], start, end))
        out.append(part)
    return out


def _check_utf8(block: bytes, path: str, offset: int) -> None:
    try:
        block.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(f"{path}: not UTF-8 (byte {offset + e.start})") from None


def _lines(ts: TrainerSpec, files: list[str], iterator: Iterable[str] | None) -> Iterator[tuple[str, int]]:
    """(sentence, count) of every input line, before any check."""
    if iterator is not None:
        for item in iterator:
            if isinstance(item, bytes):
                try:
                    item = item.decode("utf-8")
                except UnicodeDecodeError as e:
                    raise ValueError(f"sentence_iterator gave bytes that are not UTF-8 (byte {e.start})") from None
            elif not isinstance(item, str):
                raise ValueError(f"sentence_iterator must give str, not {type(item).__name__}")
            yield item[:-1] if item.endswith("\n") else item, 1  # lines of an open file keep their '\n'
        return
    tsv = ts.input_format == "tsv"
    for path in files:
        for block in _blocks(path):
            text = block.decode("utf-8")
            for line in text.split("\n")[:-1] if text.endswith("\n") else text.split("\n"):
                if not tsv:
                    yield line, 1
                    continue
                parts = line.split("\t")
                if len(parts) != 2 or not parts[1].strip().lstrip("-").isdigit() or int(parts[1]) < 1:
                    raise ValueError(f"{path}: input_format=tsv needs 'text<TAB>count>=1' lines, got {line[:80]!r}")
                yield parts[0], int(parts[1])


def count_corpus(ts: TrainerSpec, ns: NormalizerSpec, meta: list[str], files: list[str],
                 iterator: Iterable[str] | None, log: Callable[[str], None]) -> Corpus:
    """Reads, samples, normalizes and counts the input; chooses the alphabet.

    Raises:
        OSError: a file cannot be read.
        ValueError: non-UTF-8 input, bad tsv lines, no sentence left.
    """
    charsmap = ns.precompiled_charsmap if ns.precompiled_charsmap else load_charsmap(ns.name)

    def new_counter() -> Any:
        return _native.SpmSentenceCounter(
            charsmap, (ns.add_dummy_prefix, ns.remove_extra_whitespaces, ns.escape_whitespaces,
                       ts.treat_whitespace_as_suffix),
            ts.max_sentence_length, ts.split_by_whitespace, ts.allow_whitespace_only_pieces, meta)

    for path in files:
        if not os.path.isfile(path):
            raise OSError(f"input file not found: {path}")
    limit = ts.input_sentence_size
    if iterator is None and ts.input_format != "tsv" and limit == 0:
        counter, (chars, total) = _count_files(new_counter, files, ts.num_threads, log)
    else:
        counter = new_counter()
        _add_lines(counter, ts, _lines(ts, files, iterator), limit, log)
        chars, total = counter.char_counts()
    stats = dict(counter.stats())
    if stats["too_long"]:
        log(f"skipped {stats['too_long']} lines longer than max_sentence_length={ts.max_sentence_length} bytes")
    if stats["reserved"]:
        log(f"skipped {stats['reserved']} lines holding U+2585")
    if stats["words"] == 0:
        raise ValueError("the input has no sentence to train on (empty, or every line was skipped)")
    log(f"loaded {stats['sentences']} sentences, {stats['words']} distinct words")
    alphabet = choose_alphabet(chars, total, ts)
    log(f"alphabet: {len(alphabet)} characters")
    return Corpus(counter, alphabet, stats)


def usable_cpus() -> int:
    """The CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _count_files(new_counter: Callable[[], Any], files: list[str], num_threads: int,
                 log: Callable[[str], None]) -> tuple[Any, tuple[dict[int, int], int]]:
    """Counts whole files on up to `num_threads` threads: each counts one run of the lines
    into its own counter, and the counters are merged in the runs' order, so every word
    keeps the place of its first occurrence, as on one thread.  Returns the counter and its
    character counts (each thread counts its own words' characters: the sums are the
    same)."""
    total = sum(os.path.getsize(p) for p in files)
    threads = max(1, min(num_threads, usable_cpus(), MAX_COUNT_THREADS, total // PARALLEL_MIN_BYTES))
    parts = split_files(files, threads)
    counters = [new_counter() for _ in parts]

    char_counts: list[tuple[dict[int, int], int]] = [({}, 0)] * threads

    def count(i: int) -> None:
        for path, start, end in parts[i]:
            counters[i].add_file(path, start, end)
        char_counts[i] = counters[i].char_counts()

    errors: list[BaseException | None] = [None] * threads

    def run(i: int) -> None:
        try:
            count(i)
        except BaseException as e:  # noqa: BLE001 - re-raised below, in the caller's thread
            errors[i] = e

    workers = [threading.Thread(target=run, args=(i,)) for i in range(1, threads)]
    for w in workers:
        w.start()
    run(0)
    for w in workers:
        w.join()
    for e in errors:  # the first part's error first: it comes earliest in the input
        if e is not None:
            raise e
    counter = counters[0]
    for other in counters[1:]:
        counter.merge(other)
    chars, char_total = char_counts[0]
    for more, more_total in char_counts[1:]:
        for c, n in more.items():
            chars[c] = chars.get(c, 0) + n
        char_total += more_total
    log(f"read {len(files)} file(s), {total} bytes, on {threads} thread(s)")
    return counter, (chars, char_total)


def _add_lines(counter: Any, ts: TrainerSpec, lines: Iterator[tuple[str, int]], limit: int,
               log: Callable[[str], None]) -> None:
    """Checks lines in Python (needed to sample them) and counts the kept ones."""
    max_len = ts.max_sentence_length
    batch: list[str] = []
    freqs: list[int] = []
    sample: list[tuple[str, int]] = []
    rng = random.Random(0)
    seen = 0
    skipped = {"too_long": 0, "reserved": 0}
    for line, freq in lines:
        if not line:
            continue
        if len(line.encode("utf-8")) > max_len:
            skipped["too_long"] += 1
            continue
        if UNKNOWN_MARK in line:
            skipped["reserved"] += 1
            continue
        seen += 1
        if limit and ts.shuffle_input_sentence:
            if len(sample) < limit:
                sample.append((line, freq))
            else:
                j = rng.randrange(seen)
                if j < limit:
                    sample[j] = (line, freq)
            continue
        batch.append(line)
        freqs.append(freq)
        if len(batch) >= 10000:
            counter.add_sentences(batch, freqs, checked=True)
            batch, freqs = [], []
        if limit and seen >= limit:
            break
    if sample:
        log(f"sampled {len(sample)} of {seen} sentences")
        batch += [s for s, _ in sample]
        freqs += [f for _, f in sample]
    if batch:
        counter.add_sentences(batch, freqs, checked=True)
    for what, n in skipped.items():
        if n:
            log(f"skipped {n} lines ({what.replace('_', ' ')})")


def choose_alphabet(chars: dict[int, int], total: int, ts: TrainerSpec) -> dict[int, int]:
    """The kept characters (code point -> count), as sentencepiece's LoadSentences picks them.

    >>> from tokenforge.formats.sentencepiece_model import TrainerSpec
    >>> choose_alphabet({97: 990, 98: 9, 99: 1}, 1000, TrainerSpec(character_coverage=0.99))
    {97: 990}
    """
    required = {ord(c) for c in ts.required_chars if ord(c) != 0}
    counts = dict(chars)
    for c in required:
        counts.setdefault(c, 0)
    order = sorted(counts.items(), key=lambda kv: (kv[0] not in required, -kv[1], kv[0]))
    coverage_limit = f32(ts.character_coverage)
    kept: dict[int, int] = {}
    accumulated = 0
    for cp, n in order:
        coverage = f32(accumulated / total) if total else 1.0
        if not ts.use_all_vocab and coverage >= coverage_limit:
            break
        accumulated += n
        if cp == BOUNDARY:
            continue
        kept[cp] = n
    return kept
