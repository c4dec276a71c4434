"""minbpe's faces: `BasicTokenizer`, `RegexTokenizer` and `GPT4Tokenizer` with Karpathy's minbpe API.

The same names, methods and files as minbpe (``train``, ``encode``, ``encode_ordinary``,
``decode``, ``register_special_tokens``, ``save`` / ``load`` of ``.model`` and ``.vocab``),
with the per-byte work native: training learns exactly minbpe's merges (its tie rule
included) and encoding runs tokenforge's byte-pair merge.  The layout follows minbpe's,
built up step by step: :mod:`.reference` (the algorithm in plain Python, the tests' oracle),
:mod:`.base`, :mod:`.basic`, :mod:`.regex`, :mod:`.gpt4`.

Example:
    >>> tok = RegexTokenizer()
    >>> tok.train("low lower lowest " * 5, 256 + 3)
    >>> tok.decode(tok.encode("lowest")), tok.encode(" lowest")  # 258 is " low"
    ('lowest', [258, 101, 115, 116])
"""

from tokenforge.minbpe.basic import BasicTokenizer
from tokenforge.minbpe.gpt4 import GPT4_SPECIAL_TOKENS, GPT4Tokenizer
from tokenforge.minbpe.regex import GPT2_SPLIT_PATTERN, GPT4_SPLIT_PATTERN, RegexTokenizer

__all__ = [
    "BasicTokenizer",
    "RegexTokenizer",
    "GPT4Tokenizer",
    "GPT2_SPLIT_PATTERN",
    "GPT4_SPLIT_PATTERN",
    "GPT4_SPECIAL_TOKENS",
]
