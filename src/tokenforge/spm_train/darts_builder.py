"""Builds a Darts-clone double-array trie, laid out unit for unit as darts-clone 0.32 lays it out.

sentencepiece stores its normalization rules as such a trie (the source strings, each
mapped to the offset of its replacement); :mod:`tokenforge.spm_train.charsmap_compiler`
builds the whole charsmap around it.  The layout follows darts-clone's builder, so the
bytes match the ones sentencepiece writes for the same keys:

1. The keys (sorted, unique, no NUL byte) become a trie in which every key ends with a
   NUL-labelled leaf holding its value; equal sibling lists (same labels, same children,
   same values) are merged, which turns the trie into a DAWG.  A list reached from two
   parents or more is an *intersection*.
2. The DAWG is placed depth first, children in label order: a node's children go at
   ``offset ^ label`` for the first offset, searched along a circular free list of the
   last 16 blocks of 256 units, at which every child's unit is free and the offset is
   itself unused.  An intersection placed once is pointed to again when the relative
   offset fits the unit's encoding.
3. Units still free when their block leaves the 16-block window (or at the end) get a
   label that never matches: ``id ^ (first unused offset of the block)``.

A unit is ``has_leaf`` (bit 8) | label (bits 0-7) | offset (bits 10-31, shifted by 8
more when bit 9 is set), or ``value | 1 << 31`` on a leaf.  What this leaves out:
reading (``tf::DartsView`` in C++, ``_Charsmap`` in the reference) and keys with NUL.

Example:
    >>> units = build_double_array([b"a", b"ab"], [7, 9])
    >>> len(units) % 256, units[units[0] >> 10 ^ ord("a")] & 0xFF
    (0, 97)
"""

from __future__ import annotations

from collections.abc import Sequence

BLOCK_SIZE = 256
NUM_EXTRA_BLOCKS = 16
NUM_EXTRAS = BLOCK_SIZE * NUM_EXTRA_BLOCKS
UPPER_MASK = 0xFF << 21
LOWER_MASK = 0xFF


class _Dawg:
    """The keys' trie with equal sibling lists merged; a list is a tuple of (label, child list, value)."""

    def __init__(self, keys: Sequence[bytes], values: Sequence[int]) -> None:
        self.lists: list[tuple[tuple[int, int, int], ...]] = []
        self.parents: list[int] = []
        self._ids: dict[tuple[tuple[int, int, int], ...], int] = {}
        self.keys, self.values = keys, values
        self.root = self._build(0, len(keys), 0)

    def _build(self, lo: int, hi: int, depth: int) -> int:
        keys = self.keys
        children: list[tuple[int, int, int]] = []
        i = lo
        if len(keys[i]) == depth:
            children.append((0, -1, self.values[i]))
            i += 1
        while i < hi:
            label, j = keys[i][depth], i + 1
            while j < hi and keys[j][depth] == label:
                j += 1
            children.append((label, self._build(i, j, depth + 1), 0))
            i = j
        sig = tuple(children)
        node = self._ids.get(sig)
        if node is None:
            node = self._ids[sig] = len(self.lists)
            self.lists.append(sig)
            self.parents.append(0)
        self.parents[node] += 1
        return node


class _Builder:
    """darts-clone's placement of a DAWG into units (module docstring, steps 2 and 3)."""

    def __init__(self, dawg: _Dawg) -> None:
        self.dawg = dawg
        self.units: list[int] = []
        self.prev = [0] * NUM_EXTRAS
        self.next = [0] * NUM_EXTRAS
        self.fixed = [False] * NUM_EXTRAS
        self.used = [False] * NUM_EXTRAS
        self.head = 0
        self.placed: dict[int, int] = {}  # intersection list -> its absolute offset

    def run(self) -> list[int]:
        self._reserve(0)
        self.used[0] = True
        self._set_offset(0, 1)
        self._place(self.dawg.root, 0)
        blocks = len(self.units) // BLOCK_SIZE
        for block in range(max(0, blocks - NUM_EXTRA_BLOCKS), blocks):
            self._fix_block(block)
        return self.units

    def _set_offset(self, unit: int, offset: int) -> None:
        if offset >= 1 << 29:
            raise ValueError("the normalization rules are too large for a double array")
        u = self.units[unit] & ((1 << 31) | (1 << 8) | 0xFF)
        self.units[unit] = u | (offset << 10 if offset < 1 << 21 else (offset << 2) | (1 << 9))

    def _place(self, node: int, unit: int) -> None:
        children = self.dawg.lists[node]
        shared = self.dawg.parents[node] > 1
        if shared and node in self.placed:
            rel = self.placed[node] ^ unit
            if not rel & UPPER_MASK or not rel & LOWER_MASK:
                if children[0][0] == 0:
                    self.units[unit] |= 1 << 8
                self._set_offset(unit, rel)
                return
        offset = self._arrange(children, unit)
        if shared:
            self.placed[node] = offset
        for label, child, _ in children:
            if label:
                self._place(child, offset ^ label)

    def _arrange(self, children: tuple[tuple[int, int, int], ...], unit: int) -> int:
        labels = [label for label, _, _ in children]
        offset = self._find_offset(unit, labels)
        self._set_offset(unit, unit ^ offset)
        for label, _, value in children:
            child = offset ^ label
            self._reserve(child)
            if label == 0:
                self.units[unit] |= 1 << 8
                self.units[child] = value | (1 << 31)
            else:
                self.units[child] = (self.units[child] & ~0xFF) | label
        self.used[offset % NUM_EXTRAS] = True
        return offset

    def _find_offset(self, unit: int, labels: list[int]) -> int:
        size = len(self.units)
        if self.head < size:
            free = self.head
            while True:
                offset = free ^ labels[0]
                if self._valid(unit, offset, labels):
                    return offset
                free = self.next[free % NUM_EXTRAS]
                if free == self.head:
                    break
        return size | (unit & LOWER_MASK)

    def _valid(self, unit: int, offset: int, labels: list[int]) -> bool:
        if self.used[offset % NUM_EXTRAS]:
            return False
        rel = unit ^ offset
        if rel & LOWER_MASK and rel & UPPER_MASK:
            return False
        return not any(self.fixed[(offset ^ label) % NUM_EXTRAS] for label in labels[1:])

    def _reserve(self, unit: int) -> None:
        if unit >= len(self.units):
            self._expand()
        nxt, prv = self.next, self.prev
        slot = unit % NUM_EXTRAS
        if unit == self.head:
            self.head = nxt[slot]
            if self.head == unit:
                self.head = len(self.units)
        nxt[prv[slot] % NUM_EXTRAS] = nxt[slot]
        prv[nxt[slot] % NUM_EXTRAS] = prv[slot]
        self.fixed[slot] = True

    def _expand(self) -> None:
        src = len(self.units)
        dest = src + BLOCK_SIZE
        blocks = src // BLOCK_SIZE + 1
        if blocks > NUM_EXTRA_BLOCKS:
            self._fix_block(blocks - 1 - NUM_EXTRA_BLOCKS)
        self.units.extend([0] * BLOCK_SIZE)
        nxt, prv, n = self.next, self.prev, NUM_EXTRAS
        if blocks > NUM_EXTRA_BLOCKS:
            for u in range(src, dest):
                self.used[u % n] = self.fixed[u % n] = False
        for u in range(src + 1, dest):
            nxt[(u - 1) % n] = u
            prv[u % n] = u - 1
        prv[src % n] = dest - 1
        nxt[(dest - 1) % n] = src
        # Splice the new block in before the head.
        head = self.head
        prv[src % n] = prv[head % n]
        nxt[(dest - 1) % n] = head
        nxt[prv[head % n] % n] = src
        prv[head % n] = dest - 1

    def _fix_block(self, block: int) -> None:
        begin, end = block * BLOCK_SIZE, (block + 1) * BLOCK_SIZE
        unused = next((u for u in range(begin, end) if not self.used[u % NUM_EXTRAS]), 0)
        for u in range(begin, end):
            if not self.fixed[u % NUM_EXTRAS]:
                self._reserve(u)
                self.units[u] = (self.units[u] & ~0xFF) | ((u ^ unused) & 0xFF)


def build_double_array(keys: Sequence[bytes], values: Sequence[int]) -> list[int]:
    """The units of the double array mapping each key to its value.

    Args:
        keys: distinct non-empty byte strings without NUL, sorted.
        values: one value in [0, 2**31) per key.

    Raises:
        ValueError: the keys are empty, unsorted, repeated or hold NUL, or a value is out of range.

    >>> units = build_double_array([b"x"], [5])
    >>> node = units[0] >> 10 ^ ord("x")  # the root's child labelled "x", which has a leaf
    >>> units[node] & 0xFF, units[node] >> 8 & 1, units[units[node] >> 10 ^ node] & 0x7FFFFFFF
    (120, 1, 5)
    """
    if not keys or len(keys) != len(values):
        raise ValueError("build_double_array needs one value per key and at least one key")
    for i, key in enumerate(keys):
        if not key or 0 in key:
            raise ValueError(f"key {key!r} is empty or holds a NUL byte")
        if i and keys[i - 1] >= key:
            raise ValueError(f"keys must be sorted and distinct: {keys[i - 1]!r} before {key!r}")
        if not 0 <= values[i] < 1 << 31:
            raise ValueError(f"value {values[i]} of key {key!r} is out of range")
    return _Builder(_Dawg(keys, values)).run()
