"""Writes src/tokenforge/normalizers/hf_unicode_tables.py and onig_classes.py: the Unicode
facts `tokenizers`' normalizers and its regex engine use where they differ from this Python's
`unicodedata` and the `regex` module.

`tokenizers` 0.23.3 normalizes (NFD/NFKD/NFC/NFKC) with Unicode 11.0 tables, lowercases
with Rust's (a newer version), and takes its own tables for StripAccents' marks and
BertNormalizer's control characters.  Every table is read off `tokenizers` itself, one code
point at a time; the set of code points Unicode 11.0 assigns comes from Python 3.7's
`unicodedata` (11.0.0), whose single-character normalizations this script checks to equal
`tokenizers`' on every code point.

    python scripts/gen_hf_unicode_tables.py    (needs tokenizers, and python3.7 through pyenv)
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "src" / "tokenforge" / "normalizers" / "hf_unicode_tables.py"
OUT_ONIG = OUT.with_name("onig_classes.py")
CODE_POINTS = [c for c in range(0x110000) if not 0xD800 <= c < 0xE000]

# Run under Python 3.7: the code points Unicode 11.0 leaves unassigned, and its four
# normalizations of every code point.
_PY37 = r"""
import json, sys, unicodedata
assert unicodedata.unidata_version == "11.0.0", unicodedata.unidata_version
cps = [c for c in range(0x110000) if not 0xD800 <= c < 0xE000]
json.dump({"unassigned": [c for c in cps if unicodedata.category(chr(c)) == "Cn"],
           "forms": {f: [unicodedata.normalize(f, chr(c)) for c in cps] for f in ("NFD", "NFKD", "NFC", "NFKC")}},
          sys.stdout)
"""


def _unicode_11() -> dict:
    import json

    env = dict(os.environ, PYENV_VERSION="3.7.16")
    out = subprocess.run(["python3.7", "-c", _PY37], capture_output=True, text=True, env=env, check=True)
    return json.loads(out.stdout)


def _ranges(cps: list[int]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for c in sorted(cps):
        if out and out[-1][1] == c - 1:
            out[-1] = (out[-1][0], c)
        else:
            out.append((c, c))
    return out


# Classes of split patterns, by the name the rewrite in normalizers/pattern.py looks up, and
# how Oniguruma spells them.
ONIG_CLASSES = {name: rf"\p{{{name}}}" for name in (
    "L", "Lu", "Ll", "Lt", "Lm", "Lo", "M", "Mn", "Mc", "Me", "N", "Nd", "Nl", "No", "P", "Pc", "Pd", "Ps", "Pe",
    "Pi", "Pf", "Po", "S", "Sm", "Sc", "Sk", "So", "Z", "Zs", "Zl", "Zp", "C", "Cc", "Cf", "Co", "Cn",
    "Han", "Hiragana", "Katakana", "Hangul", "Latin", "Cyrillic", "Greek", "Arabic", "Hebrew", "Thai",
    "Devanagari")}
# Oniguruma's \w matches U+00B2, U+00B3, U+00B9, U+00BC-U+00BE alone but not inside a class.
ONIG_CLASSES.update({"w": r"\w", "w_in_class": r"[\w]", "d": r"\d", "s": r"\s"})
# The classes of the native scanners (tokenforge._unicode_probe.PROPERTIES, from tiktoken).
NATIVE_CLASSES = {r"\s": "s", r"\p{Lu}": "Lu", r"\p{Ll}": "Ll", r"\p{Lt}": "Lt", r"\p{Lm}": "Lm",
                  r"\p{Lo}": "Lo", r"\p{M}": "M", r"\p{N}": "N"}


def _onig_members(pattern: str, text: str) -> set[int]:
    """The code points Oniguruma (through tokenizers' Split) matches with a one-character class."""
    from tokenizers import Regex
    from tokenizers import pre_tokenizers as hp

    kept = "".join(w for w, _ in hp.Split(Regex(pattern), behavior="removed").pre_tokenize_str(text))
    return set(CODE_POINTS) - set(map(ord, kept))


def _regex_tables() -> tuple[dict[str, list[tuple[int, int]]], list[int]]:
    """Oniguruma's members of each class of ONIG_CLASSES (checked to equal the native
    scanners' classes, tiktoken's, where both have one)."""
    from tokenforge._unicode_probe import tiktoken_classes

    text = "".join(chr(c) for c in CODE_POINTS)
    onig = {name: _onig_members(pattern, text) for name, pattern in ONIG_CLASSES.items()}
    tik = tiktoken_classes()
    native = sorted(set().union(*[tik[p] ^ onig[name] for p, name in NATIVE_CLASSES.items()]))
    if native:  # the native byte-level path of tokenizer.json files would then need a fallback
        raise SystemExit(f"tiktoken's and Oniguruma's classes differ on {[hex(c) for c in native[:10]]}")
    return {name: _ranges(sorted(members)) for name, members in onig.items()}


def main() -> None:
    from tokenizers import normalizers as hn

    u11 = _unicode_11()
    for form in ("NFD", "NFKD", "NFC", "NFKC"):
        n = getattr(hn, form)()
        bad = [c for c, want in zip(CODE_POINTS, u11["forms"][form]) if n.normalize_str(chr(c)) != want]
        if bad:
            raise SystemExit(f"{form}: tokenizers is not Unicode 11.0 on {[hex(c) for c in bad[:10]]}")
    # Combining classes: tokenizers' are older than its decompositions (Unicode 10.0 and 11.0
    # marks are starters to it).  A mark of class k moves before U+0345 (class 240) in NFD
    # exactly when tokenizers gives it a class in 1..239.
    import unicodedata

    nfd = hn.NFD()
    unassigned = set(u11["unassigned"])
    starters = [c for c in CODE_POINTS
                if 0 < unicodedata.combining(chr(c)) < 240 and c not in unassigned
                and unicodedata.normalize("NFD", chr(c)) == chr(c)
                and nfd.normalize_str("\u0345" + chr(c)) == "\u0345" + chr(c)]
    lower = hn.Lowercase()
    lowercase = {c: lower.normalize_str(chr(c)) for c in CODE_POINTS}
    lowercase = {c: s for c, s in lowercase.items() if s != chr(c)}
    strip = hn.StripAccents()
    marks = [c for c in CODE_POINTS if strip.normalize_str(chr(c)) == ""]
    bert_strip = hn.BertNormalizer(clean_text=False, handle_chinese_chars=False, strip_accents=True, lowercase=False)
    bert_marks = [c for c in CODE_POINTS if bert_strip.normalize_str(chr(c)) == ""]
    clean = hn.BertNormalizer(clean_text=True, handle_chinese_chars=False, strip_accents=False, lowercase=False)
    cleaned = {c: clean.normalize_str(chr(c)) for c in CODE_POINTS}
    dropped = [c for c, s in cleaned.items() if s == ""]
    spaced = [c for c, s in cleaned.items() if s == " " and c != 0x20]
    odd = [c for c, s in cleaned.items() if s not in ("", " ", chr(c))]
    if odd:
        raise SystemExit(f"BertNormalizer clean_text maps {[hex(c) for c in odd[:10]]} to other text")

    onig_classes = _regex_tables()
    from tokenizers import pre_tokenizers as hp

    isolated = lambda pre, c: len(pre.pre_tokenize_str(f"a{chr(c)}b")) == 3  # noqa: E731
    punctuation = [c for c in CODE_POINTS if isolated(hp.Punctuation(), c)]
    numeric = [c for c in CODE_POINTS if isolated(hp.Digits(individual_digits=True), c)]
    # The Whitespace pre-tokenizer's \\w and \\s are the Rust regex crate's, not Oniguruma's.
    words = {c: [w for w, _ in hp.Whitespace().pre_tokenize_str(f"a{chr(c)}b")] for c in CODE_POINTS}
    rust_word = [c for c, w in words.items() if w == [f"a{chr(c)}b"]]
    rust_space = [c for c, w in words.items() if w == ["a", "b"]]

    lines = [
        '"""Unicode facts of `tokenizers` 0.23.3\'s normalizers, where they differ from `unicodedata`.',
        "",
        "Generated by scripts/gen_hf_unicode_tables.py from `tokenizers` itself (and Python 3.7's",
        "Unicode 11.0 `unicodedata`); do not edit.  Ranges are inclusive (first, last) code points.",
        "",
        "- UNASSIGNED_IN_NORMALIZATION: code points Unicode 11.0 leaves unassigned.  `tokenizers`'",
        "  NFD/NFKD/NFC/NFKC use 11.0's tables, so these are starters that never decompose, reorder",
        "  or compose, whatever a newer `unicodedata` says of them.",
        "- STARTERS_IN_NORMALIZATION: code points `unicodedata` gives a combining class that",
        "  `tokenizers`' normalizers take as starters (its combining classes predate Unicode 10.0).",
        "- LOWERCASE: every code point `tokenizers`' Lowercase changes, and what it becomes.",
        "- STRIP_ACCENTS_MARKS: the code points StripAccents removes.",
        "- BERT_MARKS: the code points BertNormalizer's strip_accents removes (after NFD): its own",
        "  table, not StripAccents'.",
        "- BERT_DROPPED / BERT_SPACES: what BertNormalizer's clean_text removes / turns into a space.",
        "- PUNCTUATION: what the Punctuation and Bert pre-tokenizers isolate as punctuation.",
        "- NUMERIC: what the Digits pre-tokenizer takes as digits (Rust's char::is_numeric).",
        "- RUST_WORD / RUST_SPACE: the Whitespace pre-tokenizer's \\\\w and \\\\s (Rust's regex crate).",
        '"""',
        "",
        f"UNASSIGNED_IN_NORMALIZATION = {_ranges(u11['unassigned'])!r}",
        f"STARTERS_IN_NORMALIZATION = {_ranges(starters)!r}",
        f"LOWERCASE = {lowercase!r}",
        f"STRIP_ACCENTS_MARKS = {_ranges(marks)!r}",
        f"BERT_MARKS = {_ranges(bert_marks)!r}",
        f"BERT_DROPPED = {_ranges(dropped)!r}",
        f"BERT_SPACES = {_ranges(spaced)!r}",
        f"PUNCTUATION = {_ranges(punctuation)!r}",
        f"NUMERIC = {_ranges(numeric)!r}",
        f"RUST_WORD = {_ranges(rust_word)!r}",
        f"RUST_SPACE = {_ranges(rust_space)!r}",
        "",
    ]
    onig_lines = [
        '"""The members of Unicode classes in `tokenizers`\' regex engine (Oniguruma), whose Unicode is',
        "older than the `regex` module's: name -> inclusive ranges of code points.  normalizers/pattern.py",
        "writes them into split patterns in place of the class escapes.  The native scanners' classes",
        "(tiktoken's) equal these on every code point (checked when generated).",
        "",
        'Generated by scripts/gen_hf_unicode_tables.py from `tokenizers` itself; do not edit."""',
        "",
        f"ONIG_CLASSES = {onig_classes!r}",
        "",
    ]
    for path, text in ((OUT, lines), (OUT_ONIG, onig_lines)):
        tmp = path.with_suffix(".tmp")
        tmp.write_text("\n".join(text), encoding="utf-8")
        os.replace(tmp, path)
    print(f"wrote {OUT}: {len(u11['unassigned'])} unassigned, {len(lowercase)} lowercase, {len(marks)} marks, "
          f"{len(dropped)} dropped, {len(spaced)} spaces", file=sys.stderr)


if __name__ == "__main__":
    main()
