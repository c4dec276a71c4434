"""Helpers of the table generators (gen_*_tables.py): a two-stage lookup table and C arrays.

A table over every code point is cut into blocks of `block` values; stage 1 holds, for each
block, the number of a distinct block, and stage 2 the distinct blocks one after another, so
value(cp) = stage2[(stage1[cp >> shift] << shift) | (cp & (block - 1))].

Example:
    >>> two_stage([0, 0, 1, 0], 2)
    ([0, 1], [0, 0, 1, 0])
    >>> c_array("uint8_t", "kX", [1, 2, 3], 2)
    ['static const uint8_t kX[3] = {', '  1,2,', '  3,', '};']
"""

from __future__ import annotations


def two_stage(values, block: int) -> tuple[list[int], list[int]]:
    """(stage 1, stage 2) of a sequence of ints whose length is a multiple of `block`."""
    blocks: dict[tuple[int, ...], int] = {}
    stage1 = []
    for start in range(0, len(values), block):
        stage1.append(blocks.setdefault(tuple(values[start:start + block]), len(blocks)))
    stage2 = [v for b in sorted(blocks, key=blocks.get) for v in b]
    return stage1, stage2


def c_array(ctype: str, name: str, values, per_line: int) -> list[str]:
    """The lines of a C array definition `static const ctype name[n] = {...};`."""
    values = list(values)
    lines = [f"static const {ctype} {name}[{len(values)}] = {{"]
    for i in range(0, len(values), per_line):
        lines.append("  " + ",".join(str(v) for v in values[i:i + per_line]) + ",")
    lines.append("};")
    return lines
