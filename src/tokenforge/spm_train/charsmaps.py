"""sentencepiece's built-in normalization rules as precompiled charsmaps.

The files in ``charsmap_data/`` are the bytes sentencepiece stores in
``NormalizerSpec.precompiled_charsmap`` for each rule, xz-compressed; they were read from
models trained by sentencepiece itself (``scripts/gen_spm_charsmaps.py``).  Custom rules
(``normalization_rule_tsv``) are compiled by :mod:`tokenforge.spm_train.charsmap_compiler`;
:func:`fill_normalizer_spec` picks one or the other as sentencepiece's trainer does.

Example:
    >>> len(load_charsmap("identity")), len(load_charsmap("nmt_nfkc")) > 100000
    (0, True)
"""

from __future__ import annotations

import functools
import lzma
from pathlib import Path

from tokenforge.formats.sentencepiece_model import NormalizerSpec
from tokenforge.spm_train.charsmap_compiler import compile_charsmap, load_rules

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


def fill_normalizer_spec(spec: NormalizerSpec) -> NormalizerSpec:
    """Sets a spec's charsmap from its rule file or rule name, as sentencepiece's trainer does.

    With ``normalization_rule_tsv`` the rules are compiled and the name becomes
    ``user_defined``; otherwise a missing name is ``nmt_nfkc`` and a missing charsmap is
    the named rule's.

    Raises:
        ValueError: both a rule file and a charsmap, an unknown rule name or a bad rule line.
        OSError: the rule file cannot be read.

    >>> fill_normalizer_spec(NormalizerSpec(name="identity")).precompiled_charsmap
    b''
    """
    if spec.normalization_rule_tsv:
        if spec.precompiled_charsmap:
            raise ValueError("normalization_rule_tsv and a precompiled_charsmap are both given: give one")
        spec.precompiled_charsmap = compile_charsmap(load_rules(spec.normalization_rule_tsv))
        spec.name = "user_defined"
        return spec
    if not spec.name:
        spec.name = "nmt_nfkc"
    if not spec.precompiled_charsmap:
        spec.precompiled_charsmap = load_charsmap(spec.name)
    return spec


def denormalizer_spec(rule_tsv: str) -> NormalizerSpec:
    """The ``denormalizer_spec`` sentencepiece stores for ``denormalization_rule_tsv``: the
    compiled rules and no whitespace handling.

    Raises:
        ValueError, OSError: as :func:`fill_normalizer_spec`.
    """
    spec = NormalizerSpec(name="user_defined", precompiled_charsmap=compile_charsmap(load_rules(rule_tsv)))
    spec.add_dummy_prefix = spec.remove_extra_whitespaces = spec.escape_whitespaces = False
    spec.normalization_rule_tsv = rule_tsv
    return spec
