"""Writes test text that no tuning here has seen, from what every machine of this kind has:

    python benchmarks/unseen_text.py OUT_DIR [--mb 1]

- unseen_code.txt: CPython's own test suite (the newest Lib/test under pyenv's root, or
  this Python's), code in another style than the corpus's;
- unseen_multi.txt: lines of words from glibc's locale files (month and day names, ...,
  in ~300 locales and scripts), random order, then the CJK sample texts of CPython's
  cjkencodings tests;
- unseen_messages.txt: the translated messages of the gettext catalogs (.mo) under
  /usr/share (coreutils, vim, apt, ... in ~100 languages), a file's messages in order and
  the files in random order: real sentences, prose and UI strings, in many scripts;
- unseen_words.txt: random lower-case words drawn with English letter frequencies;
- rand_letters.txt: random letters without spaces (every piece long and new).

Files are cut to --mb million characters; the same seed gives the same text on the same machine.
"""

from __future__ import annotations

import argparse
import glob
import os
import random
import re
import struct
import subprocess
import sys
import sysconfig


def python_libs() -> list[str]:
    """Lib folders of the CPythons on this machine, newest first."""
    libs = []
    try:
        root = subprocess.run(["pyenv", "root"], capture_output=True, text=True, check=True).stdout.strip()
        libs = sorted(glob.glob(f"{root}/versions/3.*/lib/python3.*"), reverse=True)
    except (OSError, subprocess.CalledProcessError):
        pass
    return libs + [sysconfig.get_paths()["stdlib"]]


def code_text(limit: int) -> str:
    for lib in python_libs():
        files = sorted(glob.glob(f"{lib}/test/test_*.py"))
        if files:
            break
    buf, n = [], 0
    for f in files:
        with open(f, encoding="utf-8", errors="replace") as fh:
            t = fh.read()
        buf.append(t)
        n += len(t)
        if n > limit:
            break
    return "".join(buf)


def multi_text(limit: int, rnd: random.Random) -> str:
    words = []
    for f in sorted(glob.glob("/usr/share/i18n/locales/*")):
        if not os.path.isfile(f):
            continue
        with open(f, encoding="utf-8", errors="replace") as fh:
            t = fh.read()
        for s in re.findall(r'"((?:<U[0-9A-Fa-f]{4,8}>)+)"', t):
            w = "".join(chr(int(u, 16)) for u in re.findall(r"<U([0-9A-Fa-f]{4,8})>", s))
            if any(ord(c) > 127 for c in w) and not any(0xD800 <= ord(c) < 0xE000 for c in w):
                words.append(w)
    if not words:
        sys.exit("no glibc locale files in /usr/share/i18n/locales")
    lines = [" ".join(rnd.choice(words) for _ in range(rnd.randint(3, 12))) for _ in range(40000)]
    for lib in python_libs():
        for f in sorted(glob.glob(f"{lib}/test/cjkencodings/*-utf8.txt")):
            with open(f, encoding="utf-8", errors="replace") as fh:
                lines.append(fh.read())
        if len(lines) > 40000:
            break
    text = "\n".join(lines)
    return text[-limit:] if len(text) > limit else text  # keep the CJK texts at the end


def _mo_messages(path: str) -> list[str]:
    """The translated strings of one gettext .mo file (UTF-8 catalogs only)."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 28:
        return []
    order = "<" if data[:4] == b"\xde\x12\x04\x95" else ">" if data[:4] == b"\x95\x04\x12\xde" else ""
    if not order:
        return []
    n, _, trans = struct.unpack_from(order + "3I", data, 8)
    out = []
    for i in range(n):
        length, offset = struct.unpack_from(order + "2I", data, trans + 8 * i)
        raw = data[offset : offset + length]
        if i == 0:  # the header: skip catalogs not in UTF-8
            if b"charset=utf-8" not in raw.lower() and b"charset=utf8" not in raw.lower():
                return []
            continue
        try:
            out.extend(s for s in raw.decode("utf-8").split("\0") if s.strip())
        except UnicodeDecodeError:
            continue
    return out


def messages_text(limit: int, rnd: random.Random) -> str:
    files = sorted(glob.glob("/usr/share/**/*.mo", recursive=True))
    rnd.shuffle(files)
    out, n = [], 0
    for f in files:
        for m in _mo_messages(f):
            out.append(m)
            n += len(m) + 1
        if n > limit:
            break
    if not out:
        sys.exit("no gettext catalogs (.mo) under /usr/share")
    return "\n".join(out)


def words_text(limit: int, rnd: random.Random) -> str:
    letters = "etaoinshrdlcumwfgypbvkjxqz"
    weights = [12, 9, 8, 8, 7, 7, 6, 6, 6, 4, 4, 3, 3, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1]
    out, n = [], 0
    while n < limit:
        w = "".join(rnd.choices(letters, weights, k=rnd.randint(2, 11)))
        out.append(w)
        n += len(w) + 1
    return " ".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--mb", type=float, default=1.0)
    args = ap.parse_args()
    limit = int(args.mb * 1_000_000)
    rnd = random.Random(7)
    os.makedirs(args.out, exist_ok=True)
    texts = {
        "unseen_code": code_text(limit),
        "unseen_multi": multi_text(limit, rnd),
        "unseen_messages": messages_text(limit, random.Random(11)),
        "unseen_words": words_text(limit, rnd),
        "rand_letters": "".join(rnd.choices("abcdefghijklmnopqrstuvwxyz", k=limit)),
    }
    for name, text in texts.items():
        path = os.path.join(args.out, f"{name}.txt")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text[:limit])
        print(f"{path}: {len(text[:limit].encode()) / 1e6:.2f} MB")


if __name__ == "__main__":
    main()
