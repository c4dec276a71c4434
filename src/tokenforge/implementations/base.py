"""BaseTokenizer: the wrapper `tokenizers.implementations` puts around a Tokenizer.

Each ready-made tokenizer (ByteLevelBPETokenizer, CharBPETokenizer, SentencePieceBPETokenizer,
SentencePieceUnigramTokenizer, BertWordPieceTokenizer) builds a `tokenforge.Tokenizer` with a
fixed pipeline and hands the calls on to it, as tokenizers' do; `decode` skips special tokens
by default there, and `save_model` writes the model's files.

Example:
    >>> from tokenforge.implementations import ByteLevelBPETokenizer
    >>> t = ByteLevelBPETokenizer()
    >>> t.train_from_iterator(["hello hello world"], vocab_size=260, min_frequency=1, show_progress=False)
    >>> t.encode("hello").tokens
    ['hello']
"""

from __future__ import annotations

import os

from tokenforge import normalizers

_UNICODE_NORMALIZERS = {"nfc": normalizers.NFC, "nfd": normalizers.NFD, "nfkc": normalizers.NFKC,
                        "nfkd": normalizers.NFKD}


def unicode_normalizer(name: str):
    """The normalizer named "nfc", "nfd", "nfkc" or "nfkd".

    Raises:
        ValueError: another name.
    """
    if name not in _UNICODE_NORMALIZERS:
        raise ValueError(f"{name} is not a known unicode normalizer. Available are {sorted(_UNICODE_NORMALIZERS)}")
    return _UNICODE_NORMALIZERS[name]()


def normalizer_of(steps: list):
    """None, the one normalizer, or a Sequence of them."""
    if not steps:
        return None
    return steps[0] if len(steps) == 1 else normalizers.Sequence(steps)


def files_list(files) -> list:
    """A file or a list of files, as a list."""
    return [files] if isinstance(files, (str, os.PathLike)) else list(files)


class BaseTokenizer:
    """A Tokenizer and the parameters it was made with (module docstring)."""

    def __init__(self, tokenizer, parameters: dict | None = None) -> None:
        self._tokenizer = tokenizer
        self._parameters = parameters if parameters is not None else {}

    def __repr__(self) -> str:
        params = ", ".join(f"{k}={v}" for k, v in self._parameters.items())
        return f"Tokenizer(vocabulary_size={self._tokenizer.get_vocab_size()}, {params})"

    # Calls handed on as they are.
    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self._tokenizer, name)

    def decode(self, ids: list[int], skip_special_tokens: bool = True) -> str:
        return self._tokenizer.decode(ids, skip_special_tokens=skip_special_tokens)

    def decode_batch(self, sequences: list[list[int]], skip_special_tokens: bool = True) -> list[str]:
        return self._tokenizer.decode_batch(sequences, skip_special_tokens=skip_special_tokens)

    def normalize(self, sequence: str) -> str:
        """The text as the normalizer makes it."""
        return self._tokenizer.normalizer.normalize_str(sequence)

    def save_model(self, directory: str | os.PathLike[str], prefix: str | None = None) -> list[str]:
        """The model's files (vocab, merges) written into `directory`."""
        return self._tokenizer.model.save(directory, prefix)

    def save(self, path: str | os.PathLike[str], pretty: bool = True) -> None:
        self._tokenizer.save(path, pretty)

    def to_str(self, pretty: bool = False) -> str:
        return self._tokenizer.to_str(pretty)

    # The pipeline's parts, read and set on the Tokenizer.
    def _part(name: str):  # noqa: N805 (a property maker, used in the class body)
        return property(lambda self: getattr(self._tokenizer, name),
                        lambda self, value: setattr(self._tokenizer, name, value))

    model = _part("model")
    normalizer = _part("normalizer")
    pre_tokenizer = _part("pre_tokenizer")
    post_processor = _part("post_processor")
    decoder = _part("decoder")
    del _part
