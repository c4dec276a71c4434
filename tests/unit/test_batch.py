"""Batch entry points (encode_ordinary_batch, encode_batch): chunking, UTF-8 conversion of
every kind of str, thread counts, specials, errors and the result list's GC state.  The
expected ids always come from tiktoken."""

from __future__ import annotations

import gc

import pytest
from _tiktoken_refs import pair

import tokenforge
from tokenforge import patterns

THREADS = [1, 2, 8]


def _around_blocks(char: str) -> list[str]:
    """`char` after ASCII runs of every length across the converter's 16-byte blocks, in a
    str whose kind `char` decides (1-, 2- or 4-byte code units)."""
    texts = []
    for run in range(0, 35):
        head = "".join("abc de,fg"[k % 9] for k in range(run))
        texts.append(head + char + head[::-1] + char)
        texts.append(char * (run % 5 + 1) + head)
    return texts


@pytest.mark.parametrize("threads", THREADS)
@pytest.mark.parametrize(
    "char",
    ["é", "\u00ff", "’", "中", "\U0001f600", "\ud83d\ude00", "\ud800", "\udfff", "\ud800x", "\udc00\ud800"],
    ids=["latin1", "ff", "quote", "cjk", "emoji", "pair", "lone-high", "lone-low", "high-x", "low-high"],
)
def test_utf8_conversion_of_every_str_kind_matches_tiktoken(char, threads):
    """Workers convert non-ASCII strs to UTF-8 16 bytes at a time; a non-ASCII character at
    each position of a block, surrogates included (repaired as tiktoken repairs them)."""
    ours, ref = pair("cl100k_base")
    texts = _around_blocks(char)
    assert ours.encode_ordinary_batch(texts, num_threads=threads) == [ref.encode_ordinary(t) for t in texts]


@pytest.mark.parametrize("threads", THREADS)
def test_many_tiny_and_empty_documents(threads):
    ours, ref = pair("o200k_base")
    docs = ["", "a", " ", "", "\n", "hi there", "", "é", "中文", ""] * 500
    assert ours.encode_ordinary_batch(docs, num_threads=threads) == ref.encode_ordinary_batch(docs)
    assert ours.encode_ordinary_batch([], num_threads=threads) == []
    assert ours.encode_ordinary_batch([""] * 3000, num_threads=threads) == [[]] * 3000


@pytest.mark.parametrize("threads", THREADS)
def test_documents_of_mixed_sizes_in_many_chunks(threads):
    """Chunks are cut by bytes: a few large documents among many small ones."""
    ours, ref = pair("cl100k_base")
    docs = []
    for i in range(700):
        size = 40_000 if i % 97 == 0 else i % 300
        docs.append(("word " + str(i) + " ’quoted’ 中文 ") * (size // 20 + 1))
    assert ours.encode_ordinary_batch(docs, num_threads=threads) == ref.encode_ordinary_batch(docs)


@pytest.mark.parametrize("threads", THREADS)
def test_encode_batch_with_specials_matches_tiktoken(threads):
    ours, ref = pair("cl100k_base")
    docs = [f"doc {i} <|endoftext|> text<|fim_prefix|>x{'<|endoftext|>' * (i % 3)} end" for i in range(1500)]
    docs += ["<|endoftext|>", "", "plain"]
    for allowed in ("all", {"<|endoftext|>"}):
        kwargs = dict(allowed_special=allowed, disallowed_special=())
        assert ours.encode_batch(docs, num_threads=threads, **kwargs) == ref.encode_batch(docs, **kwargs)


@pytest.mark.parametrize("threads", THREADS)
def test_first_bad_document_is_named_whatever_chunk_it_lies_in(threads):
    ranks = {bytes([b]): b for b in range(128)}
    enc = tokenforge.Encoding("ascii", pat_str=patterns.GPT2, mergeable_ranks=ranks, special_tokens={})
    docs = [f"text {i} " * (i % 40) for i in range(3000)]
    for bad in [0, 1500, 2999]:
        broken = list(docs)
        broken[bad] = "ok é"
        if bad + 700 < len(broken):
            broken[bad + 700] = "\u00ff"  # a later bad item, likely in another chunk
        with pytest.raises(ValueError, match=r"\\x20\\xc3\\xa9"):
            enc.encode_ordinary_batch(broken, num_threads=threads)
    assert enc.encode_ordinary_batch(docs, num_threads=threads) == [list(d.encode()) for d in docs]


def test_result_lists_are_tracked_by_the_gc():
    """The result list is filled untracked (another thread's gc.get_objects() must not meet
    its empty slots) and tracked before it is returned; so are its item lists."""
    ours, _ = pair("cl100k_base")
    out = ours.encode_ordinary_batch(["a b c"] * 100, num_threads=2)
    assert gc.is_tracked(out)
    assert all(gc.is_tracked(ids) for ids in out)
    out.append(out)  # a cycle through the result is collected like any other
    del out
    gc.collect()


@pytest.mark.parametrize("threads", THREADS)
def test_encode_batch_raises_for_the_first_text_with_a_disallowed_special(threads):
    """The native batch looks for disallowed specials as it encodes; the error is
    tiktoken's, for the first such text."""
    ours, ref = pair("cl100k_base")
    docs = [f"text {i} ’ 中文 " * (i % 30) for i in range(2000)]
    assert ours.encode_batch(docs, num_threads=threads) == ref.encode_batch(docs)
    for first, later in [(0, 5), (1200, 1999), (1999, None)]:
        broken = list(docs)
        broken[first] = broken[first] + "<|fim_middle|>"
        if later is not None:
            broken[later] = "<|endoftext|>" + broken[later]
        with pytest.raises(ValueError) as want:
            ref.encode_batch(broken)
        with pytest.raises(ValueError) as got:
            ours.encode_batch(broken, num_threads=threads)
        assert str(got.value) == str(want.value)
        allowed = {"<|fim_middle|>", "<|endoftext|>"}
        assert ours.encode_batch(broken, num_threads=threads, allowed_special=allowed) == ref.encode_batch(
            broken, allowed_special=allowed
        )
        assert ours.encode_batch(broken, num_threads=threads, disallowed_special=()) == ref.encode_batch(
            broken, disallowed_special=()
        )


def test_encode_batch_errors_come_in_text_order():
    """A text that cannot be encoded before one with a disallowed special raises its own
    error, and the other way round."""
    ranks = {bytes([b]): b for b in range(128)}
    enc = tokenforge.Encoding("ascii", pat_str=patterns.GPT2, mergeable_ranks=ranks, special_tokens={"<s>": 200})
    docs = ["plain words " * 10] * 900
    bad_byte, special = list(docs), list(docs)
    bad_byte[100], bad_byte[600] = "é", "<s>"
    special[100], special[600] = "<s>", "é"
    for threads in THREADS:
        with pytest.raises(ValueError, match=r"not a token"):
            enc.encode_batch(bad_byte, num_threads=threads)
        with pytest.raises(ValueError, match=r"disallowed special token '<s>'"):
            enc.encode_batch(special, num_threads=threads)


@pytest.mark.parametrize("kind_char", ["", "\u00e9", "\u0416", "\u4e2d", "\U0001f600"], ids=["ascii", "1", "2", "2cjk", "4"])
def test_utf8_conversion_of_random_mixes_matches_tiktoken(kind_char):
    """Blocks that mix 1-, 2- and 3-byte characters (and surrogates, pairs or lone) at
    random, in strs of every kind."""
    import random

    rng = random.Random(len(kind_char) and ord(kind_char))
    pools = ["abc ,.\n", "éüßñ", "ЖДЯжд", "ΩΔλ", "中文字", "ไทย", "\u0800\uffff\ue000\ud7ff", "😀", "\ud800", "\udc00"]
    texts = []
    for _ in range(300):
        weights = [rng.random() for _ in pools]
        chars = rng.choices(pools, weights=weights, k=rng.randrange(0, 200))
        texts.append(kind_char + "".join(rng.choice(p) for p in chars))
    for _ in range(100):  # 1-byte strs with non-ASCII characters
        texts.append("".join(rng.choice("abc ,.\néüßñ\u0080\u00ff") for _ in range(rng.randrange(0, 200))))
    ours, ref = pair("o200k_base")
    assert ours.encode_ordinary_batch(texts, num_threads=2) == [ref.encode_ordinary(t) for t in texts]
