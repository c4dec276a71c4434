"""A GGUF tokenizer behind the Hugging Face-style :class:`tokenforge.Tokenizer`.

:meth:`Tokenizer.from_gguf` builds a ``Tokenizer`` whose stages are llama.cpp's:

- added tokens: every CONTROL, UNKNOWN and USER_DEFINED token of the file, matched on the
  raw text (USER_DEFINED ones are not "special", so ``decode`` keeps them); as in HF
  ``tokenizers`` and ``transformers``, special tokens in the text are recognised -- llama.cpp's
  ``parse_special=True``.  (``tokenforge.gguf.load(path).encode(..., parse_special=False)``
  is llama.cpp's default.)
- model (:class:`GGUFModel`): the text between added tokens goes through llama.cpp's engine
  for the file's model (``llama`` with its space prefix, ``gpt2``, ``t5``, ``bert``); no
  normalizer or pre-tokenizer stage, as the engine holds them.
- post-processor: BOS / EOS (``bert``: [CLS] / [SEP]) as llama.cpp adds them with
  ``add_special``; decoder: the HF decoder of the same kind of model (``bert``: the tokens
  joined as llama.cpp's detokenizer does, without HF's WordPiece clean-up of `` .``).

The ids are llama.cpp's; offsets are characters of the text: ``gpt2`` and ``llama`` tokens
spell the text in order; ``t5`` and ``bert`` ones are those of the tokenizer.json pipeline the
file mirrors (:mod:`.hf_mirror`, `tokenizers`' alignment) wherever its ids are llama.cpp's,
else sentencepiece's spans through the charsmap (``t5``) or each character of a word
followed back to its source (``bert``, see :mod:`.wordpiece`).

:meth:`Tokenizer.to_gguf` writes a GGUF-made tokenizer's own metadata back (every value as
read), or converts a ``tokenizer.json`` pipeline llama.cpp can run: byte-level BPE,
SentencePiece-style BPE or Unigram, WordPiece (:func:`.convert.vocab_from_json`).  A
``Tokenizer`` made from a GGUF has no ``tokenizer.json`` form: ``to_str``/``save`` raise a
``ValueError``.

Example:
    >>> import os, tempfile, tokenforge
    >>> from tokenforge.gguf import GGUFVocab, write_vocab
    >>> path = os.path.join(tempfile.mkdtemp(), "t.gguf")
    >>> write_vocab(GGUFVocab(model="llama", tokens=["<unk>", "<s>", "</s>", "▁", "a", "▁a"],
    ...                       scores=[0, 0, 0, -1, -2, -0.5], token_types=[2, 3, 3, 1, 1, 1]), path)
    >>> enc = tokenforge.Tokenizer.from_gguf(path).encode("a a")
    >>> enc.ids, enc.tokens, enc.offsets
    ([1, 5, 5], ['<s>', '▁a', '▁a'], [(0, 0), (0, 1), (1, 3)])
"""

from __future__ import annotations

import bisect
import itertools
import os

from tokenforge.gguf.engine import GGUFTokenizer
from tokenforge.gguf.vocab import GGUFVocab, TokenType
from tokenforge.models.vocab_model import VocabModel


class GGUFModel(VocabModel):
    """The model stage of a GGUF-made Tokenizer: llama.cpp's engine on one text fragment."""

    def __init__(self, engine: GGUFTokenizer) -> None:
        tokens = engine.vocab.tokens
        super().__init__({t: i for i, t in enumerate(tokens)})
        self.vocab_r = dict(enumerate(tokens))  # every id, repeated texts included
        self.engine = engine
        self._prefix = " " if engine.vocab.model == "llama" and engine.add_space_prefix else ""
        self._kinds: dict[str, str | None] = {}  # t5: character -> what the charsmap makes of it
        self._mirror = None  # t5/bert: the HF pipeline aligning offsets (built on first use; False: none)

    def _width(self, i: int) -> int:
        """The UTF-8 bytes of text that token `i` stands for."""
        model, token = self.engine.vocab.model, self.engine.vocab.tokens[i]
        if model == "gpt2":
            from tokenforge.gguf.bytelevel import token_bytes

            return len(token_bytes(token) or b"")
        if self.engine.vocab.token_types is not None and self.engine.vocab.token_type(i) == TokenType.BYTE:
            return 1
        return len(token.encode("utf-8"))  # "▁" (3 bytes) stands for a space: corrected below

    def word_tokens(self, text: str) -> list[tuple[int, str, tuple[int, int]]]:
        """(id, token, (start, end)) for a fragment of text between added tokens."""
        model, tokens = self.engine.vocab.model, self.engine.vocab.tokens
        if model == "bert":
            return self._as_mirror([(i, tokens[i], span) for i, span in self.engine._wpm.encode_with_offsets(text)], text)
        if model == "t5":
            return self._as_mirror(self._unigram_spans(text), text)
        return self._laid_end_to_end(text)

    def _as_mirror(self, found: list[tuple[int, str, tuple[int, int]]], text: str):
        """`found` with the offsets of the HF pipeline the file mirrors when its ids are the
        same (:mod:`.hf_mirror`): `tokenizers`' alignment on the lines the spans miss."""
        if self._mirror is None:
            from tokenforge.gguf.hf_mirror import mirror_tokenizer

            try:
                self._mirror = mirror_tokenizer(self.engine.vocab, self.engine.special_ids.get("unk")) or False
            except ValueError:  # a vocabulary the tokenizer.json engine refuses: the engine's spans
                self._mirror = False
        if not self._mirror or not found:
            return found
        enc = self._mirror.encode(text, add_special_tokens=False)
        if enc.ids != [i for i, _, _ in found]:
            return found
        return [(i, tok, tuple(span)) for (i, tok, _), span in zip(found, enc.offsets)]

    def _unigram_spans(self, text: str) -> list[tuple[int, str, tuple[int, int]]]:
        """t5: sentencepiece's spans through its charsmap, but a token's leading ``▁`` on the
        last space before its text, as `tokenizers` aligns a collapsed run of spaces (a run
        sentencepiece spans whole, or leaves out at the start of the text)."""
        found = self.engine._sp.encode(text, out_type="offset_mapping")
        tokens, out = self.engine.vocab.tokens, []
        for i, (s, e) in zip(found["ids"], found["offsets"]):
            if tokens[i].startswith("\u2581"):
                f = s
                while f < e and self._space_kind(text[f]):
                    f += 1  # the token's first character that is not a space
                j, space = f - 1, None
                while j >= 0 and self._space_kind(text[j]):
                    if self._space_kind(text[j]) == "space":
                        space = j
                        break
                    j -= 1
                if space is not None:
                    s = space
                    e = max(e, space + 1)
                else:
                    s = f
            out.append((i, tokens[i], (s, e)))
        return out

    def _space_kind(self, c: str) -> str | None:
        """"space" for a character the charsmap makes a space, "dropped" for one it removes."""
        kind = self._kinds.get(c, "")
        if kind == "":
            normalized = self.engine._sp.normalize("a" + c + "b")
            kind = self._kinds[c] = "space" if normalized == "\u2581a\u2581b" else (
                "dropped" if normalized == "\u2581ab" else None)
        return kind

    def _laid_end_to_end(self, text: str) -> list[tuple[int, str, tuple[int, int]]]:
        """gpt2 and llama, whose tokens spell the text (bytes or ▁ for a space) in order."""
        ids = self.engine._encode_fragment(text, True)
        src = self._prefix + text
        ends = list(itertools.accumulate(len(c.encode("utf-8")) for c in src))  # byte end of each char
        tokens, out, pos, shift = self.engine.vocab.tokens, [], 0, len(self._prefix)
        for i in ids:
            pos += self._width(i) - 2 * tokens[i].count("\u2581")
            end = min(bisect.bisect_left(ends, pos) + 1, len(src)) if pos > 0 else 0
            out.append((i, tokens[i], end))
        spans, start = [], 0
        for i, tok, end in out:
            a, b = max(start - shift, 0), max(min(end - shift, len(text)), 0)
            spans.append((i, tok, (min(a, b), b)))
            start = end
        return spans

    def to_dict(self) -> dict:
        raise ValueError("a tokenizer read from a GGUF file has no tokenizer.json form here: write it with to_gguf(), "
                         "or convert a byte-level one with `tokenforge convert FILE.gguf tokenizer.json`")


def tokenizer_from_gguf(path: str | os.PathLike[str] | GGUFVocab, *, reader: str = "gguf"):
    """The :class:`tokenforge.Tokenizer` of a GGUF file (module docstring).

    Raises:
        OSError: the file cannot be read.
        ValueError: not a GGUF file, no tokenizer, an unsupported model or pre.
    """
    from tokenforge import decoders, processors
    from tokenforge.gguf.reader import read_vocab
    from tokenforge.tokenizer import AddedToken, Tokenizer

    vocab = path if isinstance(path, GGUFVocab) else read_vocab(path, reader=reader)
    engine = GGUFTokenizer(vocab)
    tok = Tokenizer(GGUFModel(engine))
    added = []
    for i in engine._specials:
        user = vocab.token_type(i) == TokenType.USER_DEFINED
        added.append(AddedToken(vocab.tokens[i], rstrip=i in engine._rstrip, normalized=False, special=not user))
    tok.added.add(added, tok.model)
    tok.post_processor = processors.from_dict(_template(engine))
    tok.decoder = decoders.from_dict(_decoder(engine))
    return tok


def _template(engine: GGUFTokenizer) -> dict | None:
    """BOS/EOS around each sequence as llama.cpp adds them (bert: [CLS] A [SEP] B [SEP])."""
    ids, tokens = engine.special_ids, engine.vocab.tokens
    front = [ids["bos"]] if engine.add_bos else []
    back = [ids["eos"]] if engine.add_eos else []
    if engine.vocab.model == "bert":
        back = [ids["sep"]]
    if not front and not back:
        return None

    def piece(i: int, type_id: int) -> dict:
        return {"SpecialToken": {"id": tokens[i], "type_id": type_id}}

    a = [piece(i, 0) for i in front] + [{"Sequence": {"id": "A", "type_id": 0}}] + [piece(i, 0) for i in back]
    if engine.vocab.model == "bert":
        b = [{"Sequence": {"id": "B", "type_id": 1}}, piece(back[0], 1)]
    else:
        b = [piece(i, 1) for i in front] + [{"Sequence": {"id": "B", "type_id": 1}}] + [piece(i, 1) for i in back]
    specials = {tokens[i]: {"id": tokens[i], "ids": [i], "tokens": [tokens[i]]} for i in front + back}
    return {"type": "TemplateProcessing", "single": a, "pair": a + b, "special_tokens": specials}


def _decoder(engine: GGUFTokenizer) -> dict:
    """The HF decoder of the same kind of model."""
    model = engine.vocab.model
    if model == "gpt2":
        return {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True}
    space = {"type": "Replace", "pattern": {"String": "\u2581"}, "content": " "}
    strip = {"type": "Strip", "content": " ", "start": 1 if engine.add_space_prefix or model == "bert" else 0, "stop": 0}
    steps = [space, {"type": "ByteFallback"}, {"type": "Fuse"}, strip] if model == "llama" else [space, {"type": "Fuse"}, strip]
    return {"type": "Sequence", "decoders": steps}


def tokenizer_to_gguf(tok, path: str | os.PathLike[str], *, pre: str | None = None, name: str | None = None) -> None:
    """Writes `tok` as a tokenizer-only GGUF (module docstring).

    Raises:
        ValueError: a pipeline llama.cpp has no tokenizer for (a model other than BPE, Unigram
            or WordPiece, or one whose split or normalization llama.cpp would not follow).
        OSError: the file cannot be written.
        ImportError: the `gguf` package is missing.
    """
    from tokenforge.gguf.writer import write_vocab

    if isinstance(tok.model, GGUFModel):
        write_vocab(_with_added_tokens(tok), path)
        return
    from tokenforge.gguf.convert import vocab_from_json

    vocab = vocab_from_json(tok.to_dict(), pre=pre, name=name)
    write_vocab(vocab, path)


def _with_added_tokens(tok) -> GGUFVocab:
    """A GGUF-made tokenizer's metadata, with the tokens added since (``add_tokens``,
    ``add_special_tokens``) appended as USER_DEFINED / CONTROL."""
    import dataclasses

    vocab = tok.model.engine.vocab
    n = vocab.n_tokens
    new = sorted((i, t) for i, t in tok.added.tokens.items() if i >= n or vocab.tokens[i] != t.content)
    if not new:
        return vocab
    if [i for i, _ in new] != list(range(n, n + len(new))):
        raise ValueError(f"added tokens {[t.content for _, t in new][:5]} do not follow the GGUF's {n} ids")
    types = list(vocab.token_types) if vocab.token_types is not None else [int(TokenType.NORMAL)] * n
    out = dataclasses.replace(vocab, tokens=vocab.tokens + [t.content for _, t in new],
                              token_types=types + [int(TokenType.CONTROL if t.special else TokenType.USER_DEFINED)
                                                   for _, t in new])
    if vocab.scores is not None:
        out.scores = list(vocab.scores) + [0.0] * len(new)
    return out
