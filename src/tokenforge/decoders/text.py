"""The decoders themselves (see the package docstring).

Example:
    >>> WordPiece().decode(["un", "##aff", "##able", "!"])
    'unaffable!'
"""

from __future__ import annotations

from tokenforge.normalizers.pattern import compile_pattern, pattern_object
from tokenforge.pre_tokenizers.byte_level import CHAR_BYTES


class _Decoder:
    def decode(self, tokens: list[str]) -> str:
        return "".join(self.decode_chain(list(tokens)))

    def to_dict(self) -> dict:
        return {"type": type(self).__name__}


class ByteLevel(_Decoder):
    """GPT-2 byte characters back to bytes, then UTF-8 (invalid bytes become U+FFFD)."""

    def decode_chain(self, tokens: list[str]) -> list[str]:
        out = bytearray()
        for t in tokens:
            try:
                out += bytes(CHAR_BYTES[c] for c in t)
            except KeyError:
                out += t.encode("utf-8")
        return [out.decode("utf-8", "replace")]

    def to_dict(self) -> dict:
        return {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True}


class Metaspace(_Decoder):
    """▁ back to spaces; the first token loses its ▁ when a prefix was prepended."""

    def __init__(self, replacement: str = "\u2581", prepend_scheme: str = "always", split: bool = True) -> None:
        self.replacement, self.prepend_scheme, self.split = replacement, prepend_scheme, split

    def decode_chain(self, tokens: list[str]) -> list[str]:
        r = self.replacement
        out = []
        for i, t in enumerate(tokens):
            if i == 0 and self.prepend_scheme != "never":
                out.append(t.replace(r, ""))
            else:
                out.append(t.replace(r, " "))
        return out

    def to_dict(self) -> dict:
        return {"type": "Metaspace", "replacement": self.replacement, "prepend_scheme": self.prepend_scheme,
                "split": self.split}


_CLEANUPS = ((" .", "."), (" ?", "?"), (" !", "!"), (" ,", ","), (" ' ", "'"), (" n't", "n't"),
             (" 'm", "'m"), (" do not", " don't"), (" 's", "'s"), (" 've", "'ve"), (" 're", "'re"))


def cleanup(s: str) -> str:
    """tokenizers' `clean_up_tokenization`: no space before punctuation and contractions."""
    for a, b in _CLEANUPS:
        s = s.replace(a, b)
    return s


class WordPiece(_Decoder):
    """Joins `##` continuations, spaces before other tokens; optional cleanup."""

    def __init__(self, prefix: str = "##", cleanup: bool = True) -> None:
        self.prefix, self.cleanup = prefix, cleanup

    def decode_chain(self, tokens: list[str]) -> list[str]:
        out = []
        for i, t in enumerate(tokens):
            if i:
                t = t[len(self.prefix):] if t.startswith(self.prefix) else " " + t
            out.append(cleanup(t) if self.cleanup else t)
        return out

    def to_dict(self) -> dict:
        return {"type": "WordPiece", "prefix": self.prefix, "cleanup": self.cleanup}


class Replace(_Decoder):
    """Replaces a String or Regex pattern in each token."""

    def __init__(self, pattern, content: str) -> None:
        self.pattern = pattern_object(pattern)
        self.content = content
        self._re = compile_pattern(self.pattern)

    def decode_chain(self, tokens: list[str]) -> list[str]:
        return [self._re.sub(lambda m: self.content, t) for t in tokens]

    def to_dict(self) -> dict:
        return {"type": "Replace", "pattern": self.pattern, "content": self.content}


def _byte_of(t: str) -> int | None:
    if len(t) == 6 and t.startswith("<0x") and t.endswith(">"):
        try:
            return int(t[3:5], 16)
        except ValueError:
            return None
    return None


class ByteFallback(_Decoder):
    """Runs of `<0xXX>` tokens become their UTF-8 text, or one U+FFFD per byte if invalid."""

    def decode_chain(self, tokens: list[str]) -> list[str]:
        out: list[str] = []
        pending = bytearray()

        def flush() -> None:
            if pending:
                try:
                    out.append(pending.decode("utf-8"))
                except UnicodeDecodeError:
                    out.extend("\ufffd" for _ in pending)
                pending.clear()

        for t in tokens:
            b = _byte_of(t)
            if b is None:
                flush()
                out.append(t)
            else:
                pending.append(b)
        flush()
        return out


class Fuse(_Decoder):
    """Joins all tokens into one."""

    def decode_chain(self, tokens: list[str]) -> list[str]:
        return ["".join(tokens)]


class Strip(_Decoder):
    """Removes up to `left` leading and `right` trailing `content` characters of each token
    (tokenizers' argument names; the file names them `start` and `stop`, as these attributes)."""

    def __init__(self, content: str = " ", left: int = 0, right: int = 0) -> None:
        self.content, self.start, self.stop = content, left, right

    def decode_chain(self, tokens: list[str]) -> list[str]:
        out = []
        for t in tokens:
            a = 0
            while a < self.start and a < len(t) and t[a] == self.content:
                a += 1
            b, k = len(t), 0
            while k < self.stop and b > a and t[b - 1] == self.content:
                b -= 1
                k += 1
            out.append(t[a:b])
        return out

    def to_dict(self) -> dict:
        return {"type": "Strip", "content": self.content, "start": self.start, "stop": self.stop}


class BPEDecoder(_Decoder):
    """Word-end suffix (`</w>`) to a space, none after the last token."""

    def __init__(self, suffix: str = "</w>") -> None:
        self.suffix = suffix

    def decode_chain(self, tokens: list[str]) -> list[str]:
        n = len(tokens)
        return [t.replace(self.suffix, "" if i == n - 1 else " ") for i, t in enumerate(tokens)]

    def to_dict(self) -> dict:
        return {"type": "BPEDecoder", "suffix": self.suffix}


class CTC(_Decoder):
    """Connectionist temporal classification output: repeats collapsed, pads removed."""

    def __init__(self, pad_token: str = "<pad>", word_delimiter_token: str = "|", cleanup: bool = True) -> None:
        self.pad_token, self.word_delimiter_token, self.cleanup = pad_token, word_delimiter_token, cleanup

    def decode_chain(self, tokens: list[str]) -> list[str]:
        # As tokenizers: repeats collapsed; the pad token's text removed from each token;
        # only with cleanup, WordPiece's cleanup then the delimiter made a space; empty ones dropped.
        out, prev = [], object()
        for t in tokens:
            if t == prev:
                continue
            prev = t
            t = t.replace(self.pad_token, "")
            if self.cleanup:
                t = cleanup(t).replace(self.word_delimiter_token, " ")
            if t:
                out.append(t)
        return out

    def to_dict(self) -> dict:
        return {"type": "CTC", "pad_token": self.pad_token, "word_delimiter_token": self.word_delimiter_token,
                "cleanup": self.cleanup}
