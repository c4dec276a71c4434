"""Named encodings: `get_encoding("cl100k_base")`, `encoding_for_model("gpt-4o")`.

Rank files are looked up, in order, in the folder named by ``TOKENFORGE_MODELS_DIR``
(``<name>.tiktoken``), in tiktoken's cache (``TIKTOKEN_CACHE_DIR`` or the system temp
folder's ``data-gym-cache``, where tiktoken stores files by the sha1 of their URL), and
finally downloaded from OpenAI's public URL with the sha256 checked.  Offline, the error
says where to put the file.

Patterns and special tokens are tiktoken's (``tiktoken_ext/openai_public.py``).

Example:
    >>> sorted(list_encoding_names())[:3]
    ['cl100k_base', 'gpt2', 'o200k_base']
"""

from __future__ import annotations

import functools
import hashlib
import os
import tempfile
import threading

from tokenforge import patterns
from tokenforge.core import Encoding
from tokenforge.formats.tiktoken_bpe import parse_tiktoken_bpe

ENDOFTEXT = "<|endoftext|>"
FIM_PREFIX = "<|fim_prefix|>"
FIM_MIDDLE = "<|fim_middle|>"
FIM_SUFFIX = "<|fim_suffix|>"
ENDOFPROMPT = "<|endofprompt|>"

_BASE_URL = "https://openaipublic.blob.core.windows.net/encodings/"

# name -> (rank file, its sha256)
_RANK_FILES = {
    "r50k_base": ("r50k_base.tiktoken", "306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930"),
    "p50k_base": ("p50k_base.tiktoken", "94b5ca7dff4d00767bc256fdd1b27e5b17361d7b8a5f968547f9f23eb70d2069"),
    "cl100k_base": ("cl100k_base.tiktoken", "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"),
    "o200k_base": ("o200k_base.tiktoken", "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"),
}


def _harmony_specials() -> dict[str, int]:
    """o200k_base's specials, then the harmony chat tokens and reserved ids up to 201087.

    ``<|endofprompt|>`` and ``<|reserved_200018|>`` are both 200018, as in tiktoken: either
    encodes to it, and it decodes to ``<|endofprompt|>``, the first given.
    """
    named = {
        "<|startoftext|>": 199998,
        ENDOFTEXT: 199999,
        "<|return|>": 200002,
        "<|constrain|>": 200003,
        "<|channel|>": 200005,
        "<|start|>": 200006,
        "<|end|>": 200007,
        "<|message|>": 200008,
        "<|call|>": 200012,
    }
    by_id = {i: name for name, i in named.items()}
    specials = {ENDOFTEXT: 199999, ENDOFPROMPT: 200018, "<|startoftext|>": 199998}
    for i in range(200000, 201088):
        specials[by_id.get(i, f"<|reserved_{i}|>")] = i
    return specials


# name -> (rank file name, pattern, specials, explicit_n_vocab)
_ENCODINGS: dict[str, tuple[str, str, dict[str, int], int | None]] = {
    "gpt2": ("r50k_base", patterns.GPT2, {ENDOFTEXT: 50256}, 50257),
    "r50k_base": ("r50k_base", patterns.GPT2, {ENDOFTEXT: 50256}, 50257),
    "p50k_base": ("p50k_base", patterns.GPT2, {ENDOFTEXT: 50256}, 50281),
    "p50k_edit": (
        "p50k_base",
        patterns.GPT2,
        {ENDOFTEXT: 50256, FIM_PREFIX: 50281, FIM_MIDDLE: 50282, FIM_SUFFIX: 50283},
        None,
    ),
    "cl100k_base": (
        "cl100k_base",
        patterns.CL100K,
        {ENDOFTEXT: 100257, FIM_PREFIX: 100258, FIM_MIDDLE: 100259, FIM_SUFFIX: 100260, ENDOFPROMPT: 100276},
        None,
    ),
    "o200k_base": ("o200k_base", patterns.O200K, {ENDOFTEXT: 199999, ENDOFPROMPT: 200018}, None),
    "o200k_harmony": ("o200k_base", patterns.O200K, _harmony_specials(), None),
}

_lock = threading.RLock()


def list_encoding_names() -> list[str]:
    """The names `get_encoding` knows."""
    return list(_ENCODINGS)


def _cached_rank_file(rank_name: str) -> bytes:
    """The bytes of a rank file, from the models folder, tiktoken's cache or the web."""
    filename, sha256 = _RANK_FILES[rank_name]
    tried = []
    models_dir = os.environ.get("TOKENFORGE_MODELS_DIR")
    if models_dir:
        path = os.path.join(models_dir, filename)
        tried.append(path)
        if os.path.exists(path):
            with open(path, "rb") as f:
                data = f.read()
            _check_hash(data, sha256, path)
            return data
    url = _BASE_URL + filename
    cache_dir = os.environ.get("TIKTOKEN_CACHE_DIR") or os.environ.get("DATA_GYM_CACHE_DIR") or os.path.join(
        tempfile.gettempdir(), "data-gym-cache"
    )
    cache_path = os.path.join(cache_dir, hashlib.sha1(url.encode()).hexdigest())
    tried.append(cache_path)
    if os.path.exists(cache_path):
        with open(cache_path, "rb") as f:
            data = f.read()
        if hashlib.sha256(data).hexdigest() == sha256:
            return data
    try:
        import urllib.request  # only on a download: it pulls in ssl, email and http

        with urllib.request.urlopen(url, timeout=30) as response:
            data = response.read()
    except OSError as e:
        raise OSError(
            f"cannot find {filename} for encoding {rank_name!r} and cannot download it ({e}). "
            f"Put the file in a folder and set TOKENFORGE_MODELS_DIR to it. Looked in: {', '.join(tried)}"
        ) from None
    _check_hash(data, sha256, url)
    try:
        os.makedirs(cache_dir, exist_ok=True)
        from tokenforge._files import write_atomic

        write_atomic(cache_path, data)
    except OSError:
        pass
    return data


def _check_hash(data: bytes, sha256: str, where: str) -> None:
    actual = hashlib.sha256(data).hexdigest()
    if actual != sha256:
        raise ValueError(f"{where}: sha256 is {actual}, expected {sha256}; the file is not the official one")


@functools.lru_cache(maxsize=None)
def _ranks(rank_name: str) -> dict[bytes, int]:
    return parse_tiktoken_bpe(_cached_rank_file(rank_name), _RANK_FILES[rank_name][0])


def get_encoding(encoding_name: str) -> Encoding:
    """The named encoding (cached: the same object each call).

    Raises:
        ValueError: the name is unknown.
        OSError: the rank file is not available locally and cannot be downloaded.
    """
    if encoding_name not in _ENCODINGS:
        raise ValueError(f"Unknown encoding {encoding_name!r}; known: {', '.join(_ENCODINGS)}")
    with _lock:
        return _get_encoding(encoding_name, os.environ.get("TOKENFORGE_MODELS_DIR"))


def _registered(encoding_name: str) -> Encoding | None:
    """The registry's encoding of that name if it was already made here, else None (never loads)."""
    if encoding_name not in _ENCODINGS:
        return None
    with _lock:
        return _made.get((encoding_name, os.environ.get("TOKENFORGE_MODELS_DIR")))


_made: dict[tuple[str, str | None], Encoding] = {}


@functools.lru_cache(maxsize=None)
def _get_encoding(encoding_name: str, _models_dir: str | None) -> Encoding:
    rank_name, pat_str, specials, n_vocab = _ENCODINGS[encoding_name]
    encoding = Encoding(
        encoding_name,
        pat_str=pat_str,
        mergeable_ranks=_ranks(rank_name),
        special_tokens=specials,
        explicit_n_vocab=n_vocab,
    )
    _made[(encoding_name, _models_dir)] = encoding
    return encoding


MODEL_PREFIX_TO_ENCODING: dict[str, str] = {
    "o1-": "o200k_base",
    "o3-": "o200k_base",
    "o4-mini-": "o200k_base",
    "gpt-5": "o200k_base",
    "gpt-4.5-": "o200k_base",
    "gpt-4.1-": "o200k_base",
    "chatgpt-4o-": "o200k_base",
    "gpt-4o-": "o200k_base",
    "gpt-4-": "cl100k_base",
    "gpt-3.5-turbo-": "cl100k_base",
    "gpt-35-turbo-": "cl100k_base",
    "gpt-oss-": "o200k_harmony",
    "ft:gpt-4o": "o200k_base",
    "ft:gpt-4": "cl100k_base",
    "ft:gpt-3.5-turbo": "cl100k_base",
    "ft:davinci-002": "cl100k_base",
    "ft:babbage-002": "cl100k_base",
}

MODEL_TO_ENCODING: dict[str, str] = {
    "o1": "o200k_base",
    "o3": "o200k_base",
    "o4-mini": "o200k_base",
    "gpt-5": "o200k_base",
    "gpt-4.1": "o200k_base",
    "gpt-4o": "o200k_base",
    "gpt-4": "cl100k_base",
    "gpt-3.5-turbo": "cl100k_base",
    "gpt-3.5": "cl100k_base",
    "gpt-35-turbo": "cl100k_base",
    "davinci-002": "cl100k_base",
    "babbage-002": "cl100k_base",
    "text-embedding-ada-002": "cl100k_base",
    "text-embedding-3-small": "cl100k_base",
    "text-embedding-3-large": "cl100k_base",
    "text-davinci-003": "p50k_base",
    "text-davinci-002": "p50k_base",
    "text-davinci-001": "r50k_base",
    "text-curie-001": "r50k_base",
    "text-babbage-001": "r50k_base",
    "text-ada-001": "r50k_base",
    "davinci": "r50k_base",
    "curie": "r50k_base",
    "babbage": "r50k_base",
    "ada": "r50k_base",
    "code-davinci-002": "p50k_base",
    "code-davinci-001": "p50k_base",
    "code-cushman-002": "p50k_base",
    "code-cushman-001": "p50k_base",
    "davinci-codex": "p50k_base",
    "cushman-codex": "p50k_base",
    "text-davinci-edit-001": "p50k_edit",
    "code-davinci-edit-001": "p50k_edit",
    "text-similarity-davinci-001": "r50k_base",
    "text-similarity-curie-001": "r50k_base",
    "text-similarity-babbage-001": "r50k_base",
    "text-similarity-ada-001": "r50k_base",
    "text-search-davinci-doc-001": "r50k_base",
    "text-search-curie-doc-001": "r50k_base",
    "text-search-babbage-doc-001": "r50k_base",
    "text-search-ada-doc-001": "r50k_base",
    "code-search-babbage-code-001": "r50k_base",
    "code-search-ada-code-001": "r50k_base",
    "gpt2": "gpt2",
    "gpt-2": "gpt2",
}


def encoding_name_for_model(model_name: str) -> str:
    """The encoding name a model uses.

    Raises:
        KeyError: the model is unknown.

    >>> encoding_name_for_model("gpt-4o-2024-05-13")
    'o200k_base'
    """
    if model_name in MODEL_TO_ENCODING:
        return MODEL_TO_ENCODING[model_name]
    for prefix, name in MODEL_PREFIX_TO_ENCODING.items():
        if model_name.startswith(prefix):
            return name
    raise KeyError(
        f"Could not automatically map {model_name} to a tokeniser. "
        "Please use `tokenforge.get_encoding` to explicitly get the tokeniser you expect."
    )


def encoding_for_model(model_name: str) -> Encoding:
    """The encoding a model uses (see `encoding_name_for_model`)."""
    return get_encoding(encoding_name_for_model(model_name))
