"""What llama.cpp's SentencePiece tokenizers (``llama``, ``t5``) make of a ``tokenizer.json``
pipeline: the normalizer and pre-tokenizer as llama.cpp's whitespace flags, the
post-processor as its BOS/EOS flags.

llama.cpp's ``llama`` and ``t5`` tokenizers know a fixed pipeline: an optional precompiled
charsmap (``t5`` only), ``remove_extra_whitespaces`` (``t5`` only), a space prefix
(``add_space_prefix``), spaces as ``▁``.  A ``tokenizer.json`` spells the same steps in HF's
components; :func:`space_rules` reads them back:

| tokenizer.json step                                  | llama.cpp                      |
|------------------------------------------------------|--------------------------------|
| ``Precompiled`` (first)                              | ``precompiled_charsmap`` (t5)  |
| ``Replace`` `` {2,}`` -> `` `` [+ edge spaces -> ""] | ``remove_extra_whitespaces`` (t5) |
| ``Prepend("▁")`` or ``Metaspace`` always / first     | ``add_space_prefix``           |
| ``Replace(" " -> "▁")`` or ``Metaspace``             | (always done)                  |

Where the two conventions part (chosen so that ordinary text encodes the same; the tests
compare under the matching convention):

- ``Metaspace`` prepends no ``▁`` to text that already starts with a space; llama.cpp adds
  its prefix to every fragment (`` a`` -> ``▁▁a``).  ``prepend_scheme: first`` prefixes
  only the start of the text; llama.cpp also prefixes text after a special token.
- ``remove_extra_whitespaces`` also drops spaces at both ends of the text; a file that only
  collapses runs (ruT5's) keeps a trailing space as ``▁``.
- ``Metaspace`` with ``split`` encodes each ``▁word`` alone; llama.cpp encodes the whole
  fragment.  The same when no token holds a ``▁`` past its first character (checked by the
  caller, :mod:`.convert_spm_json`).

Anything else (another normalizer or pre-tokenizer, a charsmap or whitespace collapsing in
a BPE model, spaces kept as spaces) is a ``ValueError`` naming the step.

Example:
    >>> norm = {"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": "▁"},
    ...         {"type": "Replace", "pattern": {"String": " "}, "content": "▁"}]}
    >>> r = space_rules({"normalizer": norm, "pre_tokenizer": None}, "llama")
    >>> r.add_space_prefix, r.remove_extra_whitespaces, r.charsmap
    (True, False, None)
"""

from __future__ import annotations

import base64
import binascii
import dataclasses

SPACE = "\u2581"
# The regexes of HF's and tokenforge's SentencePiece converters for remove_extra_whitespaces.
_RUNS = " {2,}"
_EDGES = r"(?<![\s\S]) | (?![\s\S])"


@dataclasses.dataclass
class SpaceRules:
    """llama.cpp's whitespace settings for a pipeline (module docstring).

    Attributes:
        add_space_prefix: a ``▁`` in front of each text fragment.
        remove_extra_whitespaces: runs of spaces become one (llama.cpp also strips the ends).
        strips_ends: the file itself drops spaces at the ends (else only the runs go).
        charsmap: the ``Precompiled`` normalizer's charsmap, or None.
        split_words: a ``Metaspace`` that encodes each ``▁word`` alone.
        metaspace_scheme: the ``Metaspace`` prepend scheme, or None.
    """

    add_space_prefix: bool = False
    remove_extra_whitespaces: bool = False
    strips_ends: bool = False
    charsmap: bytes | None = None
    split_words: bool = False
    metaspace_scheme: str | None = None


def _steps(node: dict | None, key: str) -> list[dict]:
    """The steps of a normalizer / pre-tokenizer, nested Sequences flattened."""
    if node is None:
        return []
    if not isinstance(node, dict):
        raise ValueError(f"a {key} that is not a JSON object: {node!r}")
    if node.get("type") == "Sequence":
        return [s for child in node.get(key + "s") or [] for s in _steps(child, key)]
    return [node]


def _pattern(step: dict) -> tuple[str | None, str | None]:
    pattern = step.get("pattern") or {}
    return pattern.get("String"), pattern.get("Regex")


def space_rules(j: dict, model: str) -> SpaceRules:
    """Reads the normalizer and pre-tokenizer of `j` as llama.cpp's `model` (``llama``/``t5``).

    Raises:
        ValueError: a step llama.cpp's `model` tokenizer would not apply, or spaces that
            never become ``▁``.
    """
    rules, escaped = SpaceRules(), False
    for k, step in enumerate(_steps(j.get("normalizer"), "normalizer")):
        kind = step.get("type")
        string, regex = _pattern(step) if kind == "Replace" else (None, None)
        if kind == "Precompiled" and k == 0:
            try:
                rules.charsmap = base64.b64decode(step.get("precompiled_charsmap") or "", validate=True) or None
            except (binascii.Error, ValueError, TypeError) as e:
                raise ValueError(f"the Precompiled normalizer's charsmap is not base64 ({e})") from None
        elif kind == "Replace" and string == " " and step.get("content") == SPACE:
            escaped = True
        elif kind == "Replace" and regex == _RUNS and step.get("content") == " " and not escaped:
            rules.remove_extra_whitespaces = True
        elif kind == "Replace" and regex == _EDGES and step.get("content") == "" and not escaped:
            rules.strips_ends = True
        elif kind == "Prepend" and step.get("prepend") == SPACE:
            rules.add_space_prefix = True
        else:
            raise ValueError(f"normalizer step {_describe(step)}: llama.cpp's {model!r} tokenizer has no such step "
                             "(it knows a precompiled charsmap, collapsed spaces, a space prefix and spaces as ▁)")
    for step in _steps(j.get("pre_tokenizer"), "pretokenizer"):
        if step.get("type") != "Metaspace" or step.get("replacement", SPACE) != SPACE:
            raise ValueError(f"pre-tokenizer {_describe(step)}: llama.cpp's {model!r} tokenizer has no such step "
                             "(only a Metaspace with ▁)")
        scheme = step.get("prepend_scheme") or ("always" if step.get("add_prefix_space", True) else "never")
        rules.metaspace_scheme = scheme
        rules.add_space_prefix = rules.add_space_prefix or scheme in ("always", "first")
        rules.split_words = bool(step.get("split", True))
        escaped = True
    if not escaped:
        raise ValueError("spaces stay spaces in this pipeline (no Replace(' ' -> '▁') or Metaspace): llama.cpp's "
                         f"{model!r} tokenizer always writes them as ▁")
    if model == "llama":
        lost = [what for what, on in (("a Precompiled charsmap", rules.charsmap is not None),
                                      ("collapsed spaces", rules.remove_extra_whitespaces or rules.strips_ends)) if on]
        if lost:
            raise ValueError(f"llama.cpp's SentencePiece BPE ('llama') tokenizer would ignore this pipeline's "
                             f"{' and '.join(lost)}: it would not encode as the file does")
    elif rules.strips_ends and not rules.remove_extra_whitespaces:
        raise ValueError("spaces stripped at the ends but runs of spaces kept: llama.cpp's remove_extra_whitespaces "
                         "does both or neither")
    return rules


def _describe(step: dict) -> str:
    text = repr({k: v for k, v in step.items() if k != "precompiled_charsmap"})
    return text if len(text) <= 120 else text[:117] + "..."


def template_specials(post: dict | None, ids: dict[str, int]) -> tuple[int | None, int | None]:
    """The ids a ``TemplateProcessing`` puts before and after a single sequence
    (``<s> $A`` -> (id of ``<s>``, None)); (None, None) for no post-processor.

    Args:
        post: the ``post_processor`` of the file.
        ids: token -> id (vocabulary and added tokens).

    Raises:
        ValueError: a post-processor llama.cpp's BOS/EOS flags cannot say.

    >>> template_specials({"type": "TemplateProcessing", "single": [{"Sequence": {"id": "A"}},
    ...                    {"SpecialToken": {"id": "</s>"}}]}, {"</s>": 2})
    (None, 2)
    """
    if post is None:
        return None, None
    steps = post.get("processors", []) if post.get("type") == "Sequence" else [post]
    steps = [s for s in steps if s.get("type") != "ByteLevel"]
    if not steps:
        return None, None
    single = steps[0].get("single") if len(steps) == 1 and steps[0].get("type") == "TemplateProcessing" else None
    names = [p.get("SpecialToken", {}).get("id") if "SpecialToken" in p else None for p in single or []]
    seq = [k for k, p in enumerate(single or []) if "Sequence" in p]
    if single is None or len(seq) != 1 or seq[0] > 1 or len(single) - seq[0] > 2 or \
            any(n is not None and n not in ids for n in names):
        raise ValueError(f"post-processor {_describe(post)}: llama.cpp adds at most a BOS before and an EOS after "
                         "the text")
    before = ids[names[0]] if seq[0] == 1 else None
    after = ids[names[-1]] if len(single) - seq[0] == 2 else None
    return before, after
