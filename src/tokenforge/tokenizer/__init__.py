"""`tokenizer.json` support: :class:`Tokenizer` and its :class:`Encoding` results.

Example:
    >>> from tokenforge.tokenizer import Tokenizer
    >>> Tokenizer.from_str('{"model": {"type": "WordLevel", "vocab": {"a": 0}, "unk_token": "a"}}').get_vocab_size()
    1
"""

from tokenforge.normalizers.pattern import Regex
from tokenforge.tokenizer.added_vocabulary import AddedToken
from tokenforge.tokenizer.encoding import Encoding
from tokenforge.tokenizer.tokenizer import Tokenizer

__all__ = ["AddedToken", "Encoding", "Regex", "Tokenizer"]
