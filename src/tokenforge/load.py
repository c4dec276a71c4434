"""tiktoken's `tiktoken.load` module, for code written against it: the rank-file and
data-gym readers, which live in :mod:`tokenforge.formats`.
"""

from __future__ import annotations

from tokenforge.formats.data_gym import data_gym_to_mergeable_bpe_ranks
from tokenforge.formats.tiktoken_bpe import dump_tiktoken_bpe, load_tiktoken_bpe, parse_tiktoken_bpe

__all__ = ["data_gym_to_mergeable_bpe_ranks", "dump_tiktoken_bpe", "load_tiktoken_bpe", "parse_tiktoken_bpe"]
