"""Loading a .model file natively (the fast path) gives what the full Python parser gives.

The native reader takes only well-formed files of the usual shape and hands anything else
to ModelProto, so a file either loads the same both ways or fails the same way
(ValueError), including truncated and corrupted files.
"""

from __future__ import annotations

import random

import pytest
from _shared import MODELS as SHARED_MODELS

from tokenforge.sentencepiece import SentencePieceProcessor
from tokenforge.formats.sentencepiece_model import ModelProto

SPM_DIR = SHARED_MODELS / "sentencepiece"
PATHS = sorted(SPM_DIR.glob("*.model")) if SPM_DIR.is_dir() else []


def vocab(sp: SentencePieceProcessor) -> tuple:
    n = sp.get_piece_size()
    return ([sp.id_to_piece(i) for i in range(n)], [sp.get_score(i) for i in range(n)],
            [(sp.is_unknown(i), sp.is_control(i), sp.is_unused(i), sp.is_byte(i)) for i in range(n)],
            [sp.piece_to_id(sp.id_to_piece(i)) for i in range(n)])


def outcome(load) -> tuple:
    try:
        sp = load()
    except ValueError:
        return ("ValueError",)
    return ("ok", vocab(sp), sp.encode("Hello wörld 123 ▁x"))


@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.name)
def test_same_as_full_parser(path):
    data = path.read_bytes()
    fast = SentencePieceProcessor(model_file=str(path))
    full = SentencePieceProcessor(model_proto=ModelProto.from_bytes(data))
    assert vocab(fast) == vocab(full)
    assert fast.serialized_model_proto() == data  # read -> write stays byte-identical


@pytest.mark.skipif(not PATHS, reason="no shared SentencePiece models")
def test_corrupt_files_fail_or_load_alike():
    rng = random.Random(3)
    data = (SPM_DIR / "botchan_en_unigram_1000.model").read_bytes()
    for trial in range(300):
        bad = bytearray(data)
        if trial % 3 == 0:
            bad = bad[:rng.randrange(len(bad))]
        else:
            for _ in range(rng.randint(1, 4)):
                bad[rng.randrange(len(bad))] = rng.randrange(256)
        bad = bytes(bad)

        def full(b=bad):
            return SentencePieceProcessor(model_proto=ModelProto.from_bytes(b))

        assert outcome(lambda: SentencePieceProcessor(model_proto=bad)) == outcome(full)
