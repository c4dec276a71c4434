"""sentencepiece's shorthand methods, made from the general ones of `SentencePieceProcessor`.

``encode_as_ids(text)`` is ``encode(text, out_type=int)``, ``sample_encode_as_pieces(text,
nbest_size, alpha)`` is a sampled ``encode(..., out_type=str)``, ``nbest_encode_as_X``,
``sample_encode_and_score_as_X``, ``decode_ids_as_X`` and ``decode_pieces_as_X`` likewise,
for X in ids, pieces, proto, immutable_proto, serialized_proto (the ones sentencepiece 0.2.1
or 0.2.3 has); then every method's CamelCase name (``NBestEncodeAsIds``), as sentencepiece
adds them.  What it leaves out: the behaviour, which is the general methods'.
"""

from __future__ import annotations

from typing import Any

__all__ = ["add_aliases", "camel"]

_KINDS = {"ids": int, "pieces": str, "proto": "proto", "immutable_proto": "immutable_proto",
          "serialized_proto": "serialized_proto", "offset_mapping": "offset_mapping"}
_PROTOS = ("proto", "immutable_proto", "serialized_proto")
# stem -> (general method, fixed keywords, positional parameters after the input, kinds)
_FAMILIES = {
    "encode": ("encode", {}, (), ("ids", "pieces", *_PROTOS, "offset_mapping")),
    "sample_encode": ("encode", {"enable_sampling": True}, ("nbest_size", "alpha"), ("ids", "pieces", *_PROTOS)),
    "nbest_encode": ("nbest_encode", {}, ("nbest_size",), ("ids", "pieces", *_PROTOS)),
    "sample_encode_and_score": ("sample_encode_and_score", {}, ("num_samples", "alpha"),
                                ("ids", "pieces", "immutable_proto", "serialized_proto")),
    "decode_ids": ("decode", {}, (), _PROTOS),
    "decode_pieces": ("decode", {}, (), _PROTOS),
}


def camel(snake: str) -> str:
    """sentencepiece's CamelCase name of a method.

    >>> camel("nbest_encode_as_ids"), camel("id_to_piece")
    ('NBestEncodeAsIds', 'IdToPiece')
    """
    return "".join("NBest" if w == "nbest" else w.capitalize() for w in snake.split("_"))


def _alias(general: str, fixed: dict, params: tuple, out_type: Any) -> Any:
    def method(self: Any, input: Any, *args: Any, **kwargs: Any) -> Any:
        kwargs.update(zip(params, args))
        return getattr(self, general)(input, **{**kwargs, **fixed, "out_type": out_type})

    shown = ", ".join(["input", *params, f"out_type={getattr(out_type, '__name__', repr(out_type))}",
                       *(f"{k}={v}" for k, v in fixed.items())])
    method.__doc__ = f"``{general}({shown})``."
    return method


def add_aliases(cls: type, others: list[str]) -> None:
    """Adds the shorthand methods to `cls`, and CamelCase names for them and for `others`."""
    names = list(others)
    for stem, (general, fixed, params, kinds) in _FAMILIES.items():
        for kind in kinds:
            name = f"{stem}_as_{kind}"
            method = _alias(general, fixed, params, _KINDS[kind])
            method.__name__ = method.__qualname__ = name
            setattr(cls, name, method)
            names.append(name)
    for snake in names:
        setattr(cls, camel(snake), getattr(cls, snake))
    cls.tokenize = cls.Tokenize = cls.encode  # type: ignore[attr-defined]
    cls.detokenize = cls.Detokenize = cls.decode  # type: ignore[attr-defined]
