"""Precompiled: SentencePiece's charsmap normalizer as `tokenizers` applies it.

`tokenizers` walks the text grapheme by grapheme (:mod:`tokenforge.normalizers.graphemes`): a
grapheme under 6 bytes found in the charsmap is replaced whole; otherwise each character found
is replaced.  A lookup returns the
replacement of the shortest key prefixing the looked-up text (the first match of the trie's
common-prefix search).  Alignment follows `tokenizers`: a longer replacement's last extra
characters are insertions (aligned with the replaced text), a shorter one's last character drops
the rest, and a character replaced by nothing is charged to the character before it (none at the
start of the text: the next character then takes its place, as in `tokenizers`).

Example:
    >>> Precompiled("").charsmap is None
    True
"""

from __future__ import annotations

import base64

from tokenforge.normalizers.graphemes import graphemes
from tokenforge.normalizers.normalized_string import NormalizedString
from tokenforge.sentencepiece.reference import _Charsmap


class _ShortestCharsmap(_Charsmap):
    def shortest(self, data: bytes) -> bytes | None:
        """The replacement of the shortest key prefixing `data`, or None."""
        units = self.units
        offset = lambda u: (u >> 10) << ((u & 0x200) >> 6)  # noqa: E731
        pos = offset(units[0])
        for c in data:
            pos ^= c
            if pos >= len(units) or (units[pos] & 0x800000FF) != c:
                return None
            leaf = units[pos] & 0x100
            pos ^= offset(units[pos])
            if leaf:
                value = units[pos] & 0x7FFFFFFF
                if value >= len(self.strings):
                    return None
                end = self.strings.find(b"\0", value)
                return self.strings[value:end if end >= 0 else None]
        return None


class Precompiled:
    """The charsmap normalizer stored base64 in tokenizer.json (module docstring)."""

    def __init__(self, precompiled_charsmap: str | bytes) -> None:
        """The charsmap as the file holds it (base64) or as its bytes (tokenizers' Python
        argument, e.g. a sentencepiece model's normalizer_spec.precompiled_charsmap)."""
        if isinstance(precompiled_charsmap, (bytes, bytearray, memoryview)):
            blob = bytes(precompiled_charsmap)
            if not blob:
                raise ValueError("Precompiled: empty precompiled_charsmap")
            precompiled_charsmap = base64.b64encode(blob).decode("ascii")
        self.precompiled_charsmap = precompiled_charsmap
        blob = base64.b64decode(precompiled_charsmap) if precompiled_charsmap else b""
        try:
            self.charsmap = _ShortestCharsmap(blob) if blob else None
        except Exception as e:  # struct.error on a truncated blob
            raise ValueError(f"Precompiled: invalid precompiled_charsmap ({e})") from None
        self._cache: dict[str, str | None] = {}

    def _lookup(self, s: str) -> str | None:
        r = self._cache.get(s, 0)
        if r == 0:
            out = self.charsmap.shortest(s.encode("utf-8"))
            r = out.decode("utf-8", "replace") if out is not None else None
            self._cache[s] = r
        return r

    def normalize(self, ns: NormalizedString) -> None:
        if self.charsmap is None or not ns.text:
            return
        changes: list[tuple[str, int]] = []
        changed = False

        def emit(old: str, new: str) -> None:
            delta = len(new) - len(old)
            changes.extend((c, 0) for c in new)
            if delta > 0:  # the last `delta` new characters are insertions
                changes[len(changes) - delta:] = [(c, 1) for c, _ in changes[len(changes) - delta:]]
            elif delta < 0 and changes:  # the last character (maybe an earlier one) drops the rest
                c, k = changes[-1]
                changes[-1] = (c, k + delta)

        for g in graphemes(ns.text):
            if len(g.encode("utf-8")) < 6:
                new = self._lookup(g)
                if new is not None:
                    emit(g, new)
                    changed = True
                    continue
            for c in g:
                new = self._lookup(c)
                if new is not None:
                    emit(c, new)
                    changed = True
                else:
                    changes.append((c, 0))
        if changed:
            ns.transform(changes)

    def to_dict(self) -> dict:
        return {"type": "Precompiled", "precompiled_charsmap": self.precompiled_charsmap}
