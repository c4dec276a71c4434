"""A slow, plain-Python SentencePiece encoder and decoder: the oracle of the property tests.

It follows sentencepiece's own algorithms step by step, favouring the obvious over the
fast: the normalizer walks the Darts-clone trie of the precompiled charsmap byte by byte,
BPE keeps strings in a priority queue, Unigram fills a dictionary of best paths.  The C++
core must give the same ids; it is only allowed to be faster.

What it leaves out: sampling, n-best and offsets (the native core has them), WORD and
CHAR models.

Example:
    >>> from tokenforge.formats.sentencepiece_model import ModelProto, SentencePiece, PieceType, ModelType
    >>> m = ModelProto()
    >>> for text, score, t in [("<unk>", 0, PieceType.UNKNOWN), ("▁", -1, 1), ("a", -2, 1), ("b", -3, 1), ("▁a", -1.5, 1)]:
    ...     m.pieces.append(SentencePiece(piece=text, score=score, type=t))
    >>> m.trainer_spec.model_type = ModelType.BPE
    >>> ref = ReferenceProcessor(m)
    >>> ref.encode_as_pieces("a ab c")
    ['▁a', '▁a', 'b', '▁', 'c']
    >>> ref.decode(ref.encode("a ab c"))  # the unknown "c" decodes as " ⁇ "
    'a ab  ⁇ '
"""

from __future__ import annotations

import heapq
import struct

from tokenforge.formats.sentencepiece_model import ModelProto, ModelType, PieceType

__all__ = ["ReferenceProcessor", "f32"]

SPACE = "\u2581"  # ▁


def f32(x: float) -> float:
    """Rounds a Python float to float32, as sentencepiece's C++ stores scores.

    >>> f32(0.1)
    0.10000000149011612
    """
    return struct.unpack("<f", struct.pack("<f", x))[0]


def _char_len(first_byte: int) -> int:
    """UTF-8 length judged from the first byte alone (sentencepiece's OneCharLen)."""
    return (1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4)[first_byte >> 4]


def _utf8_or_replacement(data: bytes) -> bytes:
    """Valid UTF-8 characters kept, each malformed byte replaced by U+FFFD (sentencepiece's rule).

    >>> _utf8_or_replacement(b"a\\xe2\\x98b").decode()
    'a\\ufffd\\ufffdb'
    """
    out, pos = bytearray(), 0
    while pos < len(data):
        n = min(_char_len(data[pos]), len(data) - pos)
        try:
            data[pos:pos + n].decode("utf-8")
            out += data[pos:pos + n]
            pos += n
        except UnicodeDecodeError:
            out += "\ufffd".encode()
            pos += 1
    return bytes(out)


class _Charsmap:
    """The precompiled charsmap: a Darts-clone double array and NUL-terminated replacements."""

    def __init__(self, blob: bytes) -> None:
        (size,) = struct.unpack_from("<I", blob, 0)
        self.units = struct.unpack_from(f"<{size // 4}I", blob, 4)
        self.strings = blob[4 + size:]

    def longest(self, data: bytes) -> tuple[int, bytes]:
        """(length of the longest of the first 32 keys prefixing data, its replacement), or (0, b"")."""
        units, best, matches = self.units, (0, b""), 0
        offset = lambda u: (u >> 10) << ((u & 0x200) >> 6)  # noqa: E731
        pos = offset(units[0])
        for i, c in enumerate(data):
            pos ^= c
            if pos >= len(units) or (units[pos] & 0x800000FF) != c:
                break
            leaf = units[pos] & 0x100
            pos ^= offset(units[pos])
            if leaf:
                value = units[pos] & 0x7FFFFFFF
                end = self.strings.find(b"\0", value)
                best = (i + 1, self.strings[value:end if end >= 0 else None]) if value < len(self.strings) else (0, b"")
                matches += 1
                if matches == 32:
                    break
        return best


class ReferenceProcessor:
    """Encodes and decodes one :class:`ModelProto` as sentencepiece does, slowly."""

    def __init__(self, model: ModelProto) -> None:
        self.model = model
        self.pieces = [p.piece for p in model.pieces]
        self.types = [p.type for p in model.pieces]
        self.scores = [f32(p.score) for p in model.pieces]
        matchable = (PieceType.NORMAL, PieceType.USER_DEFINED, PieceType.UNUSED)
        self.matchable = {p: i for i, p in enumerate(self.pieces) if self.types[i] in matchable}
        self.reserved = {p: i for i, p in enumerate(self.pieces) if self.types[i] not in matchable}
        self.unk = self.types.index(PieceType.UNKNOWN) if PieceType.UNKNOWN in self.types else -1
        self.max_len = max((len(p.encode()) for p in self.matchable), default=1)
        self.user = sorted((p.encode() for i, p in enumerate(self.pieces) if self.types[i] == PieceType.USER_DEFINED),
                           key=len, reverse=True)
        normal = [self.scores[i] for i, t in enumerate(self.types) if t == PieceType.NORMAL]
        self.min_score = min(normal, default=0.0)
        ns = model.normalizer_spec
        self.charsmap = _Charsmap(ns.precompiled_charsmap) if ns.precompiled_charsmap else None
        self.spec = ns
        self.bpe = model.trainer_spec.model_type == ModelType.BPE

    def piece_to_id(self, piece: str) -> int:
        """Reserved pieces first, then the others, else the unknown id."""
        return self.reserved.get(piece, self.matchable.get(piece, self.unk))

    def _user_prefix(self, data: bytes) -> int:
        return next((len(u) for u in self.user if data.startswith(u)), 0)

    # ---- normalization ----

    def _prefix(self, data: bytes) -> tuple[bytes, int]:
        """One normalization step: (replacement, input bytes consumed)."""
        n = self._user_prefix(data)
        if n:
            return data[:n], n
        if self.charsmap is not None:
            n, rep = self.charsmap.longest(data)
            if n:
                return rep, n
        n = min(_char_len(data[0]), len(data))
        try:
            data[:n].decode("utf-8")
        except UnicodeDecodeError:
            return "\ufffd".encode(), 1
        return data[:n], n

    def normalize(self, text: str) -> str:
        """The normalized text, with spaces as ▁ and the dummy prefix."""
        data, spec = text.encode("utf-8"), self.spec
        out = bytearray()
        pos = 0
        if spec.remove_extra_whitespaces:
            while pos < len(data) and self._prefix(data[pos:])[0] == b" ":
                pos += self._prefix(data[pos:])[1]
        if pos == len(data):
            return ""
        space = SPACE.encode() if spec.escape_whitespaces else b" "
        if spec.add_dummy_prefix:
            out += space
        prev_space = spec.remove_extra_whitespaces
        while pos < len(data):
            rep, used = self._prefix(data[pos:])
            if prev_space:
                rep = rep.lstrip(b" ")
            if rep:
                out += rep.replace(b" ", space)
                prev_space = rep.endswith(b" ")
            if not spec.remove_extra_whitespaces:
                prev_space = False
            pos += used
        if spec.remove_extra_whitespaces:
            while out.endswith(space):
                del out[-len(space):]
        return out.decode("utf-8")

    # ---- models ----

    def _bpe(self, norm: str) -> list[tuple[str, int]]:
        data = norm.encode("utf-8")
        symbols, frozen, pos = [], [], 0  # symbols as byte strings
        while pos < len(data):
            n = self._user_prefix(data[pos:])
            frozen.append(n > 0)
            n = n or min(_char_len(data[pos]), len(data) - pos)
            symbols.append(data[pos:pos + n])
            pos += n
        agenda: list = []  # (-score, left index, right index, merged bytes)
        rev_merge: dict[bytes, tuple[bytes, bytes]] = {}

        def nxt(i: int) -> int:
            j = i + 1
            while j < len(symbols) and not symbols[j]:
                j += 1
            return j

        def add(left: int, right: int) -> None:
            if left < 0 or right >= len(symbols) or frozen[left] or frozen[right]:
                return
            merged = symbols[left] + symbols[right]
            i = self.matchable.get(merged.decode("utf-8", "replace"))
            if i is None or merged.decode("utf-8", "replace").encode() != merged:
                return
            heapq.heappush(agenda, (-self.scores[i], left, right, merged))
            if self.types[i] == PieceType.UNUSED:
                rev_merge[merged] = (symbols[left], symbols[right])

        for i in range(1, len(symbols)):
            add(i - 1, i)
        while agenda:
            _, left, right, merged = heapq.heappop(agenda)
            if symbols[left] + symbols[right] != merged or nxt(left) != right:
                continue  # stale: one side has changed since the pair was queued
            symbols[left], symbols[right] = merged, b""
            prev = left - 1
            while prev >= 0 and not symbols[prev]:
                prev -= 1
            add(prev, left)
            add(left, nxt(left))

        out: list[tuple[str, int]] = []

        def emit(w: bytes, depth: int = 0) -> None:
            # sentencepiece 0.2.3: text that is no mergeable piece is <unk>; an UNUSED piece
            # splits into the pair it was last formed from, or is <unk> if never formed.
            i = self.matchable.get(w.decode("utf-8"), self.unk)
            if i >= 0 and self.types[i] == PieceType.UNUSED and depth <= 100:
                if w not in rev_merge:
                    i = self.unk
                else:
                    for part in rev_merge[w]:
                        emit(part, depth + 1)
                    return
            out.append((w.decode("utf-8"), i))

        for s in symbols:
            if s:
                emit(s)
        return out

    def _unigram(self, norm: str) -> list[tuple[str, int]]:
        data = norm.encode("utf-8")
        n = len(data)
        unk_score = f32(self.min_score - 10.0)
        best: dict[int, tuple[float, int, int]] = {}  # end -> (score, start, id)
        start = 0
        frontier = 0  # the furthest end reached so far
        while start < n:
            here = best[start][0] if start else 0.0
            if abs(here) > 100000.0:
                # sentencepiece 0.2.3 rebases the reached scores to keep the sums small.
                for i in range(start, frontier + 1):
                    if i in best:
                        best[i] = (f32(best[i][0] - here),) + best[i][1:]
                here = 0.0
            char = min(_char_len(data[start]), n - start)
            single = False
            for end in range(start + 1, min(n, start + self.max_len) + 1):
                piece = data[start:end]
                i = self.matchable.get(piece.decode("utf-8", "replace"))
                if i is None or piece.decode("utf-8", "replace").encode() != piece or self.types[i] == PieceType.UNUSED:
                    continue
                score = f32(0.1 * (end - start - 1)) if self.types[i] == PieceType.USER_DEFINED else self.scores[i]
                cand = f32(score + here)  # float32 sums, as sentencepiece
                frontier = max(frontier, end)
                if end not in best or cand > best[end][0]:
                    best[end] = (cand, start, i)
                single = single or end - start == char
            if not single:
                frontier = max(frontier, start + char)
                cand = f32(unk_score + here)
                if start + char not in best or cand > best[start + char][0]:
                    best[start + char] = (cand, start, self.unk)
            start += char
        out, end = [], n
        while end > 0:
            _, start, i = best[end]
            out.append((data[start:end].decode("utf-8"), i))
            end = start
        return out[::-1]

    # ---- the pipeline ----

    def encode_pairs(self, text: str) -> list[tuple[str, int]]:
        """(piece, id) pairs after unknown runs are merged or split into bytes."""
        norm = self.normalize(text)
        tokens = self._bpe(norm) if self.bpe else self._unigram(norm)
        out: list[tuple[str, int]] = []
        prev_unk = False
        byte_fallback = self.model.trainer_spec.byte_fallback
        for piece, i in tokens:
            is_unk = self.types[i] == PieceType.UNKNOWN
            if is_unk and byte_fallback:
                for b in piece.encode("utf-8"):
                    name = f"<0x{b:02X}>"
                    out.append((name, self.piece_to_id(name)))
            elif is_unk and prev_unk:
                out[-1] = (out[-1][0] + piece, i)
            else:
                out.append((piece, i))
            prev_unk = is_unk
        return out

    def encode(self, text: str) -> list[int]:
        """The ids of text."""
        return [i for _, i in self.encode_pairs(text)]

    def encode_as_pieces(self, text: str) -> list[str]:
        """The pieces of text (unknown text stays as it is)."""
        return [p for p, _ in self.encode_pairs(text)]

    def decode(self, ids: list[int]) -> str:
        """Ids back to text: ▁ to space, the first ▁ dropped, byte pieces joined as UTF-8."""
        out, pending = bytearray(), bytearray()
        is_bos_ws = True
        seen_ws = False
        strip = self.spec.add_dummy_prefix or self.spec.remove_extra_whitespaces
        unk_surface = self.model.trainer_spec.unk_surface.encode("utf-8")
        for i in ids:
            t, piece = self.types[i], self.pieces[i]
            if t == PieceType.BYTE:
                pending.append(int(piece[3:5], 16))
                continue
            out += _utf8_or_replacement(bytes(pending))
            pending.clear()
            if seen_ws or out:
                is_bos_ws = False
            seen_ws = False
            if t == PieceType.CONTROL:
                continue
            if t == PieceType.UNKNOWN:
                out += unk_surface
                continue
            if is_bos_ws and strip and piece.startswith(SPACE):
                piece = piece[1:]
                seen_ws = not self.spec.remove_extra_whitespaces
            out += piece.replace(SPACE, " ").encode("utf-8")
        out += _utf8_or_replacement(bytes(pending))
        return out.decode("utf-8")
