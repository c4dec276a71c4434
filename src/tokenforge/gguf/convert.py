"""GGUF tokenizer metadata from the models tokenforge loads: tiktoken-style encodings and
SentencePiece ``.model`` files.

- A byte-level :class:`tokenforge.Encoding` (tiktoken ranks, a trained BPE) becomes
  ``model = "gpt2"``: each rank's bytes in GPT-2's byte-to-character alphabet, special
  tokens as CONTROL, ids no token holds as ``[PAD<id>]`` UNUSED (as llama.cpp's converter
  does), and the merges recovered from the ranks, in rank order.  ``pre`` is the llama.cpp
  name that splits exactly like the encoding's pattern (``gpt-2``, ``llama-bpe``, ``gpt-4o``,
  ...); a pattern no llama.cpp pre-tokenizer matches exactly needs ``pre=`` given
  explicitly.  cl100k's pattern as tiktoken now spells it (``\\s++$|\\s*[\\r\\n]``, BpeTrainer's
  default too) is none: ``llama-bpe`` has its older spelling (``\\s*[\\r\\n]+``, the one cl100k
  was trained with and GPT-3.5's ``tokenizer.json`` holds), which cuts whitespace after a
  final newline apart (``"a\\n "`` -> ``a``, ``\\n``, `` `` where tiktoken keeps ``\\n `` whole).
  The two give the same ids whenever no token can join the cut -- no token ends with a newline
  and then whitespace other than CR/LF (:func:`joins_final_whitespace`): then ``llama-bpe`` is
  chosen.  cl100k_base's own ranks are such a vocabulary; a BPE trained with the pattern may
  not be, and is refused.
- A SentencePiece BPE model becomes ``model = "llama"``, a Unigram one ``"t5"`` (with its
  precompiled charsmap).  llama.cpp's ``llama`` tokenizer does no normalization beyond
  spaces, so a BPE model with a normalizer, ``remove_extra_whitespaces`` or whitespace as
  suffix would encode differently and is refused with a ``ValueError``.

BOS/EOS flags are written explicitly: off for byte-level encodings (tiktoken adds none),
llama.cpp's defaults for ``llama`` (BOS) and ``t5`` (EOS).

- A byte-level BPE ``tokenizer.json`` becomes ``gpt2`` with the ``pre`` whose regexes are
  the file's ``Split`` patterns (its vocabulary, merges and added tokens; no pipeline runs).
  :func:`vocab_from_json` picks the converter for any ``tokenizer.json``: this one, a
  SentencePiece-style BPE or Unigram (:mod:`.convert_spm_json`) or WordPiece
  (:mod:`.convert_bert`).

What this module leaves out: the SentencePiece-style and WordPiece converters themselves.

Example:
    >>> import tokenforge
    >>> ranks = {bytes([b]): b for b in range(256)} | {b" a": 256}
    >>> enc = tokenforge.Encoding("t", pat_str=tokenforge.patterns.GPT2, mergeable_ranks=ranks,
    ...                           special_tokens={"<|endoftext|>": 258})
    >>> v = vocab_from_encoding(enc)
    >>> v.pre, v.tokens[256:], v.merges, v.special_ids
    ('gpt-2', ['Ġa', '[PAD257]', '<|endoftext|>'], ['Ġ a'], {'bos': 258, 'eos': 258})
"""

from __future__ import annotations

import os

from tokenforge import patterns
from tokenforge.core import Encoding
from tokenforge.formats.merges import every_merge, merges_from_ranks
from tokenforge.gguf.pretokenizers import PRE_NAMES, PRE_TYPES, pre_tokenizer
from tokenforge.gguf.vocab import GGUFVocab, TokenType
from tokenforge.gguf.bytelevel import BYTE_TO_CHAR
from tokenforge.sentencepiece import ModelProto, ModelType, PieceType

# Native scanner -> the llama.cpp pre whose regex tokenforge runs on that scanner.
_PRE_FOR_SCANNER = {patterns.Scanner.GPT2: "gpt-2", patterns.Scanner.LLAMA3: "llama-bpe",
                    patterns.Scanner.O200K: "gpt-4o"}
_BOS_NAMES = ("<|begin_of_text|>", "<|startoftext|>", "<|endoftext|>")
_EOS_NAMES = ("<|end_of_text|>", "<|endoftext|>")


def pre_for_pattern(pat_str: str | tuple[str, ...] | list[str]) -> str:
    """The llama.cpp ``tokenizer.ggml.pre`` name that splits exactly like `pat_str`.

    Args:
        pat_str: a split pattern, or a sequence of regexes applied one after the other
            (Hugging Face ``Split(..., "Isolated")`` pre-tokenizers in a ``Sequence``).

    Raises:
        ValueError: no llama.cpp pre-tokenizer splits like it.

    >>> pre_for_pattern(patterns.O200K), pre_for_pattern([r"\\p{N}", PRE_TYPES["gpt2"].regexes[0]])
    ('gpt-4o', 'starcoder')
    """
    regexes = tuple(_spelled((pat_str,) if isinstance(pat_str, str) else pat_str))
    scanner = patterns.scanner_for(regexes[0]) if len(regexes) == 1 else None
    if scanner in _PRE_FOR_SCANNER:
        return _PRE_FOR_SCANNER[scanner]
    for name, (type_, _flags) in PRE_NAMES.items():
        p = PRE_TYPES[type_]
        if p.supported and regexes in (tuple(_spelled(p.regexes)), tuple(_spelled(p.llama_cpp_regexes))):
            return name
    raise ValueError(f"no llama.cpp pre-tokenizer splits exactly like the pattern {regexes[0][:60]!r}...;"
                     " pass pre= (tokenforge convert: --pre) to choose one")


def _merge_pairs(ranks: dict[bytes, int], pre: str) -> list[tuple[bytes, bytes]]:
    """The merges of a rank table: each token from two lower-ranked ones (a BPE vocabulary);
    else, under a pre with ``ignore_merges`` (Llama 3's ranks have tokens whose parts rank
    higher), every pair that makes a token, as tiktoken joins any such pair."""
    try:
        return merges_from_ranks(ranks)
    except ValueError:
        if pre not in PRE_NAMES or not pre_tokenizer(pre).ignore_merges:
            raise
    return every_merge(ranks)


def joins_final_whitespace(raw: bytes) -> bool:
    """Whether a token could span the cut llama-bpe makes and cl100k does not: after its last
    CR or LF, the token holds only (the start of) whitespace other than CR/LF, at least a byte.

    >>> joins_final_whitespace(b"\\n  "), joins_final_whitespace(b"\\n  \\n"), joins_final_whitespace(b" x")
    (True, False, False)
    """
    cut = max(raw.rfind(b"\n"), raw.rfind(b"\r"))
    if cut < 0 or cut == len(raw) - 1:
        return False
    rest = raw[cut + 1:]
    while rest:
        whole = next((w for w in _OTHER_WHITESPACE if rest.startswith(w)), None)
        if whole is None:
            return any(w.startswith(rest) for w in _OTHER_WHITESPACE)
        rest = rest[len(whole):]
    return True


# UTF-8 of each character cl100k's \s matches (Unicode White_Space) other than CR and LF.
_OTHER_WHITESPACE = tuple(chr(c).encode("utf-8") for c in (*range(0x09, 0x0A), 0x0B, 0x0C, 0x20, 0x85, 0xA0, 0x1680,
                                                           *range(0x2000, 0x200B), 0x2028, 0x2029, 0x202F, 0x205F,
                                                           0x3000))


def _spelled(regexes) -> list[str]:
    """Regexes with literal CR/LF written as escapes (JSON files often hold them raw)."""
    return [r.replace("\r", "\\r").replace("\n", "\\n") for r in regexes]


def vocab_from_encoding(enc: Encoding, *, pre: str | None = None, name: str | None = None) -> GGUFVocab:
    """The GGUF description of a byte-level BPE encoding.

    Args:
        enc: a :class:`tokenforge.Encoding` (e.g. ``get_encoding("r50k_base")`` or a trained one).
        pre: the ``tokenizer.ggml.pre`` to write; by default the one matching the pattern.
        name: ``general.name`` (default: the encoding's name).

    Raises:
        ValueError: no exact ``pre`` for the pattern, or ranks that are not a BPE vocabulary.
    """
    ranks, specials = enc._mergeable_ranks, enc._special_tokens
    if pre is None and patterns.scanner_for(enc._pat_str) == patterns.Scanner.CL100K:
        bad = next((raw for raw in ranks if joins_final_whitespace(raw)), None)
        if bad is None:
            pre = "llama-bpe"  # splits differently, but only where no token can tell
        else:
            raise ValueError(f"no llama.cpp pre-tokenizer splits exactly like cl100k's pattern, and the token {bad!r}"
                             " makes the difference matter (llama-bpe cuts whitespace after a final newline apart):"
                             " pass pre= (tokenforge convert: --pre)")
    pre = pre if pre is not None else pre_for_pattern(enc._pat_str)
    n = max(max(ranks.values(), default=-1), max(specials.values(), default=-1)) + 1
    b2c = BYTE_TO_CHAR
    tokens: list[str | None] = [None] * n
    types = [int(TokenType.NORMAL)] * n
    for raw, r in ranks.items():
        tokens[r] = "".join(b2c[b] for b in raw)
    for text, i in specials.items():
        tokens[i] = text
        types[i] = int(TokenType.CONTROL)
    for i, t in enumerate(tokens):
        if t is None:
            tokens[i] = f"[PAD{i}]"
            types[i] = int(TokenType.UNUSED)
    merges = ["".join(b2c[b] for b in left) + " " + "".join(b2c[b] for b in right)
              for left, right in _merge_pairs(ranks, pre)]
    special_ids = {}
    for short, names in (("bos", _BOS_NAMES), ("eos", _EOS_NAMES)):
        found = next((specials[s] for s in names if s in specials), None)
        if found is not None:
            special_ids[short] = found
    return GGUFVocab(model="gpt2", pre=pre, tokens=tokens, token_types=types, merges=merges, special_ids=special_ids,
                     add_bos=False, add_eos=False, architecture="gpt2", name=name or enc.name)


def vocab_from_sentencepiece(model: ModelProto | str | os.PathLike[str], *, name: str | None = None) -> GGUFVocab:
    """The GGUF description of a SentencePiece model (BPE -> ``llama``, Unigram -> ``t5``).

    Args:
        model: a :class:`ModelProto` or the path of a ``.model`` file.
        name: ``general.name``.

    Raises:
        OSError: the file cannot be read.
        ValueError: the file is not a model, its type is WORD/CHAR, or a BPE model whose
            normalizer llama.cpp would not apply (see the module docstring).
    """
    m = model if isinstance(model, ModelProto) else ModelProto.load(os.fspath(model))
    ts, ns = m.trainer_spec, m.normalizer_spec
    if ts.model_type == ModelType.BPE:
        lost = [what for what, on in (
            (f"normalizer {ns.name!r}", bool(ns.precompiled_charsmap)),
            ("remove_extra_whitespaces", ns.remove_extra_whitespaces),
            ("escape_whitespaces off", not ns.escape_whitespaces),
            ("treat_whitespace_as_suffix", ts.treat_whitespace_as_suffix)) if on]
        if lost:
            raise ValueError(f"llama.cpp's SentencePiece BPE ('llama') tokenizer would ignore this model's "
                             f"{', '.join(lost)}: it would not encode as the model does")
        kind = "llama"
    elif ts.model_type == ModelType.UNIGRAM:
        if not ns.escape_whitespaces or ts.treat_whitespace_as_suffix:
            raise ValueError("llama.cpp's Unigram ('t5') tokenizer supports neither escape_whitespaces off nor "
                             "treat_whitespace_as_suffix")
        kind = "t5"
    else:
        raise ValueError(f"llama.cpp has no tokenizer for SentencePiece model type {ModelType(ts.model_type).name}")
    pieces = m.pieces
    # As sentencepiece finds them: the UNKNOWN piece, and the CONTROL pieces the trainer spec
    # names (its *_id fields are not always kept up to date, e.g. ruT5's).
    special_ids = {}
    index = {p.piece: i for i, p in enumerate(pieces)}
    for i, p in enumerate(pieces):
        if p.type == PieceType.UNKNOWN:
            special_ids["unk"] = i
            break
    for short in ("bos", "eos", "pad"):
        i = index.get(getattr(ts, f"{short}_piece"))
        if i is not None and pieces[i].type == PieceType.CONTROL and getattr(ts, f"{short}_id") >= 0:
            special_ids[short] = i
    vocab = GGUFVocab(model=kind, tokens=[p.piece for p in pieces], scores=[float(p.score) for p in pieces],
                      token_types=[int(p.type) for p in pieces], special_ids=special_ids,
                      add_bos=kind == "llama" and "bos" in special_ids, add_eos=kind == "t5" and "eos" in special_ids,
                      add_space_prefix=bool(ns.add_dummy_prefix), architecture="llama" if kind == "llama" else "t5",
                      name=name)
    if kind == "llama":
        vocab.pre = "default"
    else:
        vocab.remove_extra_whitespaces = bool(ns.remove_extra_whitespaces)
        vocab.precompiled_charsmap = bytes(ns.precompiled_charsmap) or None
    return vocab


def vocab_from_tokenizer_json(path: str | os.PathLike[str] | dict, *, pre: str | None = None,
                              name: str | None = None) -> GGUFVocab:
    """The GGUF description of a byte-level BPE ``tokenizer.json`` (Hugging Face), laid out as
    llama.cpp's converter does: the vocabulary by id, added tokens as CONTROL (special) or
    USER_DEFINED, unused ids as ``[PAD<id>]``, the merges in order.

    Args:
        path: the ``tokenizer.json``, or its parsed JSON (what a tokenizer object serializes to).
        pre: the ``tokenizer.ggml.pre`` to write; by default the llama.cpp name whose regexes
            are the file's ``Split`` patterns (or GPT-2's, for a ``ByteLevel`` pre-tokenizer
            with its own regex).
        name: ``general.name``.

    Raises:
        OSError: the file cannot be read.
        ValueError: not JSON, not a BPE model, a normalizer other than NFC (llama.cpp's gpt2
            tokenizer has none; NFC is dropped as llama.cpp drops Qwen's), or no exact ``pre``
            (then pass one).
    """
    import json

    where = "tokenizer.json" if isinstance(path, dict) else os.fspath(path)
    try:
        j = path if isinstance(path, dict) else json.loads(open(path, encoding="utf-8").read())
        model, added_tokens = j["model"], j.get("added_tokens") or []
        if model.get("type") != "BPE":
            raise ValueError(f"{where}: a {model.get('type')!r} model, not byte-level BPE")
        vocab = dict(model["vocab"])
        merges = [m if isinstance(m, str) else " ".join(m) for m in model["merges"]]
        added = {a["content"]: (a["id"], a.get("special", False)) for a in added_tokens}
    except (json.JSONDecodeError, KeyError, TypeError, AttributeError) as e:
        raise ValueError(f"{where}: not a tokenizer.json ({type(e).__name__}: {e})") from None
    _check_normalizer(j.get("normalizer"), where)
    if pre is None:
        pre = pre_for_pattern(_split_regexes(j.get("pre_tokenizer")))
    n = max(list(vocab.values()) + [i for i, _ in added.values()]) + 1
    tokens, types = [f"[PAD{i}]" for i in range(n)], [int(TokenType.UNUSED)] * n
    for text, i in vocab.items():
        tokens[i], types[i] = text, int(TokenType.NORMAL)
    for text, (i, special) in added.items():
        tokens[i], types[i] = text, int(TokenType.CONTROL if special else TokenType.USER_DEFINED)
    return GGUFVocab(model="gpt2", pre=pre, tokens=tokens, token_types=types, merges=merges,
                     architecture="gpt2", name=name)


def _check_normalizer(normalizer: dict | None, where: str) -> None:
    """llama.cpp's gpt2 tokenizer normalizes nothing.  NFC passes, as llama.cpp's own converter
    drops Qwen's (NFC text encodes the same); any other normalizer is refused, never dropped."""
    steps = [] if normalizer is None else (
        normalizer.get("normalizers", []) if normalizer.get("type") == "Sequence" else [normalizer])
    for step in steps:
        if step.get("type") != "NFC":
            raise ValueError(f"{where}: normalizer {step.get('type')!r} has no llama.cpp gpt2 equivalent "
                             "(its byte-level tokenizer normalizes nothing)")


def _split_regexes(pre_tokenizer: dict | None) -> list[str]:
    """The regexes of a tokenizer.json pre-tokenizer made of Isolated Splits and ByteLevel."""
    steps = [] if pre_tokenizer is None else (
        pre_tokenizer.get("pretokenizers", []) if pre_tokenizer.get("type") == "Sequence" else [pre_tokenizer])
    regexes = []
    for step in steps:
        if step.get("type") == "Split" and step.get("behavior") == "Isolated" and not step.get("invert"):
            regexes.append(step["pattern"].get("Regex") or regex_escape(step["pattern"].get("String", "")))
        elif step.get("type") == "Split" and _keeps_every_match(step):
            regexes.append(step["pattern"]["Regex"])
        elif step.get("type") == "ByteLevel":
            if step.get("use_regex", True):
                regexes.append(patterns.GPT2)
        else:
            raise ValueError(f"pre-tokenizer step {step.get('type')!r} has no llama.cpp equivalent: pass pre= (tokenforge convert: --pre)")
    if not regexes:
        raise ValueError("the tokenizer.json has no split regex: pass pre= (tokenforge convert: --pre)")
    return regexes


def _keeps_every_match(step: dict) -> bool:
    """A ``Removed`` Split with ``invert`` keeps the regex's matches as pieces and drops the
    text between them: the same pieces as ``Isolated`` when the regex matches at every
    position, as the tiktoken-style patterns tokenforge scans natively do (each ends in a
    whitespace catch-all and holds one for every other character).  GPT-3.5's
    ``tokenizer.json`` is written this way."""
    regex = step.get("pattern", {}).get("Regex")
    return (step.get("behavior") == "Removed" and bool(step.get("invert")) and regex is not None
            and patterns.scanner_for(_spelled([regex])[0]) is not None)


def regex_escape(text: str) -> str:
    import regex

    return regex.escape(text)


def vocab_from_json(path: str | os.PathLike[str] | dict, *, pre: str | None = None,
                    name: str | None = None) -> GGUFVocab:
    """The GGUF description of any ``tokenizer.json`` llama.cpp has a tokenizer for:
    WordPiece -> ``bert``, a SentencePiece-style BPE -> ``llama`` and Unigram -> ``t5``
    (spaces as ``▁``), another BPE -> ``gpt2`` (byte-level).

    Args:
        path: the ``tokenizer.json``, or its parsed JSON.
        pre: for a byte-level BPE, the ``tokenizer.ggml.pre`` to write (see
            :func:`vocab_from_tokenizer_json`); the other models take none.
        name: ``general.name``.

    Raises:
        OSError: the file cannot be read.
        ValueError: not JSON, a model llama.cpp has no tokenizer for, or a pipeline it would
            run differently (the message says what).

    >>> j = {"model": {"type": "Unigram", "unk_id": 0, "vocab": [["<unk>", 0.0], ["\u2581a", -1.0]]},
    ...      "pre_tokenizer": {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always"}}
    >>> v = vocab_from_json(j)
    >>> v.model, v.tokens, v.add_space_prefix
    ('t5', ['<unk>', '▁a'], True)
    """
    import json

    from tokenforge.gguf.convert_bert import vocab_from_wordpiece
    from tokenforge.gguf.convert_spm_json import is_spm_style, vocab_from_spm_json

    where = "tokenizer.json" if isinstance(path, dict) else os.fspath(path)
    if isinstance(path, dict):
        j = path
    else:
        with open(path, encoding="utf-8") as f:
            try:
                j = json.load(f)
            except json.JSONDecodeError as e:
                raise ValueError(f"{where}: not JSON ({e})") from None
    model_type = (j.get("model") or {}).get("type") if isinstance(j, dict) else None
    if model_type == "WordPiece":
        return vocab_from_wordpiece(j, name=name)
    if model_type in ("BPE", "Unigram") and is_spm_style(j):
        if pre not in (None, "default"):
            raise ValueError(f"{where}: pre={pre!r} is for byte-level BPE; a SentencePiece-style file takes none")
        return vocab_from_spm_json(j, name=name)
    if model_type == "BPE":
        return vocab_from_tokenizer_json(j, pre=pre, name=name)
    raise ValueError(f"{where}: a {model_type!r} tokenizer.json has no llama.cpp equivalent tokenforge writes "
                     "(byte-level BPE -> gpt2, SentencePiece-style BPE -> llama, Unigram -> t5, WordPiece -> bert)")
