"""Datasets in, tokens out: files to token shards (`tokenize_files`), token counts of files
(`count_files`), a folder of shards read back (`TokenDataset`), and the same encoding run
on Ray Data or HF ``datasets`` (`RayEncoder`, `ray_encode`, `hf_encode`).

Each worker holds one tokenizer, sent by name or file (`EncodingRef`), never by its tables.

Example:
    >>> from tokenforge.data import EncodingRef
    >>> EncodingRef("o200k_base").spec
    'o200k_base'
"""

try:
    import numpy  # noqa: F401
except ImportError:
    raise ImportError("tokenforge.data needs numpy: pip install 'tokenforge[numpy]'") from None

from tokenforge.data.count import count_files
from tokenforge.data.distributed import RayEncoder, hf_encode, ray_encode
from tokenforge.data.encoders import EncodingRef, TokenEncoder, as_encoder
from tokenforge.data.reader import TokenDataset
from tokenforge.data.sources import DocumentReader
from tokenforge.data.tokenize import Summary, tokenize_files

__all__ = [
    "DocumentReader",
    "EncodingRef",
    "RayEncoder",
    "Summary",
    "TokenDataset",
    "TokenEncoder",
    "as_encoder",
    "count_files",
    "hf_encode",
    "ray_encode",
    "tokenize_files",
]
