"""tokenforge.decoders against `tokenizers` 0.23.3: random decoders and chains of them (every
type, random options) on random token lists made of the pieces decoders look for (byte
tokens, ▁, Ġ, ##, suffixes, pad and delimiter tokens). Where tokenizers panics (Strip past a
token's end) nothing is compared: we return a string there."""

from __future__ import annotations

import json
import random

import pytest

from tokenforge import decoders

tokenizers = pytest.importorskip("tokenizers")
hd = tokenizers.decoders

PIECES = ["a", "Ġ", "▁", "##", "<0x41>", "<0xE4>", "<0xB8>", "<0xAD>", "<0xFF>", " ", "", "ab", "Ċ", "</w>", "x", "é",
          "中", "<pad>", "▁▁", "  ", "\n", "<unk>", "<0x0A>", "##b", "|", " .", " n't", " 's"]


def _decoder(r: random.Random):
    kinds = [
        lambda: hd.ByteLevel(),
        lambda: hd.Metaspace(replacement=r.choice(["▁", "_"]), prepend_scheme=r.choice(["always", "first", "never"]),
                             split=r.random() < .5),
        lambda: hd.WordPiece(prefix=r.choice(["##", "@@"]), cleanup=r.random() < .5),
        lambda: hd.Replace(r.choice(["▁", "a", " "]), r.choice([" ", "", "x"])),
        lambda: hd.ByteFallback(),
        lambda: hd.Fuse(),
        lambda: hd.Strip(r.choice(["▁", " ", "a"]), r.randint(0, 2), r.randint(0, 2)),
        lambda: hd.BPEDecoder(suffix=r.choice(["</w>", "x"])),
        lambda: hd.CTC(pad_token=r.choice(["<pad>", "a"]), word_delimiter_token=r.choice(["|", "▁"]), cleanup=r.random() < .5),
    ]
    k = r.randint(1, 4)
    return hd.Sequence([r.choice(kinds)() for _ in range(k)]) if k > 1 else r.choice(kinds)()


@pytest.mark.parametrize("block", range(4))
def test_random_decoders(block):
    for seed in range(block * 300, block * 300 + 300):
        r = random.Random(seed)
        ref = _decoder(r)
        spec = json.loads(ref.__getstate__())
        ours = decoders.from_dict(spec)
        for _ in range(8):
            tokens = [r.choice(PIECES) + (r.choice(PIECES) if r.random() < .3 else "") for _ in range(r.randint(0, 8))]
            try:
                want = ref.decode(tokens)
            except BaseException:  # noqa: BLE001 (a Rust panic)
                continue
            assert ours.decode(tokens) == want, (spec, tokens)
