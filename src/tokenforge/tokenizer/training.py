"""Training a Tokenizer's model from texts, as `tokenizers`' `Tokenizer.train` and
`train_from_iterator` do: each text is split at the added tokens, normalized and pre-tokenized,
its pieces (an added token's text among them) are counted by the trainer, the model is replaced
by the trained one and the trainer's special tokens are added.

Files are read line by line, each line with its line break (tokenizers keeps `\\n` and `\\r`);
an iterator may yield strs or lists of strs (batches).
"""

from __future__ import annotations

import os

from tokenforge.tokenizer.pipeline import split_added_and_normalize


def pieces(tok, text: str) -> list[str]:
    """The pieces of `text` a trainer counts."""
    if not isinstance(text, str):
        raise TypeError(f"training texts must be str, got {type(text).__name__}")
    out = []
    for ns, tid in split_added_and_normalize(text, tok.normalizer, tok.added):
        if tid is not None:
            out.append(ns.text)
            continue
        for piece in (tok.pre_tokenizer.split(ns) if tok.pre_tokenizer is not None else [ns]):
            if piece.text:
                out.append(piece.text)
    return out


def texts_of(iterator):
    """The texts of an iterator of strs or of lists of strs."""
    for item in iterator:
        if isinstance(item, str):
            yield item
        else:
            yield from item


def lines_of(files: list) -> object:
    """The lines of the files in order, each with its line break.

    Raises:
        OSError: a file cannot be read.
        ValueError: a file that is not UTF-8 (naming it and the line).
    """
    for path in files:
        with open(path, "rb") as f:
            for number, raw in enumerate(f, 1):
                try:
                    yield raw.decode("utf-8")
                except UnicodeDecodeError as e:
                    raise ValueError(f"{os.fspath(path)}: line {number} is not UTF-8: {e}") from None


def train(tok, texts, trainer) -> None:
    """Trains `tok`'s model on `texts` with `trainer` (the model's default trainer if None)."""
    if trainer is None:
        trainer = default_trainer(tok.model)
    trainer.feed(pieces(tok, t) for t in texts)
    tok.model = trainer.train(tok.model)
    tok.add_special_tokens(trainer.special_added_tokens())


def default_trainer(model):
    """The trainer tokenizers gives a model when none is passed."""
    from tokenforge import trainers
    from tokenforge.models import BPE, WordLevel, WordPiece

    for kind, make in ((BPE, trainers.BpeTrainer), (WordPiece, trainers.WordPieceTrainer),
                       (WordLevel, trainers.WordLevelTrainer)):
        if isinstance(model, kind):
            return make()
    raise ValueError(f"no trainer for a {type(model).__name__} model in tokenforge (tokenizers' UnigramTrainer "
                     "is not provided; tokenforge.SentencePieceTrainer trains Unigram models as sentencepiece does)")
