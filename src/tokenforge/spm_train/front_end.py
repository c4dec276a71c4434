"""sentencepiece's training front end: lines in, counted words and the alphabet out.

Lines come from files (read in 4 MB blocks, split at '\\n' as spm_train's ReadLine does,
so a '\\r' stays in the line), from ``input_format="tsv"`` files (``text<TAB>count``) or
from an iterator of str (one sentence each).  Empty lines, lines over
``max_sentence_length`` bytes and lines holding U+2585 (the trainer's unknown mark) are
skipped.  With ``input_sentence_size`` N > 0 only N lines are kept: a reservoir sample with
a fixed seed when ``shuffle_input_sentence`` (sentencepiece's own sample is random), else
the first N.  The native :class:`SpmSentenceCounter` normalizes, cuts out meta pieces and
counts words; memory grows with the distinct words.

The alphabet: characters sorted by (given in ``required_chars``, count, code point), taken
while the covered share, computed in float32 as sentencepiece does, is below
``character_coverage``; the others become the unknown mark.

What this leaves out: the model types' training (bpe.py, the native merger).
"""

from __future__ import annotations

import os
import random
import struct
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from tokenforge import _native
from tokenforge.formats.sentencepiece_model import NormalizerSpec, TrainerSpec
from tokenforge.spm_train.charsmaps import load_charsmap

BLOCK = 4 << 20
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
    counter = _native.SpmSentenceCounter(
        charsmap, (ns.add_dummy_prefix, ns.remove_extra_whitespaces, ns.escape_whitespaces,
                   ts.treat_whitespace_as_suffix),
        ts.max_sentence_length, ts.split_by_whitespace, ts.allow_whitespace_only_pieces, meta)
    for path in files:
        if not os.path.isfile(path):
            raise OSError(f"input file not found: {path}")
    limit = ts.input_sentence_size
    if iterator is None and ts.input_format != "tsv" and limit == 0:
        for path in files:
            for block in _blocks(path):
                counter.add_block(block)
            log(f"read {path}: {counter.stats()['sentences']} sentences so far")
    else:
        _add_lines(counter, ts, _lines(ts, files, iterator), limit, log)
    stats = dict(counter.stats())
    if stats["too_long"]:
        log(f"skipped {stats['too_long']} lines longer than max_sentence_length={ts.max_sentence_length} bytes")
    if stats["reserved"]:
        log(f"skipped {stats['reserved']} lines holding U+2585")
    if stats["words"] == 0:
        raise ValueError("the input has no sentence to train on (empty, or every line was skipped)")
    log(f"loaded {stats['sentences']} sentences, {stats['words']} distinct words")
    chars, total = counter.char_counts()
    alphabet = choose_alphabet(chars, total, ts)
    log(f"alphabet: {len(alphabet)} characters")
    return Corpus(counter, alphabet, stats)


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
