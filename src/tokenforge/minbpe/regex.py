"""minbpe's RegexTokenizer: split the text with a pattern, then byte-pair encode each chunk.

Merges never cross chunk boundaries.  Special tokens follow minbpe's policy in `encode`:
``allowed_special`` is "none_raise" (the default: a special token in the text is an
error), "none" (encoded as ordinary text), "all", or a set of the ones allowed.

It leaves out cl100k's vocabulary (:mod:`.gpt4`).

Example (worked by hand: the chunks are "hello", " hello" twice and " world"; "he", "el",
"ll" and "lo" occur 3 times each and "he" is seen first, then "hel" ties with "ll" and "lo"):
    >>> tok = RegexTokenizer()
    >>> tok.train("hello hello hello world", 256 + 4)
    >>> [tok.decode([i]) for i in range(256, 260)]
    ['he', 'hel', 'hell', 'hello']
    >>> tok.encode("hello world")
    [259, 32, 119, 111, 114, 108, 100]
"""

from __future__ import annotations

from collections import Counter

import regex

from tokenforge.minbpe.base import Tokenizer, learn_merges

# minbpe's two patterns (GPT-2's and GPT-4's, as minbpe spells them).
GPT2_SPLIT_PATTERN = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
GPT4_SPLIT_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]++[\r\n]*|\s*[\r\n]|\s+(?!\S)|\s+"""
)


class RegexTokenizer(Tokenizer):
    """Byte-pair encoding within the chunks of a split pattern, as minbpe's RegexTokenizer."""

    def __init__(self, pattern: str | None = None) -> None:
        """Args:
            pattern: the split pattern (default: GPT-4's).

        Raises:
            ValueError: the pattern does not compile.
        """
        super().__init__()
        self._set_pattern(GPT4_SPLIT_PATTERN if pattern is None else pattern)

    def _set_pattern(self, pattern: str) -> None:
        try:  # "" (a BasicTokenizer's file) splits nothing: the text is one chunk
            self.compiled_pattern = regex.compile(pattern or r"[\s\S]+")
        except (regex.error, TypeError) as e:
            raise ValueError(f"split pattern does not compile: {e}") from None
        self.pattern = pattern
        self._engine_cache = None

    def train(self, text: str, vocab_size: int, verbose: bool = False) -> None:
        """Learns ``vocab_size - 256`` merges from the chunks of `text` (fewer if it runs out of pairs).

        Raises:
            ValueError: vocab_size below 256.
        """
        counts = Counter(self.compiled_pattern.findall(text))  # insertion order: first seen
        words = {chunk.encode("utf-8"): n for chunk, n in counts.items()}
        self._set_merges(learn_merges(words, vocab_size, verbose))

    def encode_ordinary(self, text: str) -> list[int]:
        """text -> ids, special tokens treated as ordinary text."""
        engine = self._engine()
        if engine is not None:
            return engine.encode_ordinary(text)
        ids: list[int] = []
        for chunk in self.compiled_pattern.findall(text):
            ids.extend(self._encode_chunk(chunk.encode("utf-8")))
        return ids

    def encode(self, text: str, allowed_special: str | set[str] = "none_raise") -> list[int]:
        """text -> ids, with minbpe's special-token policy.

        Args:
            text: the text.
            allowed_special: "none_raise", "none", "all" or a set of special token texts.

        Raises:
            ValueError: "none_raise" and the text holds a special token, or an unknown policy.

        >>> tok = RegexTokenizer()
        >>> tok.register_special_tokens({"<|eot|>": 300})
        >>> tok.encode("<|eot|>", allowed_special={"<|eot|>"}), len(tok.encode("<|eot|>", allowed_special="none"))
        ([300], 7)
        """
        if allowed_special == "all":
            special = self.special_tokens
        elif allowed_special == "none":
            special = {}
        elif allowed_special == "none_raise":
            special = {}
            found = [s for s in self.special_tokens if s in text]
            if found:
                raise ValueError(f"the text holds the special token {found[0]!r} (pass allowed_special)")
        elif isinstance(allowed_special, (set, frozenset)):
            special = {k: v for k, v in self.special_tokens.items() if k in allowed_special}
        else:
            raise ValueError(f"allowed_special={allowed_special!r} not understood")
        if not special:
            return self.encode_ordinary(text)
        # As minbpe: alternatives in registration order, the first that matches wins.
        splitter = regex.compile("(" + "|".join(regex.escape(k) for k in special) + ")")
        ids: list[int] = []
        for part in splitter.split(text):
            if part in special:
                ids.append(special[part])
            elif part:
                ids.extend(self.encode_ordinary(part))
        return ids
