"""A GGUF tokenizer in the other formats: ``tokenizer.json`` (``gpt2``) and SentencePiece
``.model`` (``llama``, ``t5``), where that format can say everything llama.cpp does.

- ``gpt2`` -> a byte-level BPE ``tokenizer.json``: the tokens by id as the vocabulary, the
  merges, ``ignore_merges`` as the ``pre`` type has it, the pre's regexes as a sequence of
  ``Split(Isolated)`` steps and a ``ByteLevel`` without its own regex, CONTROL / USER_DEFINED
  / UNKNOWN tokens as added tokens (special or not), BOS/EOS as a ``TemplateProcessing``.
  HF `tokenizers` runs its own regex engine on the same patterns.
- ``llama`` / ``t5`` -> a ``ModelProto``: pieces, scores and types as they are; the space
  prefix as sentencepiece's ``add_dummy_prefix``; ``t5``'s charsmap and whitespace flags.
  (llama.cpp adds the space again after each special token in the text; sentencepiece, which
  cuts user-defined pieces out itself, does not: the same ids on text without them.)

Each refuses, with a ``ValueError`` naming what would be lost, what it cannot write: a ``pre``
llama.cpp splits with custom code, ``bert`` to ``tokenizer.json`` (HF's BERT pipeline strips
accents and splits marks unlike llama.cpp's WPM; see :mod:`.wordpiece`), other models.

Example:
    >>> from tokenforge.gguf.vocab import GGUFVocab
    >>> j = tokenizer_json_from_vocab(GGUFVocab(model="gpt2", pre="gpt-2", tokens=["a", "b", "ab"], merges=["a b"]))
    >>> j["model"]["vocab"], j["model"]["merges"], [s["type"] for s in j["pre_tokenizer"]["pretokenizers"]]
    ({'a': 0, 'b': 1, 'ab': 2}, ['a b'], ['Split', 'ByteLevel'])
"""

from __future__ import annotations

from tokenforge.gguf.engine import GGUFTokenizer
from tokenforge.gguf.vocab import GGUFVocab, TokenType
from tokenforge.sentencepiece import ModelProto


def tokenizer_json_from_vocab(vocab: GGUFVocab) -> dict:
    """The ``tokenizer.json`` (as a dict) of a ``gpt2`` GGUF vocabulary.

    Raises:
        ValueError: another model, or a ``pre`` that is not a sequence of regexes.
    """
    if vocab.model != "gpt2":
        why = {"bert": "llama.cpp's WPM lowercases and splits unlike HF's BERT pipeline on accents and marks, so a "
                       "tokenizer.json would encode some text differently",
               "llama": "write a SentencePiece .model instead", "t5": "write a SentencePiece .model instead"}
        raise ValueError(f"a {vocab.model!r} GGUF has no exact tokenizer.json form here: "
                         f"{why.get(vocab.model, 'tokenforge writes gpt2 (byte-level BPE) ones')}")
    from tokenforge.gguf.pretokenizers import pre_tokenizer
    from tokenforge.gguf.tokenizer_face import _template

    engine = GGUFTokenizer(vocab)  # checks the pre, merges and special ids
    pre = pre_tokenizer(vocab.pre)
    specials = set(engine._specials)
    ids: dict[str, int] = {}
    for i, t in enumerate(vocab.tokens):
        ids.setdefault(t, i)
    added = [{"id": i, "content": vocab.tokens[i], "single_word": False, "lstrip": False,
              "rstrip": i in engine._rstrip, "normalized": False,
              "special": vocab.token_type(i) != TokenType.USER_DEFINED} for i in sorted(specials)]
    steps = [{"type": "Split", "pattern": {"Regex": r}, "behavior": "Isolated", "invert": False} for r in pre.regexes]
    steps.append({"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False})
    return {
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": added, "normalizer": None,
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": steps},
        "post_processor": _template(engine),
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
                  "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False,
                  "ignore_merges": pre.ignore_merges, "vocab": ids, "merges": list(vocab.merges or [])},
    }


def model_proto_from_vocab(vocab: GGUFVocab) -> ModelProto:
    """The SentencePiece ``ModelProto`` of a ``llama`` (BPE) or ``t5`` (Unigram) GGUF vocabulary.

    Raises:
        ValueError: another model.
    """
    if vocab.model not in ("llama", "t5"):
        raise ValueError(f"a {vocab.model!r} GGUF is not a SentencePiece model (llama or t5): "
                         "write a tokenizer.json or .gguf instead")
    from tokenforge.gguf.spm import model_proto

    engine = GGUFTokenizer(vocab)
    m = model_proto(vocab.tokens, vocab.scores, vocab.token_types, vocab.model,
                    precompiled_charsmap=vocab.precompiled_charsmap, add_space_prefix=engine.add_space_prefix,
                    remove_extra_whitespaces=bool(vocab.remove_extra_whitespaces), special_ids=engine.special_ids)
    m.normalizer_spec.add_dummy_prefix = engine.add_space_prefix
    return m
