"""`GGUFTokenizer`: encodes text as llama.cpp does with a GGUF's tokenizer.

The pipeline is llama.cpp's ``llama_tokenize(text, add_special, parse_special)``:

1. special tokens are cut out of the text, longest first: USER_DEFINED tokens always,
   CONTROL and UNKNOWN ones only with ``parse_special=True`` (``tokenizer_st_partition``);
2. each remaining fragment is encoded by the model: ``llama`` (SentencePiece BPE) gets a
   space in front when it starts the text or follows a special token (``add_space_prefix``,
   on by default), ``gpt2`` is byte-level BPE split by its ``pre``, ``t5`` is Unigram;
3. with ``add_special=True``, BOS and/or EOS are added as the file's ``add_bos_token`` /
   ``add_eos_token`` say, or llama.cpp's default for the model and ``pre`` when it is silent.

``bert`` (WordPiece) is llama.cpp's WPM (:mod:`.wordpiece`): ``add_special`` puts the bos
id ([CLS]) before and the sep id ([SEP]) after, whatever the file's add-flags say.

What this module leaves out: the engines themselves (:mod:`.spm`, :mod:`.bytelevel`,
:mod:`.wordpiece`), llama.cpp's other models (``rwkv``, ``plamo2``, ...), and llama.cpp's
detokenizer options (``decode`` returns the plain text of the ids).

Example:
    >>> from tokenforge.gguf.vocab import GGUFVocab
    >>> v = GGUFVocab(model="llama", tokens=["<unk>", "<s>", "</s>", "▁", "a", "▁a"],
    ...               scores=[0, 0, 0, -1, -2, -0.5], token_types=[2, 3, 3, 1, 1, 1])
    >>> tok = GGUFTokenizer(v)
    >>> tok.encode("a a", add_special=False)
    [5, 5]
    >>> tok.encode("a<s>a", parse_special=True)
    [1, 5, 1, 5]
"""

from __future__ import annotations

import os

from tokenforge.gguf.vocab import GGUFVocab, TokenType

_SPECIAL_TYPES = frozenset(int(t) for t in (TokenType.CONTROL, TokenType.USER_DEFINED, TokenType.UNKNOWN))
# llama.cpp's special ids for a model whose file does not name them (llama_vocab::impl::load).
_DEFAULT_IDS = {
    "llama": {"bos": 1, "eos": 2, "unk": 0},
    "gpt2": {"bos": 11, "eos": 11},
    "t5": {"eos": 1, "unk": 2, "pad": 0},
    "bert": {"bos": 101, "unk": 100, "sep": 102, "pad": 0, "mask": 103},
}


class GGUFTokenizer:
    """A GGUF vocabulary ready to encode, with llama.cpp's conventions."""

    def __init__(self, vocab: GGUFVocab) -> None:
        """Builds the engine for `vocab`.

        Raises:
            ValueError: an unknown or unsupported model or ``pre``, bad merges, or add_bos /
                add_eos set without the id to add.
        """
        vocab.check()
        self.vocab = vocab
        model = vocab.model
        if model not in ("llama", "gpt2", "t5", "bert"):
            raise ValueError(f"unknown tokenizer.ggml.model {model!r} (tokenforge reads llama, gpt2, t5 and bert)")
        n = vocab.n_tokens
        self.special_ids = {k: i for k, i in _DEFAULT_IDS[model].items() if i < n}
        self.special_ids.update({k: i for k, i in vocab.special_ids.items() if 0 <= i < n})
        if model == "bert" and "bos" not in vocab.special_ids and 0 <= vocab.special_ids.get("cls", -1) < n:
            self.special_ids["bos"] = vocab.special_ids["cls"]  # older converters name [CLS] only as cls
        types = vocab.token_types
        specials = [] if types is None else [i for i, t in enumerate(types) if t in _SPECIAL_TYPES]
        self._specials = sorted(specials, key=lambda i: -len(vocab.tokens[i].encode("utf-8")))  # longest first
        self._user_defined = [i for i in self._specials if types[i] == TokenType.USER_DEFINED]
        self._rstrip = self._phi3_rstrip(vocab)
        self.add_space_prefix = vocab.add_space_prefix if vocab.add_space_prefix is not None else model == "llama"
        if model == "gpt2":
            from tokenforge.gguf.bytelevel import ByteLevelBpe
            from tokenforge.gguf.pretokenizers import pre_tokenizer

            pre = pre_tokenizer(vocab.pre)
            if vocab.pre in ("glm4", "chatglm-bpe") and "bos" not in vocab.special_ids:
                self.special_ids.pop("bos", None)
            if vocab.merges is None:
                raise ValueError("a gpt2 (byte-level BPE) vocabulary needs tokenizer.ggml.merges")
            self._bpe = ByteLevelBpe(vocab.tokens, vocab.merges, pre, skip=frozenset(specials))
            default_bos, default_eos = pre.add_bos, False
            self._encode_fragment = lambda text, first: self._bpe.encode(text)
        elif model == "bert":
            from tokenforge.gguf.wordpiece import WordPieceWPM

            self._wpm = WordPieceWPM(vocab.tokens, self.special_ids.get("unk"))
            # llama.cpp's WPM adds [CLS] (its bos) and [SEP] whenever add_special is on.
            default_bos, default_eos = True, False
            self._encode_fragment = lambda text, first: self._wpm.encode(text)
        else:
            from tokenforge.gguf.spm import spm_processor

            self._sp = spm_processor(vocab.tokens, vocab.scores, vocab.token_types, model,
                                     precompiled_charsmap=vocab.precompiled_charsmap,
                                     add_space_prefix=self.add_space_prefix,
                                     remove_extra_whitespaces=bool(vocab.remove_extra_whitespaces),
                                     special_ids=self.special_ids)
            if model == "llama":
                default_bos, default_eos = True, False
                prefix = self.add_space_prefix
                self._encode_fragment = lambda text, after_special: self._sp.encode(
                    " " + text if prefix and after_special else text)
            else:
                default_bos, default_eos = False, True
                self._encode_fragment = lambda text, after_special: self._sp.encode(text)
        self.add_bos = default_bos if vocab.add_bos is None else vocab.add_bos
        self.add_eos = default_eos if vocab.add_eos is None else vocab.add_eos
        if model == "bert":  # llama.cpp ignores the file's flags here: [CLS] text [SEP]
            self.add_bos, self.add_eos = True, False
        for flag, short in (("add_bos", "bos"), ("add_eos", "eos")) + ((("add_bos", "sep"),) if model == "bert" else ()):
            if getattr(self, flag) and short not in self.special_ids:
                raise ValueError(f"{flag}_token is true but the vocabulary has no {short} id")

    @classmethod
    def from_file(cls, path: str | os.PathLike[str], *, reader: str = "gguf") -> GGUFTokenizer:
        """Reads a GGUF file's tokenizer (see :func:`tokenforge.gguf.reader.read_vocab`)."""
        from tokenforge.gguf.reader import read_vocab

        return cls(read_vocab(path, reader=reader))

    @staticmethod
    def _phi3_rstrip(vocab: GGUFVocab) -> frozenset[int]:
        """llama.cpp strips the whitespace after Phi-3's special tokens (keyed on general.name)."""
        name = (vocab.name or "").lower()
        if "phi-3" not in name and "phi3" not in name or vocab.token_types is None:
            return frozenset()
        ids = {i for i, t in enumerate(vocab.token_types) if t in _SPECIAL_TYPES}
        ids |= {i for i, t in enumerate(vocab.tokens) if t == "</s>"}
        ids -= {i for i, t in enumerate(vocab.tokens) if t in ("<unk>", "<s>", "<|endoftext|>")}
        return frozenset(ids)

    def encode(self, text: str, *, add_special: bool = True, parse_special: bool = False) -> list[int]:
        """The ids of `text`, as llama.cpp's ``llama_tokenize``.

        Args:
            text: the text.
            add_special: add BOS/EOS as the vocabulary asks (llama-cpp-python's default too).
            parse_special: recognise CONTROL tokens (``<s>``, ``<|eot_id|>``) in the text;
                USER_DEFINED tokens are recognised either way, as in llama.cpp.

        Returns:
            The ids.
        """
        out: list[int] = []
        if add_special and self.add_bos:
            out.append(self.special_ids["bos"])
        after_special = True
        for piece in self._fragments(text, parse_special):
            if isinstance(piece, int):
                out.append(piece)
                after_special = True
            else:
                out.extend(self._encode_fragment(piece, after_special))
                after_special = False
        if add_special and self.add_eos:
            out.append(self.special_ids["eos"])
        if add_special and self.vocab.model == "bert":
            out.append(self.special_ids["sep"])
        return out

    def _fragments(self, text: str, parse_special: bool) -> list[str | int]:
        """The text cut at special tokens: str fragments and int ids, in order.  Each special
        token is cut out of every fragment before the next (shorter) one is looked for."""
        parts: list[str | int] = [text] if text else []
        tokens = self.vocab.tokens
        for i in (self._specials if parse_special else self._user_defined):
            word = tokens[i]
            if not word or word not in text:
                continue
            out: list[str | int] = []
            for part in parts:
                if isinstance(part, int) or word not in part:
                    out.append(part)
                    continue
                chunks = part.split(word)
                for k, chunk in enumerate(chunks):
                    if k > 0:
                        out.append(i)
                        if i in self._rstrip:
                            chunk = chunk.lstrip(" \t\n\r\f\v")
                    if chunk:
                        out.append(chunk)
            parts = out
        return parts

    def decode(self, ids: list[int]) -> str:
        """The text of `ids`: byte-level tokens as their bytes and special tokens as their text
        (invalid UTF-8 replaced); SentencePiece vocabularies decode as sentencepiece does
        (control tokens dropped, the leading space prefix removed).

        >>> from tokenforge.gguf.vocab import GGUFVocab
        >>> GGUFTokenizer(GGUFVocab(model="llama", tokens=["<unk>", "<s>", "</s>", "▁a"])).decode([3, 3])
        'a a'
        """
        if self.vocab.model == "gpt2":
            from tokenforge.gguf.bytelevel import token_bytes

            special = set(self._specials)
            tokens = self.vocab.tokens
            raw = b"".join(tokens[i].encode("utf-8") if i in special else (token_bytes(tokens[i]) or b"") for i in ids)
            return raw.decode("utf-8", "replace")
        if self.vocab.model == "bert":
            return self._decode_wordpiece(ids)
        text = self._sp.decode(list(ids))
        if self.vocab.model == "llama" and self.add_space_prefix and text.startswith(" "):
            text = text[1:]  # the prefix encode added, dropped as sentencepiece drops its dummy prefix
        return text

    def _decode_wordpiece(self, ids: list[int]) -> str:
        """bert: each token's text with ``▁`` as a space, CONTROL/UNKNOWN tokens dropped,
        the first word's space removed (llama.cpp's ``token_to_piece`` and detokenizer)."""
        tokens, skip = self.vocab.tokens, set(self._specials) - set(self._user_defined)
        text = "".join(tokens[i].replace("\u2581", " ") for i in ids if i not in skip)
        return text[1:] if text.startswith(" ") else text
