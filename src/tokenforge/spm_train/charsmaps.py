"""sentencepiece's built-in normalization rules as precompiled charsmaps.

The files in ``charsmap_data/`` are the bytes sentencepiece stores in
``NormalizerSpec.precompiled_charsmap`` for each rule, xz-compressed; they were read from
models trained by sentencepiece itself (``scripts/gen_spm_charsmaps.py``).  Custom rules
(``normalization_rule_tsv``) are not compiled here.

Example:
    >>> len(load_charsmap("identity")), len(load_charsmap("nmt_nfkc")) > 100000
    (0, True)
"""

from __future__ import annotations

import functools
import lzma
from pathlib import Path

RULES = ("nmt_nfkc", "nfkc", "nmt_nfkc_cf", "nfkc_cf", "identity")
_FOLDER = Path(__file__).resolve().parent / "charsmap_data"


@functools.lru_cache(maxsize=None)
def load_charsmap(rule: str) -> bytes:
    """The precompiled charsmap of a built-in rule.

    Raises:
        ValueError: `rule` is not one of :data:`RULES`.
    """
    if rule not in RULES:
        raise ValueError(f"unknown normalization_rule_name {rule!r}: expected one of {', '.join(RULES)}")
    return lzma.decompress((_FOLDER / f"{rule}.bin.xz").read_bytes())
