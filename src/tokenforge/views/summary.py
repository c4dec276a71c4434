"""`describe(model)`: what `tokenforge inspect` prints about a tokenizer.

Type, vocabulary size, special tokens, the split pattern or normalizer, the longest tokens,
the single bytes without a token, and the compression (UTF-8 bytes per token) on a sample.

It leaves out loading (:mod:`.models`).
"""

from __future__ import annotations

from tokenforge.views.models import Model
from tokenforge.views.terminal import printable

SAMPLE = (
    "The quick brown fox jumps over the lazy dog. Tokenizers cut text into pieces a model can count.\n"
    'def greet(name):\n    return f"Hello, {name}!"\n'
    "Les tokenizers découpent le texte. Токенизаторы режут текст. 分词器把文本切成片段。 🙂\n"
)


def _clip(text: str, width: int = 24) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def describe(model: Model, sample: str = SAMPLE) -> str:
    """A multi-line summary of `model`; `sample` is the text whose compression is measured."""
    ids = model.ids()
    lengths = {i: len(model.token_bytes(i)) for i in ids}
    longest = sorted(ids, key=lambda i: (-lengths[i], i))[:5]
    singles = {model.token_bytes(i)[0] for i in ids if lengths[i] == 1}  # (SentencePiece: its <0xXX> pieces)
    uncovered = [b for b in range(256) if b not in singles]
    sample_ids = model.encode(sample)
    specials = sorted(model.specials.items(), key=lambda kv: kv[1])
    shown = ", ".join(f"{s!r}={i}" for s, i in specials[:6]) + (" ..." if len(specials) > 6 else "")
    lines = [
        f"model       {model.name}",
        f"type        {model.kind}" + (" (byte-level BPE)" if model.encoding is not None else ""),
        f"vocab       {model.vocab_size} ids ({len(ids)} tokens, {len(specials)} special)",
        f"special     {shown or '-'}",
        f"split       {model.split}",
        "longest     " + ", ".join(f"{_clip(printable(model.token_bytes(i)))!r} ({lengths[i]} bytes, id {i})" for i in longest),
        f"bytes       {256 - len(uncovered)}/256 single bytes have a token"
        + (f" (none for {', '.join(hex(b) for b in uncovered[:8])}{' ...' if len(uncovered) > 8 else ''})" if uncovered else ""),
        f"compression {len(sample.encode('utf-8')) / max(1, len(sample_ids)):.2f} bytes/token on a "
        f"{len(sample.encode('utf-8'))}-byte sample ({len(sample_ids)} tokens)",
    ]
    return "\n".join(lines)
