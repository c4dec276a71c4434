"""Texts past the 32-bit limits (issue 32, item 4): a str of 2^31 characters and inputs of
over 4 GiB either encode correctly or raise ValueError, never wrap an offset silently.

Each case builds its input, runs it, checks the outcome and prints its time and the peak
RSS.  "Correctly" is checked without a second tokenizer (tiktoken takes many minutes on
gigabytes): the texts repeat a unit that begins with a space before a letter and ends in a
letter, so every unit boundary is a place where the pattern's pieces are cut whatever
surrounds it (tokenforge/_cuts.py), and the ids must be the unit's ids repeated.

    python benchmarks/large_inputs.py [CASE_SUBSTRING]

Needs about 16 GB of free memory (the UTF-8 case peaks at 15 GiB; each case frees its input
before the next).  The CHEAP
cases (the refusals and the 2^31-character ASCII str, under half a minute of CPU) also run in
tests/unit/test_large_inputs.py when that much is free; the HEAVY ones take longer and run
there only with TOKENFORGE_BIG_INPUTS=1.

Left out: tokenizer.json encodes of gigabyte texts that fit the limits (Encoding objects of
some 10^9 tokens: tens of GB of Python lists), SentencePiece encodes of a gigabyte text that fits the limits (its lattice and
token arrays take tens of bytes per byte: a memory benchmark of its own), and
`Encoding._encode_bytes` of over 4 GiB (its list of some 10^9 ids alone takes 8 GB; its
pieces are refused past 4 GiB, case_piece_over_4gib).
"""

from __future__ import annotations

import resource
import sys
import time

GIB = 1 << 30
UNIT = " the quick brown fox jumps over a lazy dog"  # ASCII: UTF-8 size == length
LATIN1_UNIT = " d\xe9j\xe0 vu caf\xe9 na\xefve \xe9t\xe9 r\xe9sum\xe9"  # 1 byte a char in a str, up to 2 in UTF-8


def repeated(unit: str, at_least: int) -> tuple[str, int]:
    """(unit * k, k) with len >= at_least characters."""
    k = -(-at_least // len(unit))
    return unit * k, k


def free_bytes() -> int:
    """MemAvailable from /proc/meminfo (0 where it cannot be read)."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def _expect_value_error(call, words: str) -> str:
    try:
        call()
    except ValueError as e:
        assert words in str(e), str(e)
        return str(e)
    raise AssertionError(f"expected a ValueError mentioning {words!r}")


# ---- refusals -----------------------------------------------------------------------------

def case_piece_over_4gib(enc, sp) -> str:
    """Encoding._encode_single_piece of bytes over 4 GiB: the merge indexes a piece with
    32-bit positions, so the piece is refused."""
    data = b"a" * (4 * GIB + 16)
    return _expect_value_error(lambda: enc._encode_single_piece(data), "longer than the 4 GiB")


def case_spm_bytes_over_4gib(enc, sp) -> str:
    """SentencePieceProcessor.encode (ids, pieces, n-best, normalize) of bytes over 4 GiB:
    its offsets are 32-bit, so the text is refused before it is normalized."""
    data = b"a b " * (GIB + 4)
    for call in [lambda: sp.encode(data), lambda: sp.encode(data, out_type=str), lambda: sp.encode([b"x", data]),
                 lambda: sp.normalize(data)]:
        message = _expect_value_error(call, "a text of 4294967312 bytes")
    return message


def case_spm_normalized_over_4gib(enc, sp) -> str:
    """A str under 4 GiB whose normalized form is over it (each space becomes the 3-byte
    U+2581): refused once normalized."""
    text = " " * (3 * GIB // 2)
    return _expect_value_error(lambda: sp.encode(text), "a normalized text of")


def _hf_tokenizer(name: str):
    """A tokenizer.json file of ../shared/models/hf as a tokenforge Tokenizer (no truncation)."""
    from pathlib import Path

    here = str(Path(__file__).resolve().parent)
    if here not in sys.path:
        sys.path.insert(0, here)
    from _common import MODELS

    from tokenforge.tokenizer import Tokenizer

    tok = Tokenizer.from_file(str(MODELS / "hf" / name))
    tok.no_truncation()
    tok.no_padding()
    return tok


def case_hf_json_str_over_4gib(enc, sp) -> str:
    """tokenizer.json files on their native paths with 32-bit offsets (SpmStyleEncoder for
    Mistral, BertEncoder for MiniLM): Tokenizer.encode, encode_batch and encode_batch_fast of
    an ASCII str over 4 GiB are refused before anything is normalized."""
    text = "a" * (4 * GIB + 16)
    for name in ["mistral_v1_tokenizer.json", "minilm_bert_uncased_tokenizer.json"]:
        tok = _hf_tokenizer(name)
        for call in [lambda: tok.encode(text), lambda: tok.encode_batch(["x", text], num_threads=2),
                     lambda: tok.encode_batch_fast(["x", text], num_threads=2)]:
            message = _expect_value_error(call, "a text of 4294967312 bytes")
    return message


def case_hf_json_2gib_spaces(enc, sp) -> str:
    """Mistral's tokenizer.json on a str of 2^31 spaces: each space becomes the 3-byte ▁ and
    one ▁ is prepended, 3 * 2^31 + 3 bytes: refused by the exact count made before the
    normalized buffers are allocated."""
    text = " " * (2 * GIB)
    tok = _hf_tokenizer("mistral_v1_tokenizer.json")
    for call in [lambda: tok.encode(text), lambda: tok.encode_batch_fast(["x", text], num_threads=2)]:
        message = _expect_value_error(call, f"normalizes to {3 * 2 * GIB + 3} bytes")
    return message


# ---- gigabytes encoded --------------------------------------------------------------------

def _check_repeated(enc, text: str, unit: str, k: int) -> int:
    """encode_to_numpy and count_tokens (one thread) of text = unit * k give the unit's ids
    k times; returns their number.  One thread, to keep to the cases' own path (several
    threads: benchmarks/memory_numpy.py)."""
    import numpy as np

    unit_ids = enc.encode_ordinary(unit)
    got = enc.encode_to_numpy(text, num_threads=1)
    assert got.shape == (k * len(unit_ids),), got.shape
    want = np.broadcast_to(np.array(unit_ids, np.uint32), (k, len(unit_ids)))
    assert np.array_equal(got.reshape(k, len(unit_ids)), want)
    del got
    assert enc.count_tokens(text, num_threads=1) == k * len(unit_ids)
    return k * len(unit_ids)


def case_str_2gib_ascii(enc, sp) -> str:
    """A str of over 2^31 ASCII characters: encode_to_numpy and count_tokens give the
    unit's ids repeated (offsets past the int32 range)."""
    text, k = repeated(UNIT, 2 * GIB + 1)
    ids = _check_repeated(enc, text, UNIT, k)
    return f"{len(text)} characters, {ids} ids"


def case_str_utf8_over_4gib(enc, sp) -> str:
    """A 1-byte-kind str whose UTF-8 is over 4 GiB (Latin-1 letters): count_tokens on one
    thread and encode_to_numpy (converted in chunks) give the unit's ids repeated."""
    unit_bytes = len(LATIN1_UNIT.encode("utf-8"))
    text, k = repeated(LATIN1_UNIT, (4 * GIB + 1) // unit_bytes * len(LATIN1_UNIT) + len(LATIN1_UNIT))
    assert k * unit_bytes > 4 * GIB
    ids = _check_repeated(enc, text, LATIN1_UNIT, k)
    return f"{len(text)} characters, {k * unit_bytes} bytes of UTF-8, {ids} ids"


# CHEAP: under half a minute of CPU (the refusals, and 2 GiB of ASCII at a few hundred MB/s);
# HEAVY: normalizing or encoding more.
CHEAP = [case_piece_over_4gib, case_spm_bytes_over_4gib, case_str_2gib_ascii, case_hf_json_str_over_4gib,
         case_hf_json_2gib_spaces]
HEAVY = [case_spm_normalized_over_4gib, case_str_utf8_over_4gib]


def main() -> None:
    from _common import MODELS

    import tokenforge

    only = sys.argv[1] if len(sys.argv) > 1 else ""
    enc = tokenforge.get_encoding("cl100k_base")
    sp = tokenforge.SentencePieceProcessor(model_file=str(MODELS / "sentencepiece" / "llama2_tokenizer.model"))
    print(f"free memory {free_bytes() / GIB:.1f} GiB")
    for case in CHEAP + HEAVY:
        if only not in case.__name__:
            continue
        t0, c0 = time.perf_counter(), time.process_time()
        outcome = case(enc, sp)
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
        print(f"{case.__name__:32s} wall {time.perf_counter() - t0:7.1f} s  cpu {time.process_time() - c0:7.1f} s  "
              f"peak RSS so far {peak:5.1f} GiB  {outcome[:110]}", flush=True)


if __name__ == "__main__":
    main()
