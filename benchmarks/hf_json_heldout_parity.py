"""Every tokenizer.json of ../shared/models/hf against HF tokenizers on held-out text.

The parity tests sample the shared corpora; this runs text none of the code was written
against (`python benchmarks/unseen_text.py DIR` writes it): from each file of DIR, shuffled
lines and runs of eight lines, or, for a file that is one long line, random slices of up to
3,000 characters.  Each tokenizer runs with truncation and padding off and then as the file
configures it, with and without special tokens: `encode_batch` (ids, offsets, tokens, word
ids, type ids, masks, overflow count), `encode_batch_fast` ids, and `decode_batch` of the ids
with and without `skip_special_tokens`.  Prints the differences (the first few texts) and
their count per file.

    python benchmarks/hf_json_heldout_parity.py DIR [--lines 600] [--seed 7]
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

from _common import MODELS

FIELDS = ("ids", "offsets", "tokens", "word_ids", "type_ids", "attention_mask", "special_tokens_mask")


def held_out(folder: Path, per_file: int, rng: random.Random) -> list[str]:
    texts: list[str] = []
    for f in sorted(p for p in folder.iterdir() if p.is_file()):
        data = f.read_text(encoding="utf-8", errors="replace")
        lines = data.split("\n")
        if len(lines) < 10:  # one long line: slices of random length
            for _ in range(per_file // 2):
                k = rng.randrange(max(1, len(data) - 3000))
                texts.append(data[k:k + rng.randrange(1, 3000)])
            continue
        rng.shuffle(lines)
        texts += [ln for ln in lines[:per_file] if ln]
        for _ in range(per_file // 6):
            k = rng.randrange(max(1, len(lines) - 8))
            texts.append("\n".join(lines[k:k + 8]))
    return texts


def compare(path: Path, texts: list[str], show: int) -> int:
    import tokenizers

    from tokenforge.tokenizer import Tokenizer

    diffs = 0
    for configured in (False, True):
        ref, ours = tokenizers.Tokenizer.from_file(str(path)), Tokenizer.from_file(str(path))
        if not configured:
            for t in (ref, ours):
                t.no_truncation()
                t.no_padding()
        for special in (True, False):
            a, b = ref.encode_batch(texts, add_special_tokens=special), ours.encode_batch(texts, add_special_tokens=special)
            for text, x, y in zip(texts, a, b):
                if any(getattr(x, f) != getattr(y, f) for f in FIELDS) or len(x.overflowing) != len(y.overflowing):
                    diffs += 1
                    if diffs <= show:
                        print(f"  {path.name} configured={configured} special={special}: {text[:80]!r}")
            fast_a = ref.encode_batch_fast(texts, add_special_tokens=special)
            fast_b = ours.encode_batch_fast(texts, add_special_tokens=special)
            bad = sum(x.ids != y.ids for x, y in zip(fast_a, fast_b))
            ids = [x.ids for x in a]
            for skip in (True, False):
                bad += ref.decode_batch(ids, skip_special_tokens=skip) != ours.decode_batch(ids, skip_special_tokens=skip)
            if bad and diffs < show:
                print(f"  {path.name} configured={configured} special={special}: {bad} fast-ids or decode differences")
            diffs += bad
    return diffs


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("folder", type=Path, help="held-out text (benchmarks/unseen_text.py DIR)")
    ap.add_argument("--lines", type=int, default=600, help="lines taken from each file")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--show", type=int, default=5)
    args = ap.parse_args()
    texts = held_out(args.folder, args.lines, random.Random(args.seed))
    print(f"{len(texts)} held-out texts from {args.folder}")
    total = 0
    for path in sorted((MODELS / "hf").glob("*.json")):
        n = compare(path, texts, args.show)
        total += n
        print(f"{path.name:40} {n} differences", flush=True)
    print(f"total {total} differences")


if __name__ == "__main__":
    main()
