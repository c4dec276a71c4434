"""minbpe's BasicTokenizer: byte-level BPE over the whole text, with no split pattern.

The text is one sequence of bytes, so merges can cross words and spaces.  It leaves out
splitting and special tokens (:mod:`.regex`).

Example (minbpe's documented example):
    >>> tok = BasicTokenizer()
    >>> tok.train("aaabdaaabac", 256 + 3)
    >>> tok.encode("aaabdaaabac")
    [258, 100, 258, 97, 99]
    >>> tok.decode([258, 100, 258, 97, 99])
    'aaabdaaabac'
"""

from __future__ import annotations

from tokenforge.minbpe.base import Tokenizer, learn_merges


class BasicTokenizer(Tokenizer):
    """Byte-pair encoding of raw bytes, as minbpe's BasicTokenizer."""

    def train(self, text: str, vocab_size: int, verbose: bool = False) -> None:
        """Learns ``vocab_size - 256`` merges from `text` (fewer if it runs out of pairs).

        Raises:
            ValueError: vocab_size below 256.
        """
        self._set_merges(learn_merges({text.encode("utf-8"): 1}, vocab_size, verbose))

    def encode(self, text: str) -> list[int]:
        """text -> ids."""
        return self._encode_chunk(text.encode("utf-8"))
