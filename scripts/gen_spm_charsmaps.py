"""Generate src/tokenforge/spm_train/charsmap_data/<rule>.bin.xz: sentencepiece's built-in
normalization rules as precompiled charsmaps (the bytes NormalizerSpec.precompiled_charsmap
holds), xz-compressed.

Source of truth: sentencepiece itself (PyPI).  For each rule name a tiny model is trained
with `normalization_rule_name=<rule>` and the charsmap is read back from the model file;
no sentencepiece code is copied.  `identity` has no charsmap (an empty one).

Usage: pip install sentencepiece==0.2.3; python scripts/gen_spm_charsmaps.py
"""

from __future__ import annotations

import lzma
import pathlib
import sys
import tempfile

RULES = ["nmt_nfkc", "nfkc", "nmt_nfkc_cf", "nfkc_cf", "identity"]
ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "src" / "tokenforge" / "spm_train" / "charsmap_data"
sys.path.insert(0, str(ROOT / "src"))


def main() -> None:
    import sentencepiece as spm

    from tokenforge.formats.sentencepiece_model import ModelProto

    with tempfile.TemporaryDirectory() as tmp:
        corpus = pathlib.Path(tmp) / "c.txt"
        corpus.write_text("\n".join(f"abc def {i} ghi" for i in range(200)) + "\n")
        for rule in RULES:
            prefix = str(pathlib.Path(tmp) / rule)
            spm.SentencePieceTrainer.train(input=str(corpus), model_prefix=prefix, vocab_size=30,
                                           model_type="char", normalization_rule_name=rule, minloglevel=2)
            charsmap = ModelProto.load(prefix + ".model").normalizer_spec.precompiled_charsmap
            (OUT / f"{rule}.bin.xz").write_bytes(lzma.compress(charsmap))
            print(rule, len(charsmap))


if __name__ == "__main__":
    main()
