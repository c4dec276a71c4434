"""UBPE: byte-pair encoding over any symbols, compatible with PyPI `ubpe` 0.3.0.

`UBPEClassic` encodes by pair merges in vocabulary order; `UBPE` ("universal") searches every
segmentation into vocabulary strings and returns the `top_n` best by tf-idf weight.  Both fit
on a list of documents (strings, bytes, or lists/tuples of any one hashable symbol type),
dump and load `ubpe`'s JSON, and encode batches on threads.

Example:
    >>> from tokenforge.ubpe import UBPE
    >>> m = UBPE("abc", n_tokens=5)
    >>> m.fit(["abcabc", "abab"])
    >>> m.decode(m.encode("abcab")[0][0])
    'abcab'
"""

from tokenforge.ubpe.classic import UBPEClassic
from tokenforge.ubpe.universal import UBPE

__all__ = ["UBPE", "UBPEClassic"]
