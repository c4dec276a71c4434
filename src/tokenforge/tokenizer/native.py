"""The native path for byte-level BPE files: tokenforge's byte-level engine behind a Tokenizer.

A tokenizer.json whose pipeline is (no normalizer | NFC | NFKC | empty Sequence) -> one known
split pattern (GPT-2 via ByteLevel's own regex, or a Split regex tokenforge has a scanner for,
Isolated or Removed+invert) -> ByteLevel without prefix space -> BPE over all 256 byte
characters, whose merges produce tokens in increasing id order, is a rank table: the rank of a
merged token is its id, so `tokenforge.Encoding` (the tiktoken engine, C++) gives its ids.
Added tokens become its special tokens when none has lstrip/rstrip/single_word, none is a
prefix of another (so leftmost-first and tokenizers' leftmost-longest agree), no token
matched in the raw text overlaps a `normalized` one (tokenizers matches the raw ones first, in
a pass of their own: :func:`_passes_differ`), and the normalizer leaves each `normalized`
one's content as it is (tokenizers matches a normalized token by its normalized content).  With `encode_special_tokens` on, a file with
special tokens takes the Python pipeline.

Whole Encodings of single texts (`encode`, `encode_batch`, `encode_batch_fast`, when the
post-processor is at most a template and ByteLevel: :func:`post_plan`) come from
``_native.ByteLevelDocs`` (cpp/bindings/byte_level_docs_binding.cc): ids, character offsets
and ByteLevel's offset trimming worked out on the native threads, the template's special
tokens framed in C++, each list made when read (:class:`ByteLevelDocEncoding`).  Otherwise
(other processors) the Encoding below is made and post-processed in Python; a pair's texts are
unframed documents laid out by :mod:`tokenforge.tokenizer.pair_encoding`.

Offsets, tokens and word ids are computed from the ids: token byte lengths summed give byte
spans, a UTF-8 lead-byte count turns them into characters (the lists built natively:
``_native._byte_level_lists``), ByteLevel's offset
trimming is a per-id table of leading/trailing spaces, and word ids come from the native
scanner's piece ends.  Text that the normalizer changes (NFC/NFKC) is normalized first, in
C++ and with `tokenizers`' alignment (:meth:`NativeByteLevel.normal_form`),
and its tokens' offsets read back through that alignment; so is a lone ByteLevel pre-tokenizer's
prefix space (a space put before a text that does not start with one, aligned as `tokenizers`
aligns it: with the text's first character); such text with an added token in it takes the
Python pipeline.  Anything else — other pre-tokenizers, a prefix space after other steps,
byte_fallback — is not native.

Example:
    >>> NativeByteLevel.build(object()) is None
    True
"""

from __future__ import annotations

import functools
import re
import unicodedata

import numpy as np

from tokenforge import _native, patterns
from tokenforge.core import Encoding as ByteEncoding
from tokenforge.models.bpe import BPE
from tokenforge.normalizers import NFC, NFKC
from tokenforge.normalizers import Sequence as NormSeq
from tokenforge.patterns import Scanner, scanner_for
from tokenforge.pre_tokenizers import ByteLevel, Sequence, Split
from tokenforge.pre_tokenizers.byte_level import CHAR_BYTES
from tokenforge.processors import ByteLevel as ByteLevelProcessor
from tokenforge.processors import RobertaProcessing, TemplateProcessing
from tokenforge.processors import Sequence as ProcSeq
from tokenforge.tokenizer.doc_encoding import DocEncoding, frame_args, padded_field, single_template
from tokenforge.tokenizer.encoding import Encoding, NativeEncoding, once
from tokenforge.tokenizer.pipeline import check_surrogates as _check_surrogates

_GPT2 = r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"


def _scanner(pre, prefix_ok: bool = False) -> int | None:
    """The native scanner equal to this pre-tokenizer's split, or None.  With prefix_ok, a
    lone ByteLevel may add its prefix space (the caller adds it: :func:`_prefix_space`)."""
    steps = pre.pretokenizers if isinstance(pre, Sequence) else [pre]
    if not steps or not isinstance(steps[-1], ByteLevel):
        return None
    bl = steps[-1]
    if bl.add_prefix_space and not (prefix_ok and len(steps) == 1):
        return None
    if len(steps) == 1:
        return int(Scanner.GPT2) if bl.use_regex else None
    if len(steps) != 2 or bl.use_regex or not isinstance(steps[0], Split):
        return None
    sp = steps[0]
    if "Regex" not in sp.pattern:
        return None
    if not ((sp.behavior == "Isolated" and not sp.invert) or (sp.behavior == "Removed" and sp.invert)):
        return None
    s = scanner_for(sp.pattern["Regex"]) or _hf_spellings().get(sp.pattern["Regex"])
    return None if s is None else int(s)


def _prefix_space(pre) -> bool:
    """Whether the pre-tokenizer is one ByteLevel adding a prefix space (alone in a Sequence or not)."""
    steps = pre.pretokenizers if isinstance(pre, Sequence) else [pre]
    return len(steps) == 1 and isinstance(steps[0], ByteLevel) and bool(steps[0].add_prefix_space)


def _with_prefix_space(found: tuple, n: int) -> tuple:
    """A normal form (text, starts, ends; starts None: the text of n characters as it was)
    with ByteLevel's prefix space before it when it does not start with one: the space and the
    first character both come from the first character, as `tokenizers`' prepend aligns them.

    Example:
        >>> import numpy as np
        >>> t, s, e = _with_prefix_space(("ab", None, None), 2)
        >>> t, np.frombuffer(s, np.uint32).tolist(), np.frombuffer(e, np.uint32).tolist()
        (' ab', [0, 0, 1], [1, 1, 2])
    """
    text, starts, ends = found
    if not text or text.startswith(" "):
        return found
    if starts is None:
        s = np.arange(n, dtype=np.uint32)
        e = s + 1
    else:
        s, e = np.frombuffer(starts, dtype=np.uint32), np.frombuffer(ends, dtype=np.uint32)
    return " " + text, np.concatenate((s[:1], s)).tobytes(), np.concatenate((e[:1], e)).tobytes()


@functools.lru_cache(maxsize=1)
def _hf_spellings() -> dict[str, Scanner]:
    """tiktoken's patterns as tokenforge writes them into tokenizer.json (cl100k's possessive
    counted repeat as an atomic group, which splits the same: formats/hf_json.py)."""
    from tokenforge.formats.hf_json import hf_pattern

    return {hf_pattern(p): scanner_for(p) for p in (patterns.GPT2, patterns.CL100K, patterns.LLAMA3, patterns.O200K, patterns.QWEN2,
                                                   patterns.TEKKEN)}


def _norm_form(norm) -> str | None | bool:
    """'' for no normalization, 'NFC'/'NFKC' for those, False for anything else."""
    if norm is None or (isinstance(norm, NormSeq) and not norm.normalizers):
        return ""
    if isinstance(norm, (NFC, NFKC)):
        return type(norm).__name__
    return False


def _space_counts(token: str) -> tuple[int, int]:
    from tokenforge.normalizers.bert import WHITE_SPACE
    sp = "\u0120"
    lead = 0
    for c in token:
        if c == sp or c in WHITE_SPACE:
            lead += 1
        else:
            break
    trail = 0
    for c in reversed(token):
        if c == sp or c in WHITE_SPACE:
            trail += 1
        else:
            break
    return lead, trail


class NativeByteLevel:
    """The byte-level engine and the tables that turn its ids into an Encoding."""

    cut = None  # a _native.CutClass the engine cuts with before its scanner (native_cut.py)

    def __init__(self, tok, scanner: int, form: str, ranks: dict[bytes, int], specials: dict[str, int]) -> None:
        import numpy as np

        self.tok, self.scanner, self.form = tok, scanner, form
        self.prefix_space = _prefix_space(tok.pre_tokenizer)
        self.engine = self.make_engine(scanner, ranks, specials)
        size = max(max(ranks.values(), default=0), max(specials.values(), default=0)) + 1
        lens = np.zeros(size, dtype=np.int64)
        lead = np.zeros(size, dtype=np.int64)
        trail = np.zeros(size, dtype=np.int64)
        tokens = [""] * size
        vocab_r = tok.model.vocab_r
        for b, i in ranks.items():
            lens[i] = len(b)
            tokens[i] = vocab_r[i]
        for s, i in specials.items():
            lens[i] = len(s.encode("utf-8"))
            tokens[i] = s
        for i, t in enumerate(tokens):
            if t and (t[0] in " \u0120" or t[-1] in " \u0120" or t[0].isspace() or t[-1].isspace()):
                lead[i], trail[i] = _space_counts(t)
        self.lens, self.lead, self.trail, self.tokens = lens, lead, trail, tokens
        # id -> its int object and its token, shared by every Encoding's lists (tuples: the
        # garbage collector stops traversing a tuple of ints or strs)
        self.numbers, self.token_tuple = tuple(range(size)), tuple(tokens)
        self.token_array = np.array(tokens, dtype=object)  # id -> token string, for fancy indexing
        self.is_special = np.zeros(size, dtype=bool)
        self.is_special[list(specials.values())] = True
        self.any_special = bool(specials)
        self.np = np
        self._added = re.compile("|".join(map(re.escape, specials))) if specials else None

        self.plan = post_plan(tok.post_processor)
        self._doc_tables = None
        self._frames: dict = {}  # add_special_tokens -> _frame(add_special_tokens)

    def make_engine(self, scanner: int, ranks: dict[bytes, int], specials: dict[str, int]):
        """The byte-level engine: a `tokenforge.Encoding` on the scanner's pattern."""
        return _make_engine(scanner, ranks, specials)

    @classmethod
    def build(cls, tok) -> "NativeByteLevel | None":
        """The native path for `tok`, or None when its pipeline is not a rank table."""
        pre = getattr(tok, "pre_tokenizer", None)
        scanner = _scanner(pre, prefix_ok=True) if pre is not None else None
        tables = rank_tables(tok) if scanner is not None else None
        if tables is None:
            return None
        try:
            return cls(tok, scanner, *tables)
        except ValueError:
            return None

    def normal_form(self, text: str) -> tuple[str, bytes | None, bytes | None] | None:
        """A text as the engine takes it: (normalized text, each of its characters' original
        start, and end, as native uint32 bytes), (text, None, None) when the normalizer leaves
        it as it is, or None for the Python path.

        `tokenizers`' NFC/NFKC (Unicode 11.0 data) runs natively
        (``_native.normalize_unicode``, whose readable twin is
        :func:`tokenforge.normalizers.unicode.normalize_aligned`).  A text the normalizer
        changes with an added token in it, before or after normalizing, is left to the Python
        path (a token matched in the raw text, or one that normalizing makes or unmakes, is not
        the engine's to find).
        """
        found = _native.normalize_unicode(text, self.form) if self.form else None
        if self.prefix_space:
            if self._added is not None and self._added.search(text) is not None:
                return None  # each stretch between added tokens gets a prefix space: the Python path's
            found = _with_prefix_space(found or (text, None, None), len(text))
        if found is None or found[1] is None:
            return text, None, None
        _check_surrogates(text)
        if self._added is not None and (self._added.search(text) is not None
                                        or self._added.search(found[0]) is not None):
            return None
        return found

    def encode(self, text: str, type_id: int = 0) -> Encoding | None:
        """The Encoding of one text (before post-processing), or None to use the Python path."""
        if self.prefix_space or (self.form and not text.isascii()):
            return self._encode_normalized(text, type_id)
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError as e:
            raise ValueError(f"text holds a lone surrogate at character {e.start}") from None
        ids = self.engine.encode_to_numpy(text, allowed_special="all")
        return self.to_encoding(text, data, ids, type_id)

    def _encode_normalized(self, text: str, type_id: int) -> Encoding | None:
        """encode() of a text the normalizer may change: the normalized text's Encoding, its
        offsets read back through the normalizer's alignment (normal_form)."""
        _check_surrogates(text)
        found = self.normal_form(text)
        if found is None:
            return None
        normalized, starts, ends = found
        data = normalized.encode("utf-8")
        ids = self.engine.encode_to_numpy(normalized, allowed_special="all")
        enc = self.to_encoding(normalized, data, ids, type_id)
        if starts is None:
            return enc
        if len(ids):
            enc.offsets = self.original_offsets(self._array(ids), data, starts, ends)
        enc._trim = None  # offsets in the original text: ByteLevel trims them as the Python path does
        return enc

    def encode_batch(self, texts: list[str], threads: int) -> list[Encoding | None]:
        """Encodings of many texts, ids on native threads (None where the Python path must run)."""
        if self.prefix_space:
            return [self._encode_normalized(t, 0) for t in texts]
        ok = [not self.form or unicodedata.is_normalized(self.form, t) for t in texts]
        todo = [t for t, k in zip(texts, ok) if k]
        for t in todo:
            _check_surrogates(t)
        ids = iter(self.engine.encode_batch(todo, allowed_special="all", num_threads=threads))
        return [self.to_encoding(t, t.encode("utf-8"), next(ids), 0) if k else None for t, k in zip(texts, ok)]

    def ids_batch(self, texts: list[str], threads: int) -> list[list[int] | None]:
        """Ids of many texts on native threads (None where the Python path must run)."""
        texts, ok, _ = self._normalized_texts(texts)
        ids = iter(self._engine_ids([t for t, k in zip(texts, ok) if k], threads))
        return [next(ids) if k else None for k in ok]

    def _engine_ids(self, texts: list[str], threads: int) -> list[list[int]]:
        """The engine's ids of texts as they are, every added token matched; a lone surrogate
        raises ValueError as str.encode fails (the native side finds it as it makes the UTF-8;
        tiktoken's face would repair it)."""
        if getattr(self.engine, "_regex", None) is not None:  # a tiktoken face on a Python regex
            for t in texts:
                _check_surrogates(t)
            return self.engine.encode_batch(texts, allowed_special="all", num_threads=threads)
        core, specials = self.engine_and_specials()
        return core.encode_batch(texts, specials, None, threads, strict=True)

    def original_offsets(self, arr, data: bytes, starts, ends) -> list[tuple[int, int]]:
        """The offsets in the original text of the tokens `arr` of a normalized text (UTF-8
        `data`), whose characters came from the original's (starts[i], ends[i]; native uint32
        bytes): every token holds a byte, so a non-empty range of characters."""
        np = self.np
        first, end = self._char_spans(arr, data)
        starts, ends = np.frombuffer(starts, dtype=np.uint32), np.frombuffer(ends, dtype=np.uint32)
        return list(zip(starts[first].tolist(), ends[end - 1].tolist()))

    def _normalized_texts(self, texts: list[str], with_spans: bool = False,
                          trim: bool = False) -> tuple[list[str], list[bool], list]:
        """Each text as the engine takes it (normalized: normal_form), whether it can (False:
        the Python path), and with_spans, the original (starts, ends) of a normalized one's
        characters (None for a text left as it is; False in ok instead when trim)."""
        out, ok, spans = texts, [True] * len(texts), [None] * len(texts)
        if not self.form and not self.prefix_space:
            return out, ok, spans
        for k, t in enumerate(texts):
            if t.isascii() and not self.prefix_space:
                continue
            found = self.normal_form(t)
            if found is not None and found[1] is None:
                continue  # left as it is
            if found is None or (with_spans and trim):
                ok[k] = False
                continue
            if out is texts:
                out = list(texts)
            out[k] = found[0]
            if with_spans:
                spans[k] = found[1:]
        return out, ok, spans

    def to_encoding(self, text: str, data: bytes, ids, type_id: int) -> Encoding:
        """ids (a list or a numpy array) with their tokens, offsets and word ids."""
        n = len(ids)
        if n == 0:
            return Encoding([], [], [], [], [])
        if not isinstance(ids, list):
            ids = self._array(ids)
        id_list, tokens, offsets = _native._byte_level_lists(ids, self.lens, self.numbers, self.token_tuple, data)

        def words() -> list[int]:
            arr = self._array(ids)
            return self._words(data, arr, self._byte_starts(arr))

        enc = NativeEncoding(id_list, tokens, offsets, words, [type_id] * n)
        enc._trim = (ids, data, self)  # numpy arrays made only if ByteLevel trims
        return enc

    def _array(self, ids):
        """ids (a list or an array) as an int64 array."""
        return self.np.asarray(ids, dtype=self.np.int64)

    def _byte_starts(self, arr):
        """Where each token begins in the UTF-8 text."""
        lens = self.lens[arr]
        return self.np.cumsum(lens) - lens

    def _char_spans(self, arr, data: bytes):
        """(first character, end character) of each token, as numpy arrays."""
        np = self.np
        starts = self._byte_starts(arr)
        ends = starts + self.lens[arr]
        u8 = np.frombuffer(data, dtype=np.uint8)
        cidx = np.cumsum((u8 & 0xC0) != 0x80) - 1  # byte -> index of the character holding it
        return cidx[starts], cidx[ends - 1] + 1

    def _words(self, data: bytes, arr, starts) -> list[int]:
        np = self.np
        special_at = self.is_special[arr] if self.any_special else None
        if special_at is None or not special_at.any():
            piece_ends = np.fromiter(_native._split(self.scanner, data, self.cut)[0], dtype=np.int64)
            return np.searchsorted(piece_ends, starts, side="right").tolist()
        # pieces of each stretch between added tokens, each added token a piece of its own
        out = np.empty(len(arr), dtype=np.int64)
        base_word = 0
        seg_start_tok = 0
        seg_start_byte = 0
        for k in np.flatnonzero(special_at).tolist() + [len(arr)]:
            seg_end_byte = int(starts[k]) if k < len(arr) else len(data)
            if k > seg_start_tok:
                seg = data[seg_start_byte:seg_end_byte]
                piece_ends = np.array(_native._split(self.scanner, seg, self.cut)[0], dtype=np.int64)
                rel = starts[seg_start_tok:k] - seg_start_byte
                out[seg_start_tok:k] = np.searchsorted(piece_ends, rel, side="right") + base_word
                base_word += len(piece_ends)
            if k < len(arr):
                out[k] = base_word
                base_word += 1
                seg_start_tok = k + 1
                seg_start_byte = int(starts[k] + self.lens[arr[k]])
        return out.tolist()

    def engine_and_specials(self):
        """The native engine (`_native.Encoding`) and the SpecialSet of every added token."""
        return self.engine._core, self.engine._special_sets("all", ())[0]

    def _tables(self):
        """The native tables of encode_docs (made on first use)."""
        if self._doc_tables is None:
            np = self.np
            self._doc_tables = (_native.ByteLevelDocs(self.lens.astype(np.uint32), self.lead.astype(np.uint8),
                                                      self.trail.astype(np.uint8), self.token_tuple),
                                *self.engine_and_specials())
        return self._doc_tables

    def encode_final(self, texts: list[str], add_special_tokens: bool, threads: int,
                     ids_only: bool = False) -> list[Encoding | None] | None:
        """Post-processed Encodings of single texts, encoded with their offsets (trimmed, if
        the post-processor trims) on native threads and framed by its template there, each list
        made on first access; None in place of a text the normalizer would change; None when
        the post-processor is not a template and ByteLevel (:func:`post_plan`).  With
        ids_only, as encode_batch_fast: no offsets.

        Raises:
            ValueError: a text holding a lone surrogate.
        """
        if self.plan is None:
            return None
        template, trim, prefix_space = self.plan
        if trim and self._wide_trim:
            return None  # the native tables count spaces in a byte
        # A text the normalizer changes is encoded normalized, its offsets read back through
        # the alignment when read (not with trimming: the caller's Encoding path takes it).
        texts, ok, spans = self._normalized_texts(texts, with_spans=not ids_only, trim=trim)
        todo = texts if all(ok) else [t for t, k in zip(texts, ok) if k]
        tables, core, allowed = self._tables()
        frame, shape = frame_args(template, add_special_tokens)
        docs = iter(tables.encode_docs(core, allowed, todo, threads, *frame, trim, prefix_space, ids_only))
        return [None if not k else ByteLevelDocEncoding(next(docs), shape, self, t) if m is None
                else NormalizedDocEncoding(next(docs), shape, self, t, m) for t, k, m in zip(texts, ok, spans)]

    def encode_final_fast(self, texts: list[str], add_special_tokens: bool, threads: int) -> list | None:
        """encode_final without offsets (encode_batch_fast)."""
        return self.encode_final(texts, add_special_tokens, threads, ids_only=True)

    def encode_final_one(self, text: str, add_special_tokens: bool) -> Encoding | None:
        """encode_final of one text (None: the Python path must take it), without the batch's
        machinery where the text needs no normalizing (ByteLevelDocs.encode_doc in a frame
        made once)."""
        if self.plan is None or self.prefix_space or (self.form and not text.isascii()):
            done = self.encode_final([text], add_special_tokens, 1)
            return None if done is None else done[0]
        frame = self._frames.get(bool(add_special_tokens))
        if frame is None:
            frame = self._frames[bool(add_special_tokens)] = self._frame(add_special_tokens)
        if frame[0] is None:
            return None
        tables, core, allowed = self._tables()
        _, trim, prefix_space = self.plan
        return ByteLevelDocEncoding(tables.encode_doc(core, allowed, text, frame[0], trim, prefix_space), frame[1],
                                    self, text)

    def _frame(self, add_special_tokens: bool) -> tuple:
        """(the native frame of encode_doc, the Encodings' shape), or (None, None) when
        encode_final takes no text (trimming counts of over 255 characters)."""
        template, trim, _ = self.plan
        if trim and self._wide_trim:
            return None, None
        frame, shape = frame_args(template, add_special_tokens)
        return self._tables()[0].frame(*frame), shape

    @functools.cached_property
    def _wide_trim(self) -> bool:
        """Whether some token has more leading or trailing space-like characters than the
        native tables' byte counts hold (ByteLevel trimming then takes the Python path)."""
        return max(int(self.lead.max()), int(self.trail.max())) > 255

    def text_words(self, text: str, ids: list[int]) -> list[int]:
        """The word id of each of a text's tokens (`ids`: the text's, no template's)."""
        if not ids:
            return []
        data = text.encode("utf-8")
        arr = self._array(ids)
        return self._words(data, arr, self._byte_starts(arr))

    def trim(self, enc: Encoding, add_prefix_space: bool) -> bool:
        """ByteLevel's offset trimming on a native Encoding with numpy; False if not native."""
        info = getattr(enc, "_trim", None)
        if info is None or info[-1] is not self or len(info[0]) != len(enc.ids):
            return False
        np = self.np
        arr, data = self._array(info[0]), info[1]
        enc._trim = None  # a second trim (two trimming processors) works on these offsets, in Python
        lead, trail = self.lead[arr], self.trail[arr]
        if not lead.any() and not trail.any():
            return True
        a, b = self._char_spans(arr, data)
        idx = np.arange(len(arr))
        first = (idx == 0) | (a == 0)
        if add_prefix_space:
            lead = np.where(first & (lead == 1), 0, lead)
        a2 = np.where(lead > 0, np.minimum(a + lead, b), a)
        b2 = np.where((trail > 0) & (b >= trail), np.maximum(b - trail, a2), b)
        enc.offsets = list(zip(a2.tolist(), b2.tolist()))
        return True


class ByteLevelDocEncoding(DocEncoding):
    """A DocEncoding of NativeByteLevel.encode_final: word ids from the ids, when read (a
    window of a cut one: its slice of the whole text's, made once)."""

    __slots__ = ("_src", "_window")

    def __init__(self, doc, shape, native: "NativeByteLevel", text: str) -> None:
        super().__init__(doc, shape)
        self._src = (native, text)
        self._window = None  # a window: (the whole text's word ids, made once; where it starts)

    def _word_list(self) -> list:
        d = self._doc
        if d.ids_only:
            return d.word_ids()
        if self._window is None:
            words = self._src[0].text_words(self._src[1], d.text_ids())
        else:
            whole, a = self._window
            words = whole()[a:a + len(d) - d.prefix_len - len(self._shape[2])]
        return [None] * d.prefix_len + words + [None] * (len(d) - d.prefix_len - len(words))

    word_ids = padded_field("word_ids", _word_list)

    def _can_cut(self, kept_only: bool) -> bool:
        # Trimmed offsets are not cut: ByteLevel trims a window's first token by its own rule
        # (kept_only: the caller knows the kept window's first token is the text's first, or
        # that no prefix space makes the rule differ).
        return kept_only or not self._src[0].plan[1]

    def _placer(self):
        doc, (native, text) = self._doc, self._src
        whole = once(lambda: native.text_words(text, doc.text_ids()))

        def place(enc: "ByteLevelDocEncoding", a: int, b: int) -> None:
            enc._doc, enc._window = doc.window(a, b), (whole, a)

        return place


class NormalizedDocEncoding(ByteLevelDocEncoding):
    """A ByteLevelDocEncoding of a text the normalizer changed: the engine encoded the
    normalized text, and its tokens' offsets are read back to the original when read."""

    __slots__ = ("_spans",)

    def __init__(self, doc, shape, native: "NativeByteLevel", text: str, spans: tuple[list, list]) -> None:
        super().__init__(doc, shape, native, text)
        self._spans = spans

    def _offset_list(self) -> list:
        d = self._doc
        if d.ids_only:
            return d.offsets()
        return d.offsets_through(*self._spans)

    offsets = padded_field("offsets", _offset_list)

    def _can_cut(self, kept_only: bool) -> bool:
        return False  # its offsets are read back through the whole text's alignment


def post_plan(processor) -> tuple[tuple[list, list, int], bool, bool] | None:
    """What a post-processor does to a single text's native Encoding: (its template's frame,
    as doc_encoding.single_template gives it; whether offsets are trimmed; ByteLevel's
    add_prefix_space), or None for processors beyond templates and ByteLevel (then the
    Encoding path runs).  RobertaProcessing is both: its template, and ByteLevel's trimming
    when it trims (a single text's type ids are 0 either way).

    Example:
        >>> post_plan(ByteLevelProcessor(trim_offsets=True))
        (([], [], 0), True, True)
        >>> post_plan(RobertaProcessing(("</s>", 2), ("<s>", 0), add_prefix_space=False))
        (([(0, '<s>', 0)], [(2, '</s>', 0)], 0), True, False)
    """
    steps = processor.processors if isinstance(processor, ProcSeq) else [] if processor is None else [processor]
    frame, trims = None, []
    for p in steps:
        if isinstance(p, ByteLevelProcessor):
            if p.trim_offsets:
                trims.append(p.add_prefix_space)
            continue
        if frame is not None:
            return None
        if isinstance(p, RobertaProcessing):
            if p.trim_offsets:
                trims.append(p.add_prefix_space)
            p = TemplateProcessing(p.single, p.pair, p.special_tokens)
        frame = single_template(p)
        if frame is None:
            return None
    if len(trims) > 1:
        return None
    return (frame or ([], [], 0)), bool(trims), bool(trims and trims[0])


def rank_tables(tok) -> tuple[str, dict[bytes, int], dict[str, int]] | None:
    """(normalization form, ranks, specials) of a byte-level BPE whose merges are a rank table
    (everything but the split checked: module docstring), or None."""
    model = getattr(tok, "model", None)
    if not isinstance(model, BPE) or model.dropout or model.byte_fallback:
        return None
    if model.continuing_subword_prefix or model.end_of_word_suffix:
        return None
    form = _norm_form(tok.normalizer)
    if form is False or not _processor_ok(tok.post_processor):
        return None
    vocab = model.vocab
    if any(c not in vocab for c in CHAR_BYTES):
        return None
    # merged tokens must come in increasing id order along the merge list
    last = -1
    for new_id in model.merged_ids:
        if new_id < last:
            return None
        last = new_id
    specials: dict[str, int] = {}
    for i, t in tok.added.tokens.items():
        if t.single_word or t.lstrip or t.rstrip:
            return None
        if t.normalized and form and _native.normalize_unicode(t.content, form) is not None:
            return None  # tokenizers matches its normalized form, which the engine does not know
        specials[t.content] = i
    if _passes_differ(tok.added.tokens.values()):
        return None
    ranks: dict[bytes, int] = {}
    for t, i in vocab.items():
        if t in specials or i in tok.added.tokens:
            continue
        try:
            ranks[bytes(CHAR_BYTES[c] for c in t)] = i
        except KeyError:
            continue  # not made of byte characters: merges can never produce it
    return form, ranks, specials


def _passes_differ(tokens) -> bool:
    """Whether tokenizers' two passes over the added tokens (those matched in the raw text
    first, then the `normalized` ones in the pieces between) can split a text otherwise than
    the engine's one leftmost-longest scan over all of them: when a token of one kind overlaps
    one of the other (lies inside it, or ends with its beginning), the first pass can take
    text the scan gives the other."""
    raw = [t.content for t in tokens if not t.normalized]
    norm = [t.content for t in tokens if t.normalized]
    if not raw or not norm:
        return False
    for one, other in ((raw, norm), (norm, raw)):
        starts = {b[:k] for b in other for k in range(1, len(b) + 1)}
        if any(a[i:] in starts for a in one for i in range(len(a))):  # a ends with a start of b
            return True
        joined = "\0".join(other)
        if any(a in joined for a in one):  # a inside b (or across two: then say so, to be safe)
            return True
    return False


def _processor_ok(p) -> bool:
    if p is None:
        return True
    if isinstance(p, ProcSeq):
        return all(_processor_ok(q) for q in p.processors)
    return True  # templates add tokens after the fact; ByteLevel trims through `trim`


def _make_engine(scanner: int, ranks: dict[bytes, int], specials: dict[str, int]) -> ByteEncoding:
    from tokenforge import patterns

    pat = {int(Scanner.GPT2): patterns.GPT2, int(Scanner.CL100K): patterns.CL100K,
           int(Scanner.LLAMA3): patterns.LLAMA3, int(Scanner.O200K): patterns.O200K,
           int(Scanner.QWEN2): patterns.QWEN2, int(Scanner.TEKKEN): patterns.TEKKEN}[scanner]
    return ByteEncoding("tokenizer.json", pat_str=pat, mergeable_ranks=ranks, special_tokens=specials)
