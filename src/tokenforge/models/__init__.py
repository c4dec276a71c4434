"""Models of a `tokenizer.json` pipeline: BPE, WordPiece, WordLevel, Unigram.

Each is built from plain Python values (a vocab dict, merges, scores), so other formats (GGUF)
can build them too, and has `word_tokens(word) -> [(id, token, (start, end))]` with character
offsets in the word (the pipeline's), `tokenize(sequence)` with tokenizers' Token objects and
byte offsets (models/token.py), `token_to_id`, `id_to_token`, a `vocab` dict and `to_dict()`.

Example:
    >>> m = from_dict({"type": "WordLevel", "vocab": {"hi": 0, "[UNK]": 1}, "unk_token": "[UNK]"})
    >>> m.tokenize("hi")
    [Token(id=0, value='hi', offsets=(0, 2))]
"""

from __future__ import annotations

from tokenforge import _native
from tokenforge.models.bpe import BPE
from tokenforge.models.unigram import Unigram
from tokenforge.models.wordpiece import WordLevel, WordPiece


def _vocab(d: dict) -> dict[str, int]:
    v = d.get("vocab")
    if type(v) is dict and _native.valid_vocab(v):  # the common case, checked in C++
        return v
    if not isinstance(v, dict) or not all(isinstance(k, str) and isinstance(i, int) and not isinstance(i, bool)
                                          and i >= 0 for k, i in v.items()):
        raise ValueError(f"{d.get('type')} model: vocab must map tokens to non-negative integer ids")
    return v


def from_dict(d: dict):
    """The model described by a tokenizer.json `model` object.

    Raises:
        ValueError: an unknown type, a malformed vocab, merges naming absent tokens.
    """
    if not isinstance(d, dict):
        raise ValueError(f"model must be an object, got {type(d).__name__}")
    kind = d.get("type")
    if kind is None:  # old files leave the type out; tokenizers guesses from the fields
        kind = "BPE" if "merges" in d else "WordPiece" if "continuing_subword_prefix" in d else \
            "Unigram" if isinstance(d.get("vocab"), list) else "WordLevel"
    try:
        if kind == "BPE":
            merges = d.get("merges") or []
            if not isinstance(merges, list):
                raise ValueError("BPE model: merges must be a list")
            return BPE(_vocab(d), merges, unk_token=d.get("unk_token"),
                       continuing_subword_prefix=d.get("continuing_subword_prefix"),
                       end_of_word_suffix=d.get("end_of_word_suffix"), fuse_unk=bool(d.get("fuse_unk", False)),
                       byte_fallback=bool(d.get("byte_fallback", False)),
                       ignore_merges=bool(d.get("ignore_merges", False)), dropout=d.get("dropout"))
        if kind == "WordPiece":
            return WordPiece(_vocab(d), d.get("unk_token", "[UNK]"), d.get("continuing_subword_prefix", "##"),
                             d.get("max_input_chars_per_word", 100))
        if kind == "WordLevel":
            if "unk_token" not in d:  # tokenizers refuses the file too
                raise ValueError("WordLevel model: missing field unk_token")
            return WordLevel(_vocab(d), d["unk_token"])
        if kind == "Unigram":
            v = d.get("vocab")
            if not isinstance(v, list) or not all(isinstance(e, list) and len(e) == 2 for e in v):
                raise ValueError("Unigram model: vocab must be a list of [piece, score]")
            return Unigram(v, d.get("unk_id"), bool(d.get("byte_fallback", False)))
    except (KeyError, TypeError) as e:
        raise ValueError(f"{kind} model: missing or malformed field {e}") from None
    raise ValueError(f"unsupported model type {kind!r}")


__all__ = ["BPE", "Unigram", "WordLevel", "WordPiece", "from_dict"]
