"""The byte-level vocabularies under test, built both ways from ../shared/models: as
`tiktoken.Encoding` from tiktoken's OWN definitions (the reference) and as `tokenforge.Encoding`
from tokenforge's registry.

The reference never sees tokenforge's patterns, ranks or special tokens: the OpenAI encodings
come from `tiktoken.get_encoding`, offline, through a tiktoken cache folder seeded with the
shared files under the names tiktoken looks for (the sha1 of each file's public URL, see
`tiktoken.load.read_file_cached`); tiktoken checks each file's sha256 itself.  Llama 3 is not in
tiktoken: its reference takes the ranks from tiktoken's `load_tiktoken_bpe` and the pattern and
special tokens written out below from llama-models 0.3.0 (shared/models/MANIFEST.md).  A wrong
pattern, special id or vocabulary size in `tokenforge/registry.py` therefore fails the tests.
"""

from __future__ import annotations

import atexit
import functools
import hashlib
import os
import shutil
import tempfile
import threading
from pathlib import Path

from _shared import MODELS, need_shared

import tokenforge
from tokenforge import patterns

# Compared on every corpus; the three below share their ranks and pattern with one of these.
ENCODINGS = ["r50k_base", "p50k_base", "cl100k_base", "o200k_base", "llama3"]
# Same ranks as r50k_base / p50k_base / o200k_base, other specials (gpt2: ranks from the
# data-gym files): compared on their definitions, specials and a shorter sample.
MORE_ENCODINGS = ["gpt2", "p50k_edit", "o200k_harmony"]
ALL_ENCODINGS = ENCODINGS + MORE_ENCODINGS

_URL = "https://openaipublic.blob.core.windows.net/"
# tiktoken's URL -> the shared file with the same bytes (tiktoken checks their sha256).
_TIKTOKEN_FILES = {
    _URL + "encodings/r50k_base.tiktoken": "r50k_base.tiktoken",
    _URL + "encodings/p50k_base.tiktoken": "p50k_base.tiktoken",
    _URL + "encodings/cl100k_base.tiktoken": "cl100k_base.tiktoken",
    _URL + "encodings/o200k_base.tiktoken": "o200k_base.tiktoken",
    _URL + "gpt-2/encodings/main/vocab.bpe": "gpt2_vocab.bpe",
    _URL + "gpt-2/encodings/main/encoder.json": "gpt2_encoder.json",
}

# llama-models 0.3.0, llama3/tokenizer.py (MANIFEST.md: the older cl100k form).
LLAMA3_PATTERN = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)

_lock = threading.Lock()


def llama3_specials() -> dict[str, int]:
    names = [
        "<|begin_of_text|>", "<|end_of_text|>", "<|reserved_special_token_0|>", "<|reserved_special_token_1|>",
        "<|finetune_right_pad_id|>", "<|step_id|>", "<|start_header_id|>", "<|end_header_id|>", "<|eom_id|>",
        "<|eot_id|>", "<|python_tag|>", "<|image|>",
    ]
    names += [f"<|reserved_special_token_{i}|>" for i in range(2, 246)]
    return {name: 128000 + i for i, name in enumerate(names)}


@functools.lru_cache(maxsize=None)
def tiktoken_cache() -> str:
    """A temporary tiktoken cache folder holding links to the shared files under the names
    tiktoken gives them (removed at exit)."""
    need_shared()
    folder = tempfile.mkdtemp(prefix="tokenforge-tiktoken-cache-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    for url, filename in _TIKTOKEN_FILES.items():
        os.symlink(MODELS / "tiktoken" / filename, Path(folder) / hashlib.sha1(url.encode()).hexdigest())
    return folder


@functools.lru_cache(maxsize=None)
def reference(name: str):
    """tiktoken's own encoding `name` (llama3: built from llama-models' definition)."""
    need_shared()
    import tiktoken
    import tiktoken.load

    if name == "llama3":
        ranks = tiktoken.load.load_tiktoken_bpe(str(MODELS / "tiktoken" / "llama3.tiktoken"))
        return tiktoken.Encoding("llama3", pat_str=LLAMA3_PATTERN, mergeable_ranks=ranks,
                                 special_tokens=llama3_specials())
    with _lock:  # the cache folder is named by an environment variable while tiktoken reads it
        old = os.environ.get("TIKTOKEN_CACHE_DIR")
        os.environ["TIKTOKEN_CACHE_DIR"] = tiktoken_cache()
        try:
            return tiktoken.get_encoding(name)
        finally:
            if old is None:
                del os.environ["TIKTOKEN_CACHE_DIR"]
            else:
                os.environ["TIKTOKEN_CACHE_DIR"] = old


@functools.lru_cache(maxsize=None)
def ours(name: str) -> tokenforge.Encoding:
    """tokenforge's encoding `name`: the registry's (llama3: its own pattern constant and loader)."""
    need_shared()
    if name == "llama3":
        ranks = tokenforge.load_tiktoken_bpe(MODELS / "tiktoken" / "llama3.tiktoken")
        return tokenforge.Encoding("llama3", pat_str=patterns.LLAMA3, mergeable_ranks=ranks,
                                   special_tokens=llama3_specials())
    return tokenforge.get_encoding(name)


def pair(name: str):
    """(tokenforge encoding, tiktoken encoding) for one of ALL_ENCODINGS."""
    return ours(name), reference(name)


def check_lines(name: str, lines: list[str]) -> None:
    """Each line, and all of them joined, encode as tiktoken encodes them."""
    ours_enc, ref = pair(name)
    want = ref.encode_ordinary_batch(lines, num_threads=2)
    got = [ours_enc.encode_ordinary(line) for line in lines]
    for line, a, b in zip(lines, got, want):
        assert a == b, repr(line)
    text = "".join(lines)
    assert ours_enc.encode_ordinary(text) == ref.encode_ordinary(text)
