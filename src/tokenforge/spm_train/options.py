"""sentencepiece's training options: names, defaults, parsing and range checks.

Options arrive as keyword arguments (``vocab_size=8000``) or as spm_train's string form
(``"--vocab_size=8000 --model_type=bpe"``); both are turned into a
:class:`~tokenforge.formats.sentencepiece_model.TrainerSpec` and a
:class:`~tokenforge.formats.sentencepiece_model.NormalizerSpec` in which exactly the options
the caller gave are set, which is how sentencepiece 0.2.3 fills the specs it stores in the
model (the normalizer always names its rule and carries its charsmap).  Options that are
not fields of either spec (``minloglevel``, ``random_seed``, ...) are returned apart.

What this leaves out: reading input and training (see :mod:`tokenforge.spm_train.trainer`).

Example:
    >>> ts, ns, extra = parse_options("--vocab_size=500 --model_type=bpe", {"user_defined_symbols": ["<x>"]})
    >>> ts.vocab_size, ts.model_type, list(ts.user_defined_symbols), ns.name
    (500, 2, ['<x>'], 'nmt_nfkc')
"""

from __future__ import annotations

import shlex
from typing import Any

from tokenforge.formats.sentencepiece_model import ModelType, NormalizerSpec, TrainerSpec

# Options that are fields of NormalizerSpec, by their spm_train flag name.
NORMALIZER_OPTIONS = {
    "normalization_rule_name": "name",
    "normalization_rule_tsv": "normalization_rule_tsv",
    "add_dummy_prefix": "add_dummy_prefix",
    "remove_extra_whitespaces": "remove_extra_whitespaces",
    "escape_whitespaces": "escape_whitespaces",
}
# Options that are neither spec's fields, with their defaults.
EXTRA_OPTIONS: dict[str, Any] = {
    "minloglevel": 0,
    "random_seed": -1,
    "denormalization_rule_tsv": "",
    "show_progress": True,
}
MODEL_TYPES = {"unigram": ModelType.UNIGRAM, "bpe": ModelType.BPE, "word": ModelType.WORD, "char": ModelType.CHAR}
# sentencepiece's VerifySpec ranges (inclusive).
RANGES = {
    "character_coverage": (0.98, 1.0),
    "max_sentencepiece_length": (1, 512),
    "num_sub_iterations": (1, 10),
    "num_threads": (1, 1024),
    "seed_sentencepiece_size": (1000, 5000000),
    "shrinking_factor": (0.5, 0.95),
    "max_sentence_length": (1, 1 << 30),
    "vocab_size": (1, (1 << 31) - 1),
}
_TRAINER_FIELDS = {name: (kind, default, repeated) for name, kind, default, repeated in TrainerSpec.FIELDS.values()}
_NORMALIZER_FIELDS = {name: (kind, default, repeated) for name, kind, default, repeated in NormalizerSpec.FIELDS.values()}


def split_flags(text: str) -> dict[str, str]:
    """spm_train's ``--name=value`` string as a dict of strings (a bare ``--flag`` is "true").

    >>> split_flags("--input=a.txt --vocab_size=10 --byte_fallback")
    {'input': 'a.txt', 'vocab_size': '10', 'byte_fallback': 'true'}
    """
    out: dict[str, str] = {}
    for token in shlex.split(text):
        if not token.startswith("-"):
            raise ValueError(f"bad option {token!r}: expected --name=value")
        name, sep, value = token.lstrip("-").partition("=")
        out[name] = value if sep else "true"
    return out


def _convert(name: str, kind: str, repeated: bool, value: Any) -> Any:
    """One option value as the spec field's type; strings are parsed as spm_train does."""
    if repeated:
        if isinstance(value, str):
            return [v for v in value.split(",") if v] if value else []
        if isinstance(value, (list, tuple)):
            return [str(v) for v in value]
        raise ValueError(f"{name} must be a list of strings or a comma-separated string, not {value!r}")
    if name == "model_type":
        key = str(value).lower() if not isinstance(value, int) else {int(v): k for k, v in MODEL_TYPES.items()}.get(value)
        if key not in MODEL_TYPES:
            raise ValueError(f"unknown model_type {value!r}: expected one of {', '.join(MODEL_TYPES)}")
        return int(MODEL_TYPES[key])
    try:
        if kind == "bool":
            if isinstance(value, str):
                low = value.lower()
                if low not in ("true", "false", "1", "0"):
                    raise ValueError
                return low in ("true", "1")
            return bool(value)
        if kind in ("int32", "uint64", "enum"):
            if isinstance(value, bool) or (isinstance(value, float) and not value.is_integer()):
                raise ValueError
            return int(value)
        if kind == "float":
            return float(value)
        if kind in ("string", "bytes"):
            if not isinstance(value, (str, bytes)):
                raise ValueError
            return value
    except (TypeError, ValueError):
        raise ValueError(f"bad value {value!r} for option {name} ({kind})") from None
    raise ValueError(f"option {name} cannot be set")


def parse_options(flags: str | None, kwargs: dict[str, Any]) -> tuple[TrainerSpec, NormalizerSpec, dict[str, Any]]:
    """Builds the specs from a flag string and keyword options (keywords win).

    Args:
        flags: spm_train's string form, or None.
        kwargs: options by name; lists are accepted for repeated options.

    Returns:
        (trainer_spec, normalizer_spec, extra options with their defaults filled in).

    Raises:
        ValueError: an unknown option, a bad value or one out of sentencepiece's range.
    """
    given: dict[str, Any] = dict(split_flags(flags)) if flags else {}
    given.update(kwargs)
    ts, ns, extra = TrainerSpec(), NormalizerSpec(), dict(EXTRA_OPTIONS)
    for name, value in given.items():
        if name in NORMALIZER_OPTIONS:
            field = NORMALIZER_OPTIONS[name]
            kind, _, repeated = _NORMALIZER_FIELDS[field]
            setattr(ns, field, _convert(name, kind, repeated, value))
        elif name in _TRAINER_FIELDS:
            kind, _, repeated = _TRAINER_FIELDS[name]
            if name == "input" and isinstance(value, (str, bytes)) is False and hasattr(value, "__fspath__"):
                value = [value]
            if name == "input" and not isinstance(value, str):
                value = [str(v) for v in value]
            setattr(ts, name, _convert(name, kind, repeated, value))
        elif name in EXTRA_OPTIONS:
            extra[name] = _convert(name, "bool" if isinstance(EXTRA_OPTIONS[name], bool) else
                                   "int32" if isinstance(EXTRA_OPTIONS[name], int) else "string", False, value)
        else:
            raise ValueError(f"unknown option {name!r}")
    if not ns.has("name"):
        ns.name = "nmt_nfkc"
    for name, (low, high) in RANGES.items():
        value = getattr(ts, name)
        if not low <= value <= high:
            raise ValueError(f"{name}={value} is out of range [{low}, {high}]")
    if ts.input_sentence_size < 0:
        raise ValueError(f"input_sentence_size={ts.input_sentence_size} must be >= 0")
    return ts, ns, extra
