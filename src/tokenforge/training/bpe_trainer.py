"""`BpeTrainer`: train a byte-level BPE tokenizer (GPT style) and get a `tokenforge.Encoding`.

The policy lives here: argument checks, special tokens, batching an iterator of texts,
progress, the summary.  The work is native (``cpp/training/``): the corpus is split by
the pattern's C++ scanner and its distinct pieces counted on all cores, then merges are
learned with HF tokenizers' BpeTrainer's exact rule (highest count; ties to the smallest
pair of ids), so the merges equal HF's for the same pattern and vocabulary size.

It leaves out the file formats (:mod:`tokenforge.formats`), the command line
(:mod:`tokenforge.cli`) and the pure-Python oracle (:mod:`tokenforge.training.reference`).

Example (worked by hand: "lo" and "ow" both occur 30 times and "l" < "o" in byte order;
then " " + "low" and "low" + "e" tie at 20, and " " (id 220) < "low" (id 257)):
    >>> trainer = BpeTrainer(260, show_progress=False)
    >>> enc = trainer.train_from_iterator(["low lower lowest"] * 10)
    >>> enc.n_vocab, [enc.decode([i]) for i in range(256, 260)]
    (260, ['lo', 'low', ' low', ' lowe'])
"""

from __future__ import annotations

import dataclasses
import os
import time
from collections.abc import Iterable, Sequence

import regex

from tokenforge import _native, patterns
from tokenforge.core import Encoding
from tokenforge.training.progress import run_with_progress

_BATCH_BYTES = 8 << 20  # texts from an iterator go to the native counter in batches this big
_LINE_ENDS = regex.compile(r"(?<=\n)")  # splits after every "\n" (and nowhere else)


@dataclasses.dataclass(frozen=True)
class TrainStats:
    """What the last training run saw and did."""

    bytes: int  # UTF-8 bytes of training text
    tokens: int  # tokens the training text became with the learned merges
    distinct_pieces: int  # distinct pieces of two or more bytes (the words merged)
    merges: int
    seconds: float

    @property
    def bytes_per_token(self) -> float:
        return self.bytes / self.tokens if self.tokens else 0.0


class BpeTrainer:
    """Learns byte-level BPE merges; `train` and `train_from_iterator` return an `Encoding`.

    Ranks 0-255 of the result are the single bytes in GPT-2's byte order (as in cl100k and
    HF's ByteLevel alphabet), rank 256 + k is the k-th merge, and special tokens follow.
    """

    def __init__(
        self,
        vocab_size: int,
        *,
        pat_str: str = patterns.CL100K,
        special_tokens: Sequence[str] | None = None,
        min_frequency: int = 0,
        show_progress: bool = True,
        errors: str = "strict",
        threads: int | None = None,
        name: str = "trained",
    ) -> None:
        """Checks and stores the settings.

        Args:
            vocab_size: tokens to learn, counting the 256 bytes and the merges but not the
                special tokens; at least 256.
            pat_str: the split pattern; gpt2, cl100k, llama3 and o200k run natively, any
                other `regex` pattern is split in Python (slower).
            special_tokens: texts that get the ids after the merges, in this order.  Where
                they occur in the training text they are cut out and not learned from, so
                e.g. "<|endoftext|>" can separate documents in a file.  (HF's trainer learns
                from them as ordinary text; ours equals HF's on the text between them.)
            min_frequency: stop early when the best pair occurs fewer times.
            show_progress: draw progress bars on stderr.
            errors: what to do with bytes of a file that are not UTF-8: "strict" raises
                ValueError naming the file and offset, "replace" decodes them as U+FFFD
                (like Python's errors="replace").  Also applies to lone surrogates in texts.
            threads: counting threads (default: all cores).  The result never depends on it.
            name: the name of the returned Encoding.

        Raises:
            ValueError: a vocabulary below 256, a pattern that does not compile, bad special
                tokens or an unknown `errors`.
        """
        if not isinstance(vocab_size, int) or vocab_size < 256:
            raise ValueError(f"vocab_size must be an int >= 256 (the 256 single bytes), got {vocab_size!r}")
        if vocab_size >= 0xFFFFFFF0:
            raise ValueError(f"vocab_size {vocab_size} is too large")
        if min_frequency < 0:
            raise ValueError(f"min_frequency must be >= 0, got {min_frequency}")
        if errors not in ("strict", "replace"):
            raise ValueError(f"errors must be 'strict' or 'replace', got {errors!r}")
        specials = list(special_tokens or [])
        if any(not isinstance(s, str) or not s for s in specials) or len(set(specials)) != len(specials):
            raise ValueError(f"special_tokens must be distinct non-empty strings, got {specials!r}")
        self._scanner = patterns.scanner_for(pat_str)
        try:
            self._regex = regex.compile(pat_str)
        except (regex.error, TypeError) as e:
            raise ValueError(f"split pattern does not compile: {e}") from None
        # Longest first, so a special that starts another is preferred, as in the native matcher.
        self._special_regex = (
            regex.compile("|".join(regex.escape(s) for s in sorted(specials, key=len, reverse=True))) if specials else None
        )
        self.vocab_size = vocab_size
        self.pat_str = pat_str
        self.special_tokens = specials
        self.min_frequency = min_frequency
        self.show_progress = show_progress
        self.errors = errors
        self.threads = threads or os.cpu_count() or 1
        self.name = name
        self.merges: list[tuple[int, int, int]] = []  # (left id, right id, new id), in HF's order
        self.stats: TrainStats | None = None

    def train(
        self, paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]], *, by_line: bool = False
    ) -> Encoding:
        """Trains on text files; each file is one text (no piece spans two files).

        Files are read in blocks, never whole (except with a pattern that has no native
        scanner), so memory grows with the number of distinct pieces, not the corpus size.
        A file is split as one text, as tiktoken's encoder would see it.  With `by_line`,
        every line (with its "\\n") is a text of its own, which is how HF's
        ``Tokenizer.train(files)`` reads files: the merges then equal HF's for the same files.

        >>> import os, tempfile
        >>> path = os.path.join(tempfile.mkdtemp(), "corpus.txt")
        >>> with open(path, "w") as f:
        ...     _ = f.write("aaa " * 5)
        >>> trainer = BpeTrainer(258, show_progress=False)
        >>> [trainer.train(path).decode([i]) for i in (256, 257)]
        ['aa', 'aaa']

        Raises:
            OSError: a file cannot be opened or read.
            ValueError: a file is not UTF-8 and errors="strict".
        """
        paths = [os.fspath(paths)] if isinstance(paths, (str, os.PathLike)) else [os.fspath(p) for p in paths]
        for p in paths:
            if os.path.isdir(p):
                raise IsADirectoryError(f"{p}: is a directory")
            with open(p, "rb"):  # FileNotFoundError / PermissionError with the usual message
                pass
        started = time.monotonic()
        total = sum(os.path.getsize(p) for p in paths)
        counter = self._counter()
        if self._scanner is not None:
            work = lambda: counter.add_files(paths, self.errors == "replace", by_line)  # noqa: E731
        else:
            split = (lambda text: _LINE_ENDS.split(text)) if by_line else (lambda text: [text])  # noqa: E731
            work = lambda: [self._add_by_regex(counter, split(self._read(p))) for p in paths]  # noqa: E731
        run_with_progress(work, lambda: counter.bytes_done, total, "counting", self.show_progress, "B")
        return self._merge(counter, started)

    def train_from_iterator(self, iterator: Iterable[str]) -> Encoding:
        """Trains on texts; each text is split on its own, as HF's train_from_iterator does.

        >>> enc = BpeTrainer(257, special_tokens=["<|eot|>"], show_progress=False).train_from_iterator(
        ...     ["ab ab<|eot|>ab"])
        >>> enc.decode([256]), enc.encode("<|eot|>", allowed_special="all")
        ('ab', [257])

        Raises:
            TypeError: an item is not a str.
            ValueError: a text holds a lone surrogate and errors="strict".
        """
        started = time.monotonic()
        counter = self._counter()

        def work() -> None:
            batch: list[str] = []
            size = 0
            for text in iterator:
                if not isinstance(text, str):
                    raise TypeError(f"train_from_iterator needs str items, got {type(text).__name__}")
                batch.append(text)
                size += len(text)
                if size >= _BATCH_BYTES:
                    self._add_texts(counter, batch)
                    batch, size = [], 0
            self._add_texts(counter, batch)

        run_with_progress(work, lambda: counter.bytes_done, None, "counting", self.show_progress, "B")
        return self._merge(counter, started)

    # ---- internals ----

    def _counter(self) -> _native.PieceCounter:
        counter = _native.PieceCounter(int(self._scanner) if self._scanner is not None else 0, self.threads)
        counter.set_specials(self.special_tokens)
        return counter

    def _clean(self, text: str) -> str:
        try:
            text.encode("utf-8")
            return text
        except UnicodeEncodeError:
            if self.errors == "strict":
                raise ValueError("text holds a lone surrogate (pass errors='replace' to train on U+FFFD)") from None
            return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")

    def _read(self, path: str) -> str:
        with open(path, "rb") as f:
            data = f.read()
        try:
            return data.decode("utf-8", self.errors)
        except UnicodeDecodeError as e:
            raise ValueError(f"{path}: invalid UTF-8 at byte offset {e.start} (pass errors='replace')") from None

    def _add_texts(self, counter: _native.PieceCounter, texts: list[str]) -> None:
        if self._scanner is None:
            self._add_by_regex(counter, [self._clean(t) for t in texts])
            return
        try:
            counter.add_texts(texts)  # converts every text before counting any
        except UnicodeEncodeError:  # a lone surrogate somewhere in the batch
            counter.add_texts([self._clean(t) for t in texts])

    def _add_by_regex(self, counter: _native.PieceCounter, texts: list[str]) -> None:
        for text in texts:
            for segment in self._special_regex.split(text) if self._special_regex else [text]:
                counter.add_pieces(self._regex.findall(segment))

    def _merge(self, counter: _native.PieceCounter, started: float) -> Encoding:
        core = _native.BpeTrainer()
        core.add_counts(counter)
        del counter  # the piece table is copied into the trainer's word layout
        wanted = self.vocab_size - 256
        run_with_progress(
            lambda: core.train(self.vocab_size, self.min_frequency),
            lambda: core.merges_done,
            wanted,
            "merging",
            self.show_progress and wanted > 0,
        )
        tokens = core.tokens()
        self.merges = core.merges()
        total_bytes, total_tokens = core.text_size()
        self.stats = TrainStats(
            bytes=total_bytes,
            tokens=total_tokens,
            distinct_pieces=core.num_words,
            merges=len(self.merges),
            seconds=time.monotonic() - started,
        )
        ranks = {t: i for i, t in enumerate(tokens)}
        specials = {s: len(tokens) + i for i, s in enumerate(self.special_tokens)}
        return Encoding(self.name, pat_str=self.pat_str, mergeable_ranks=ranks, special_tokens=specials)
