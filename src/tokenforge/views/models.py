"""`load_model(spec)`: any tokenizer tokenforge loads, behind one small interface for the views.

A spec is a tiktoken encoding name (``cl100k_base``), a ``.tiktoken`` rank file (named after
an encoding, it gets that encoding's pattern and specials; else cl100k's pattern), a ``.model``
file (SentencePiece's protobuf or minbpe's text ``minbpe v1``), an HF ``tokenizer.json``
(a byte-level BPE one as an Encoding, with its merge tree; any other through
:class:`tokenforge.Tokenizer`), or a ``.gguf`` (llama.cpp's tokenizer, no BOS/EOS, special
tokens as text).  The views need ids, the bytes of each token, and for
byte-level BPE the two parents each token was merged from.

It leaves out encoding itself (the loaded object does it).

Example:
    >>> m = load_model("nosuch")
    Traceback (most recent call last):
    ...
    ValueError: cannot load model 'nosuch': no such file, and not an encoding name (cl100k_base, gpt2, o200k_base, o200k_harmony, p50k_base, p50k_edit, r50k_base)
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
from collections.abc import Callable

from tokenforge.core import Encoding


@dataclasses.dataclass
class Model:
    """A loaded tokenizer as the views see it."""

    name: str
    kind: str  # "tiktoken", "minbpe", "sentencepiece", "tokenizer.json" or "gguf"
    encode: Callable[[str], list[int]]  # text -> ids (special tokens as ordinary text)
    decode: Callable[[list[int]], str]
    token_bytes: Callable[[int], bytes]  # the bytes a token stands for (SentencePiece: "▁" as " ")
    vocab_size: int
    specials: dict[str, int]
    split: str  # the split pattern, or a description of the normalizer
    encoding: Encoding | None = None  # byte-level BPE models: the Encoding (ranks = ids)

    @functools.cached_property
    def parents(self) -> dict[int, tuple[int, int]]:
        """token id -> the ids of the two tokens it was merged from (byte-level BPE only)."""
        if self.encoding is None:
            return {}
        from tokenforge.formats.merges import split_in_two

        ranks = self.encoding._mergeable_ranks
        out = {}
        for token, rank in ranks.items():
            parts = split_in_two(token, ranks, rank) if len(token) > 1 else []
            if len(parts) == 2:  # (a token that is no merge, as some files have, gets no parents)
                out[rank] = (ranks[parts[0]], ranks[parts[1]])
        return out

    def ids(self) -> list[int]:
        """Every id of the vocabulary, special tokens excluded."""
        if self.encoding is not None:
            return sorted(self.encoding._mergeable_ranks.values())
        special = set(self.specials.values())
        return [i for i in range(self.vocab_size) if i not in special]


def _from_encoding(enc: Encoding, kind: str, name: str) -> Model:
    return Model(
        name=name,
        kind=kind,
        encode=enc.encode_ordinary,
        decode=enc.decode,
        token_bytes=enc.decode_single_token_bytes,
        vocab_size=enc.n_vocab,
        specials=dict(enc._special_tokens),
        split=enc._pat_str,
        encoding=enc,
    )


def _tiktoken_file(path: str) -> Model:
    """A rank file holds no pattern or special tokens: a file named after a known encoding
    (r50k_base.tiktoken, ...) gets that encoding's, any other cl100k's pattern and none."""
    from tokenforge import load_tiktoken_bpe, patterns, registry

    base = os.path.basename(path)
    ranks = load_tiktoken_bpe(path)
    known = registry._ENCODINGS.get(base[: -len(".tiktoken")])  # (rank file, pattern, specials, n_vocab)
    if known:
        enc = Encoding(base, pat_str=known[1], mergeable_ranks=ranks, special_tokens=dict(known[2]))
    else:
        enc = Encoding(base, pat_str=patterns.CL100K, mergeable_ranks=ranks, special_tokens={})
    return _from_encoding(enc, "tiktoken", base)


def _sentencepiece(path: str) -> Model:
    from tokenforge import SentencePieceProcessor

    sp = SentencePieceProcessor(model_file=path)

    def token_bytes(i: int) -> bytes:
        piece = sp.id_to_piece(i)
        if sp.is_byte(i):
            return bytes([int(piece[3:5], 16)])
        return piece.replace("\u2581", " ").encode("utf-8")

    n = sp.get_piece_size()
    specials = {sp.id_to_piece(i): i for i in range(n) if sp.is_control(i) or sp.is_unknown(i)}
    from tokenforge.formats.sentencepiece_model import ModelProto, ModelType

    proto = ModelProto.from_bytes(sp.serialized_model_proto())
    norm, spec = proto.normalizer_spec, proto.trainer_spec
    split = (f"{ModelType(spec.model_type).name} model; normalizer {norm.name or 'custom'}, "
             f"dummy prefix {norm.add_dummy_prefix}, remove extra whitespace {norm.remove_extra_whitespaces}, "
             f"byte fallback {spec.byte_fallback}")
    return Model(os.path.basename(path), "sentencepiece", lambda t: sp.encode(t), lambda ids: sp.decode(ids),
                 token_bytes, n, specials, split)


def _gguf(path: str) -> Model:
    """A GGUF's tokenizer as llama.cpp runs it (no BOS/EOS, special tokens as text)."""
    from tokenforge.gguf import load
    from tokenforge.gguf.bytelevel import token_bytes as byte_level_bytes
    from tokenforge.gguf.vocab import TokenType

    tok = load(path)
    v = tok.vocab

    def token_bytes(i: int) -> bytes:
        text = v.tokens[i]
        if i in specials:
            return text.encode("utf-8")
        if v.model == "gpt2":
            return byte_level_bytes(text) or b""
        if v.token_types is not None and v.token_type(i) == TokenType.BYTE:
            return bytes([int(text[3:5], 16)])
        return text.replace("\u2581", " ").encode("utf-8")

    specials = {v.tokens[i]: i for i in tok._specials}
    split = f"llama.cpp {v.model} tokenizer, pre {v.pre!r}" if v.model == "gpt2" else f"llama.cpp {v.model} tokenizer"
    return Model(os.path.basename(path), "gguf", lambda t: tok.encode(t, add_special=False), tok.decode,
                 token_bytes, v.n_tokens, {t: i for t, i in specials.items()}, split)


def _hf_json(path: str) -> Model:
    from tokenforge import patterns
    from tokenforge.formats.byte_map import CHAR_TO_BYTE as to_byte

    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    model, pre = data.get("model") or {}, data.get("pre_tokenizer") or {}
    steps = pre.get("pretokenizers", [pre]) if pre.get("type") == "Sequence" else [pre]
    if model.get("type") != "BPE" or data.get("normalizer") or not any(s.get("type") == "ByteLevel" for s in steps):
        return _hf_tokenizer(path, data)
    pattern = patterns.GPT2
    for s in steps:
        if s.get("type") == "Split" and "Regex" in (s.get("pattern") or {}):
            pattern = s["pattern"]["Regex"]
    specials = {t["content"]: t["id"] for t in data.get("added_tokens", [])}
    added = set(specials.values())
    try:
        ranks = {bytes(to_byte[c] for c in tok): i for tok, i in model["vocab"].items() if i not in added}
    except KeyError:
        raise ValueError(f"{path}: a token is not in GPT-2's byte alphabet (not byte-level BPE)") from None
    enc = Encoding(os.path.basename(path), pat_str=pattern, mergeable_ranks=ranks, special_tokens=specials)
    return _from_encoding(enc, "tokenizer.json", os.path.basename(path))


def _hf_tokenizer(path: str, data: dict) -> Model:
    """Any other tokenizer.json, through tokenforge.Tokenizer (WordPiece, Unigram, SentencePiece-
    style BPE, normalizers); a token's bytes are its text, with "▁" as a space, "##" dropped
    and "<0xNN>" as the byte."""
    from tokenforge.tokenizer import Tokenizer

    tok = Tokenizer.from_file(path)

    def token_bytes(i: int) -> bytes:
        t = tok.id_to_token(i) or ""
        if len(t) == 6 and t.startswith("<0x") and t.endswith(">"):
            return bytes([int(t[3:5], 16)])
        return t.removeprefix("##").replace("\u2581", " ").encode("utf-8")

    specials = {t.content: i for i, t in tok.get_added_tokens_decoder().items() if t.special}
    kinds = [f"{(data.get('model') or {}).get('type')} model"]
    for part in ("normalizer", "pre_tokenizer"):
        kinds.append(f"{part} {(data.get(part) or {}).get('type')}")
    return Model(os.path.basename(path), "tokenizer.json", lambda t: tok.encode(t, add_special_tokens=False).ids,
                 lambda ids: tok.decode(ids, skip_special_tokens=False), token_bytes, tok.get_vocab_size(), specials,
                 "; ".join(kinds))


def load_model(spec: str) -> Model:
    """Loads a model from a name or a file; see the module docstring for what is accepted.

    Raises:
        ValueError: the spec is neither a file nor a known name, or the file is of a kind
            not supported; the message says what was tried.
        OSError: the file cannot be read.
    """
    import tokenforge

    if os.path.isfile(spec):
        base = os.path.basename(spec)
        if spec.endswith(".tiktoken"):
            return _tiktoken_file(spec)
        if spec.endswith(".json"):
            return _hf_json(spec)
        if spec.endswith(".model"):
            with open(spec, "rb") as f:
                head = f.read(9)
            if head == b"minbpe v1":
                from tokenforge.formats import minbpe

                return _from_encoding(minbpe.load(spec), "minbpe", base)
            return _sentencepiece(spec)
        if spec.endswith(".gguf"):
            return _gguf(spec)
        raise ValueError(f"cannot tell the kind of {spec!r}: use .tiktoken, .model (SentencePiece or minbpe), "
                         "tokenizer.json or .gguf")
    names = sorted(tokenforge.list_encoding_names())
    if spec in names:
        return _from_encoding(tokenforge.get_encoding(spec), "tiktoken", spec)
    raise ValueError(f"cannot load model {spec!r}: no such file, and not an encoding name ({', '.join(names)})")
