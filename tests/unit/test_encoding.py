"""Encoding API details: errors, offsets, numpy, pickling, custom patterns."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from _tiktoken_refs import pair

import tokenforge
from tokenforge import patterns

BYTES = {bytes([b]): b for b in range(256)}


def test_invalid_ids_raise_keyerror_naming_the_id():
    enc = tokenforge.Encoding("b", pat_str=patterns.GPT2, mergeable_ranks=BYTES, special_tokens={"<e>": 300})
    for bad in [256, 10**6, -1, 2**40]:
        with pytest.raises(KeyError, match=str(bad)):
            enc.decode([1, bad])
        with pytest.raises(KeyError, match=str(bad)):
            enc.decode_single_token_bytes(bad)
    assert enc.decode([300]) == "<e>"


def test_decode_with_offsets_matches_tiktoken():
    ours, ref = pair("cl100k_base")
    for text in ["hello world", "我非常渴望与人工智能一起工作", "e\u0301 😀 x", "ab\u200dcd"]:
        ids = ref.encode(text)
        assert ours.decode_with_offsets(ids) == ref.decode_with_offsets(ids)


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_token_bytes_and_offsets_match_tiktoken_on_random_ids(name):
    # Random ids cut characters anywhere: offsets of tokens that start inside a character,
    # and byte strings that are not UTF-8 (both raise UnicodeDecodeError).
    import random

    ours, ref = pair(name)
    rng = random.Random(7)
    for _ in range(300):
        ids = [rng.randrange(len(ref._mergeable_ranks)) for _ in range(rng.randrange(0, 12))]
        assert ours.decode_tokens_bytes(ids) == ref.decode_tokens_bytes(ids)
        try:
            want = ref.decode_with_offsets(ids)
        except UnicodeDecodeError:
            with pytest.raises(UnicodeDecodeError):
                ours.decode_with_offsets(ids)
        else:
            assert ours.decode_with_offsets(ids) == want


def test_token_bytes_list_rejects_unknown_ids():
    ours, _ = pair("cl100k_base")
    for bad in (100256, 10**12, -1):
        with pytest.raises(KeyError, match=str(bad)):
            ours.decode_tokens_bytes([1, bad])
        with pytest.raises(KeyError, match=str(bad)):
            ours.decode_with_offsets([1, bad])


def test_numpy_and_count():
    ours, ref = pair("o200k_base")
    text = "Some text, 12345 numbers\n\n  and spaces. " * 50
    arr = ours.encode_to_numpy(text)
    assert arr.dtype == np.uint32
    assert arr.tolist() == ref.encode(text)
    assert ours.count_tokens(text) == len(arr)
    assert ours.count_tokens("<|endoftext|>") == len(ref.encode("<|endoftext|>", disallowed_special=()))
    assert ours.count_tokens("<|endoftext|>", allowed_special="all") == 1


def test_pickle_round_trip():
    ours, _ = pair("r50k_base")
    again = pickle.loads(pickle.dumps(ours))
    assert again.encode("pickled text") == ours.encode("pickled text")


def test_explicit_n_vocab_checked():
    with pytest.raises(ValueError, match="explicit_n_vocab"):
        tokenforge.Encoding("b", pat_str=patterns.GPT2, mergeable_ranks=BYTES, special_tokens={}, explicit_n_vocab=999)


def test_bad_pattern_and_duplicate_ids():
    with pytest.raises(ValueError, match="does not compile"):
        tokenforge.Encoding("b", pat_str="(unclosed", mergeable_ranks=BYTES, special_tokens={})
    with pytest.raises(ValueError, match="duplicate token id"):
        tokenforge.Encoding("b", pat_str=patterns.GPT2, mergeable_ranks=BYTES | {b"xy": 5}, special_tokens={})


@pytest.mark.parametrize("pat_str", [patterns.GPT2, r"\S+|\s+"])  # the native scanner and the regex path
def test_special_strings_sharing_an_id(pat_str):
    # Hand-worked: both strings encode to 300; 300 decodes to the first given (tiktoken's
    # own pick follows its hash order; in o200k_harmony it is the first too, see
    # tests/parity/test_registry_definitions.py).
    from tokenforge.reference.bpe import decode_bytes

    specials = {"<|b|>": 300, "<|a|>": 300, "<|c|>": 301}
    enc = tokenforge.Encoding("s", pat_str=pat_str, mergeable_ranks=BYTES, special_tokens=specials)
    assert enc.encode("x<|a|><|b|><|c|>", allowed_special="all") == [120, 300, 300, 301]
    assert enc.encode("<|a|>", allowed_special={"<|a|>"}) == [300]
    assert enc.encode("<|b|>", allowed_special={"<|a|>"}, disallowed_special=()) == list(b"<|b|>")
    with pytest.raises(ValueError, match=r"<\|b\|>"):
        enc.encode("<|b|>", allowed_special={"<|a|>"})
    assert enc.decode([300, 301]) == "<|b|><|c|>" == decode_bytes([300, 301], BYTES, specials).decode()
    assert enc.decode_single_token_bytes(300) == b"<|b|>"
    assert enc.encode_single_token("<|a|>") == enc.encode_single_token("<|b|>") == 300
    assert enc.n_vocab == 302 and enc.special_tokens_set == {"<|a|>", "<|b|>", "<|c|>"}
    assert pickle.loads(pickle.dumps(enc)).decode([300]) == "<|b|>"


@pytest.mark.parametrize("pat_str", [r"(a)|b", r"(?:a)|b|(c)", r"(\w)(\w)?|\s+"])
def test_pattern_with_groups_splits_by_whole_matches_as_tiktoken(pat_str):
    # The regex path took regex.findall's groups for pieces (found by the minbpe fuzz target).
    import tiktoken

    text = "abc d abcd"
    ref = tiktoken.Encoding("g", pat_str=pat_str, mergeable_ranks=BYTES, special_tokens={})
    enc = tokenforge.Encoding("g", pat_str=pat_str, mergeable_ranks=BYTES, special_tokens={})
    assert enc.encode_ordinary(text) == ref.encode_ordinary(text)
    assert enc._encode_only_native_bpe(text) == ref.encode_ordinary(text)  # tiktoken's own takes findall's groups
    assert enc._encode_bytes(text.encode() + b"\xe4") == ref._encode_bytes(text.encode() + b"\xe4")


def test_missing_byte_is_a_clear_error():
    ranks = {bytes([b]): b for b in range(128)}
    enc = tokenforge.Encoding("ascii", pat_str=patterns.GPT2, mergeable_ranks=ranks, special_tokens={})
    assert enc.encode("ok") == [111, 107]
    with pytest.raises(ValueError, match="not a token"):
        enc.encode("é")


@pytest.mark.parametrize(
    "pat_str",
    [
        r"\w+|[^\w\s]+|\s+",
        # Mistral Tekken's pattern: one digit a piece, no contractions.
        r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+",
    ],
)
def test_other_patterns_fall_back_to_regex_with_same_ids(pat_str):
    import tiktoken

    base, _ = pair("cl100k_base")
    ours = tokenforge.Encoding("x", pat_str=pat_str, mergeable_ranks=base._mergeable_ranks, special_tokens={"<|endoftext|>": 100257})
    ref = tiktoken.Encoding("x", pat_str=pat_str, mergeable_ranks=base._mergeable_ranks, special_tokens={"<|endoftext|>": 100257})
    text = "Hello World's 2024 numbers!!\n\n  indent <|endoftext|> tail ÄÖ 中文 😀"
    assert ours.encode(text, allowed_special="all") == ref.encode(text, allowed_special="all")
    assert ours.encode_ordinary(text) == ref.encode_ordinary(text)
    assert ours.encode_batch([text, "x"], disallowed_special=()) == ref.encode_batch([text, "x"], disallowed_special=())


@pytest.mark.parametrize("pat_str", sorted(patterns._KNOWN), ids=lambda s: patterns._KNOWN[s].name)
def test_every_known_spelling_takes_a_scanner_that_splits_like_the_regex(pat_str):
    """Each spelling in the table gets the native scanner, and that scanner splits exactly
    like tiktoken running the spelling through its regex engine."""
    import random

    import tiktoken

    assert patterns.scanner_for(pat_str) is not None
    base, _ = pair("cl100k_base")
    ours = tokenforge.Encoding("x", pat_str=pat_str, mergeable_ranks=base._mergeable_ranks, special_tokens={})
    ref = tiktoken.Encoding("x", pat_str=pat_str, mergeable_ranks=base._mergeable_ranks, special_tokens={})
    assert ours._core.has_scanner
    rng = random.Random(11)
    alphabet = "aZs dlTVE19 \n\r\t\u00a0'.-/é中\u0301😀"
    texts = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 24))) for _ in range(3000)]
    texts += ["tail  ", "tail\n", "x \n ", "it's 'LL 12345 ..."]
    assert ours.encode_ordinary_batch(texts) == ref.encode_ordinary_batch(texts)


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base", "r50k_base", "llama3"])
def test_adversarial_inputs_match_tiktoken(name):
    """Long runs that stress the scanners and the long-piece merge (kept small here; the
    1 MB versions are in benchmarks/bench_encode.py)."""
    import random

    ours, ref = pair(name)
    rng = random.Random(7)
    cases = [
        "a" * 50_000,
        "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(50_000)),
        "".join(chr(rng.randrange(0x4E00, 0x9FA5)) for _ in range(20_000)),
        " " * 50_000,
        "7" * 50_000,
        "^" * 50_000,
        "\n" * 5_000 + "x",
        "e" + "\u0301" * 5_000,
        "😀" * 5_000,
        " \t" * 10_000 + "\r\n" * 1000,
    ]
    for text in cases:
        assert ours.encode_ordinary(text) == ref.encode_ordinary(text)


def test_batches_from_many_python_threads_agree():
    """Concurrent batch calls share the native pool or start their own threads: same ids."""
    from concurrent.futures import ThreadPoolExecutor

    ours, ref = pair("cl100k_base")
    docs = [f"document {i}: " + "some text with words, numbers 12345 and 中文 " * (i % 7 + 1) for i in range(300)]
    want = ref.encode_ordinary_batch(docs)
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda _: ours.encode_ordinary_batch(docs, num_threads=3), range(8)))
    assert all(r == want for r in results)


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_batch_error_is_the_first_failing_item(threads):
    """The calling thread turns finished items into lists while others encode: an item
    that cannot be encoded still raises, naming the first bad item, wherever it lies."""
    ranks = {bytes([b]): b for b in range(128)}
    enc = tokenforge.Encoding("ascii", pat_str=patterns.GPT2, mergeable_ranks=ranks, special_tokens={})
    docs = [f"plain text {i} " * 20 for i in range(400)]
    want = [[b for b in d.encode()] for d in docs]  # every byte is its own token here
    assert enc.encode_ordinary_batch(docs, num_threads=threads) == want
    for bad in [0, 1, 199, 399]:
        broken = list(docs)
        broken[bad] = "x" * bad + " é"
        if bad + 5 < len(broken):
            broken[bad + 5] = "\u00ff"  # a later bad item: not the one named
        with pytest.raises(ValueError, match=r"not a token \(\\x20\\xc3\\xa9\)"):
            enc.encode_ordinary_batch(broken, num_threads=threads)


def test_batches_under_gc_from_other_threads_match_tiktoken():
    """Lists are made while a batch runs (GIL taken between items): other Python threads
    running the garbage collector and allocating meanwhile see no half-built result."""
    import gc
    import threading

    ours, ref = pair("o200k_base")
    docs = [f"doc {i} " + "mixed text é 中文 😀 code(x) = [1, 2] " * (i % 13 + 1) for i in range(600)]
    want = ref.encode_ordinary_batch(docs)
    stop = threading.Event()

    def churn():
        while not stop.is_set():
            junk = [[j] for j in range(2000)]
            gc.collect(0)
            assert all(len(x) == 1 for x in junk)
            for obj in gc.get_objects(0):
                if isinstance(obj, list) and obj:
                    obj[0]  # any list reachable here is complete

    from concurrent.futures import ThreadPoolExecutor

    churners = [threading.Thread(target=churn) for _ in range(2)]
    for t in churners:
        t.start()
    try:
        with ThreadPoolExecutor(3) as pool:
            results = list(pool.map(lambda k: ours.encode_ordinary_batch(docs, num_threads=1 + k % 3), range(9)))
    finally:
        stop.set()
        for t in churners:
            t.join()
    assert all(r == want for r in results)


def test_batch_input_list_emptied_during_the_call():
    """The batch reads its strs without the GIL and takes the GIL between items: another
    thread that empties the list meanwhile (made certain by _races.py) frees nothing the
    batch still reads; the result is that of the list as it was when the call began, as
    tiktoken's.  The native batch is called directly (the Python method copies the list)."""
    from _races import check_emptied_during_call

    ours, ref = pair("cl100k_base")
    make = lambda: ["".join(chr(0x61 + (i * 7 + k) % 26) for k in range(i % 50 + 1)) + " é 中文 " * (i % 9)
                    for i in range(3000)]  # the list holds the only reference to each str
    want = ref.encode_ordinary_batch(make())
    batch = ours._core.encode_ordinary_batch
    for threads in (1, 2):
        check_emptied_during_call(make, lambda docs: batch(docs, threads), want)


def test_disallowed_strings_that_are_not_specials_raise_like_tiktoken():
    """tiktoken raises for any disallowed string the text holds, special token or not."""
    ours, ref = pair("cl100k_base")
    cases = [
        ("hello world", {"world"}),
        ("hello world", {"zzz"}),
        ("hello", {""}),
        ("a <|endoftext|> b", {"b", "<|endoftext|>"}),
    ]
    for text, disallowed in cases:
        for call in (
            lambda e: e.encode(text, disallowed_special=disallowed),
            lambda e: e.encode_batch(["x", text], disallowed_special=disallowed),
        ):
            try:
                expected = call(ref)
            except ValueError:
                with pytest.raises(ValueError, match="disallowed special token"):
                    call(ours)
            else:
                assert call(ours) == expected


def test_id_lists_are_ordinary_lists_equal_to_tiktoken():
    # The binding fills a list's item array before handing it to the list (no zeroing);
    # the result must behave as any list: grow, shrink, sort, pickle, free.
    ours, ref = pair("cl100k_base")
    text = "Lists of ids, built in one pass: 12345 spaces   and\n\nlines. " * 200
    ids = ours.encode_ordinary(text)
    assert type(ids) is list and ids == ref.encode_ordinary(text)
    assert ours.encode(text + "<|endoftext|>", allowed_special="all") == ref.encode(
        text + "<|endoftext|>", allowed_special="all")
    assert ours.encode_ordinary("") == [] and ours.encode_ordinary("a") == ref.encode_ordinary("a")
    copy = list(ids)
    ids.extend(range(1000))
    del ids[:10]
    ids.append(7)
    ids.sort()
    assert len(ids) == len(copy) + 1000 - 10 + 1
    assert pickle.loads(pickle.dumps(copy)) == ref.encode_ordinary(text)
    # Ids past the int cache (2**18), up to the largest a sparse vocabulary may have, and
    # small ints, which are CPython's own objects.
    big = {bytes([b]): b for b in range(256)} | {b"ab": 300_000, b"cd": 2**24 - 1}
    enc = tokenforge.Encoding("big", pat_str=patterns.GPT2, mergeable_ranks=big, special_tokens={})
    out = enc.encode_ordinary("abcd abx")  # pieces "abcd" and " abx"
    assert out == [300_000, 2**24 - 1, 32, 300_000, 120]
    assert out[4] is 120  # noqa: F632 -- the shared small int, as tiktoken gives


@pytest.mark.parametrize("where", ["ranks", "specials"])
def test_ids_far_beyond_the_vocabulary_size_are_refused(where):
    """Tokens are indexed by id: an id of 2**24 or more in a vocabulary with fewer than a
    quarter as many tokens would cost memory for every id below it (16 GB near 2**31), so
    it raises ValueError naming the id instead (tiktoken, keyed by hash, accepts it)."""
    ranks = {bytes([b]): b for b in range(256)}
    specials = {}
    if where == "ranks":
        ranks[b"ab"] = 2**31 + 5
    else:
        specials["<|far|>"] = 2**32 - 2
    with pytest.raises(ValueError, match=str(max([*ranks.values(), *specials.values()]))):
        tokenforge.Encoding("far", pat_str=patterns.GPT2, mergeable_ranks=ranks, special_tokens=specials)


def test_dropped_encoding_is_freed_after_special_token_calls():
    """The native special-token sets are cached per encoding: an encoding that encoded with
    special tokens allowed or disallowed is freed once dropped (a cache on the class kept it)."""
    import gc
    import weakref

    import tokenforge

    ranks = {bytes([b]): b for b in range(256)}
    enc = tokenforge.Encoding("x", pat_str=tokenforge.patterns.GPT2, mergeable_ranks=ranks,
                              special_tokens={"<|e|>": 256})
    assert enc.encode("a<|e|>", allowed_special="all") == [97, 256]
    assert enc.encode_batch(["a<|e|>"], disallowed_special=()) == [[97, 60, 124, 101, 124, 62]]
    with pytest.raises(ValueError):
        enc.encode("a<|e|>")
    ref = weakref.ref(enc)
    del enc
    gc.collect()
    assert ref() is None


@pytest.mark.parametrize("bad", [2**70, -(2**70), 1.5])
def test_rank_that_is_no_64_bit_int_is_a_value_error(bad):
    """Found by the minbpe fuzz target: an id past 64 bits came back as RuntimeError(bad_cast)."""
    with pytest.raises(ValueError, match="token id"):
        tokenforge.Encoding("x", pat_str=r"\w+", mergeable_ranks={b"a": bad}, special_tokens={})
    with pytest.raises(ValueError, match="token id"):
        tokenforge.Encoding("x", pat_str=r"\w+", mergeable_ranks={bytes([b]): b for b in range(256)}, special_tokens={"<s>": bad})
