"""`tokenforge.gguf.spm_json_pipeline`: tokenizer.json steps -> llama.cpp's whitespace and
BOS/EOS flags, on hand-written pipelines (the expected flags worked out from the table in
the module docstring)."""

from __future__ import annotations

import pytest

from tokenforge.gguf.spm_json_pipeline import space_rules, template_specials

ESCAPE = {"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"}
PREPEND = {"type": "Prepend", "prepend": "\u2581"}
RUNS = {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "}
EDGES = {"type": "Replace", "pattern": {"Regex": r"(?<![\s\S]) | (?![\s\S])"}, "content": ""}
CHARSMAP = {"type": "Precompiled", "precompiled_charsmap": "AAEC"}


def _j(normalizers, pre=None):
    return {"normalizer": {"type": "Sequence", "normalizers": normalizers}, "pre_tokenizer": pre}


@pytest.mark.parametrize("j, model, expected", [
    (_j([PREPEND, ESCAPE]), "llama", (True, False, False, None, False)),
    (_j([ESCAPE]), "llama", (False, False, False, None, False)),
    (_j([CHARSMAP, RUNS, EDGES, PREPEND, ESCAPE]), "t5", (True, True, True, b"\x00\x01\x02", False)),
    (_j([CHARSMAP, RUNS], {"type": "Metaspace", "replacement": "\u2581", "add_prefix_space": True}), "t5",
     (True, True, False, b"\x00\x01\x02", True)),
    (_j([], {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "never", "split": False}), "llama",
     (False, False, False, None, False)),
])
def test_space_rules(j, model, expected):
    r = space_rules(j, model)
    assert (r.add_space_prefix, r.remove_extra_whitespaces, r.strips_ends, r.charsmap, r.split_words) == expected


@pytest.mark.parametrize("j, model, message", [
    (_j([CHARSMAP, ESCAPE]), "llama", "would ignore this pipeline's a Precompiled charsmap"),
    (_j([RUNS, ESCAPE]), "llama", "would ignore this pipeline's collapsed spaces"),
    (_j([EDGES, ESCAPE]), "t5", "runs of spaces kept"),
    (_j([ESCAPE, CHARSMAP]), "t5", "has no such step"),
    (_j([PREPEND]), "t5", "spaces stay spaces"),
    (_j([ESCAPE], {"type": "Whitespace"}), "llama", "pre-tokenizer .*Whitespace"),
])
def test_space_rules_refuse(j, model, message):
    with pytest.raises(ValueError, match=message):
        space_rules(j, model)


def test_template_specials():
    ids = {"<s>": 1, "</s>": 2}
    tp = lambda *single: {"type": "TemplateProcessing", "single": list(single)}  # noqa: E731
    s, a, e = {"SpecialToken": {"id": "<s>"}}, {"Sequence": {"id": "A"}}, {"SpecialToken": {"id": "</s>"}}
    assert template_specials(None, ids) == (None, None)
    assert template_specials(tp(s, a), ids) == (1, None)
    assert template_specials(tp(s, a, e), ids) == (1, 2)
    assert template_specials({"type": "Sequence", "processors": [{"type": "ByteLevel"}, tp(a, e)]}, ids) == (None, 2)
    for bad in (tp(s, s, a), tp(a, e, e), tp({"SpecialToken": {"id": "<x>"}}, a)):
        with pytest.raises(ValueError, match="at most a BOS before and an EOS after"):
            template_specials(bad, ids)


def test_byte_level_json_with_a_normalizer_is_refused_not_dropped():
    """llama.cpp's gpt2 tokenizer normalizes nothing: NFKC (Claude's file) is refused; NFC is
    dropped as llama.cpp's own converter drops Qwen's."""
    import pytest

    from tokenforge.gguf.convert import vocab_from_json

    j = {"model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": ["a b"]},
         "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "use_regex": True}}
    for norm in ({"type": "NFKC"}, {"type": "Sequence", "normalizers": [{"type": "NFC"}, {"type": "Lowercase"}]}):
        with pytest.raises(ValueError, match="normalizer"):
            vocab_from_json(dict(j, normalizer=norm))
    assert vocab_from_json(dict(j, normalizer={"type": "NFC"})).model == "gpt2"
