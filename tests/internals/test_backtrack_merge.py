"""The merges of long pieces give tiktoken's ids: the trie merge of their chunks
(cpp/models/byte_level/merge/trie_chunk_merge.h) and the linear backtracking merge of chunks over 256 bytes
(cpp/models/byte_level/merge/backtrack_merge.h), on long adversarial pieces with the real vocabularies and on
random small vocabularies, merge-closed or not (orphan tokens, which their own bytes do not
merge into, are left out of the search; pairs with "tangled" tokens, whose merge trees are
not in rank order, are checked by merging their bytes; Llama 3 has both).
Both before and after the tables are built (an encoding builds them once its long pieces
add up to 512 KB, see long_piece_tables.h; `warm` gets it there).  The pure-Python
reference of the backtracking merge (`oracles.bpe_backtrack`) equals the plain merge.
The trie merge's tests run each of its builds the CPU has (`trie_level`)."""

from __future__ import annotations

import itertools
import random

import pytest
from _tiktoken_refs import pair
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tokenforge
from tokenforge import _native
from tokenforge.reference import bpe as reference
from tokenforge.reference import fast_paths as oracles

SETTINGS = settings(max_examples=120, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
WHOLE = r"[\s\S]+"  # one piece per text, so a long text is one long piece
BUILD_AFTER = _native._testing.LONG_TABLES_BUILD_AFTER
# The builds of the trie merge this CPU runs (trie_chunk_merge.cc: 1 for AVX2 and BMI2, 0
# the baseline), best first; the trie merge's tests run each.
TRIE_LEVELS = list(range(_native._testing.trie_merge_level(), -1, -1))


@pytest.fixture(params=TRIE_LEVELS, ids=lambda level: f"trie-level-{level}")
def trie_level(request):
    """The trie merge forced to each build in turn for the test (the level stays set over
    all of a Hypothesis test's examples, so the function scope is what is wanted)."""
    old = _native._testing.trie_merge_level(request.param)
    try:
        yield request.param
    finally:
        _native._testing.trie_merge_level(old)


def warm(enc):
    """Encodes one long piece of BUILD_AFTER bytes, so `enc` builds its long-piece tables."""
    enc.encode_ordinary("a" * BUILD_AFTER)
    return enc


def unshared(name: str) -> dict[bytes, int]:
    """`name`'s ranks plus one token no text here holds and no other encoding in the
    process has: an encoding over them shares no long-piece tables (SharedVocab) that
    another test built already, so it builds its own."""
    ranks = dict(pair(name)[0]._mergeable_ranks)
    ranks[f"\x00unshared-{name}-{random.random()}\x00".encode()] = max(ranks.values()) + 1
    return ranks

RUNS = ["a", " ", "^", "1", "\n", "\t", ".", "-", "=", "é", "中", "😀", "ー", "Z"]
# " the quick brown fox": a period longer than the trie merge's look ahead for the next
# merge of the same rank (16 positions), so each round falls back to the scan.
PERIODS = ["ab", "abc", "aab", "ab ", "\n\n ", "12", "._", "ha", "ing", " the", "ア", "中文", " the quick brown fox"]
ALPHABETS = ["ab", "abc", "xyz", "abcdefghijklmnopqrstuvwxyz", "01", "0123456789", "aé", "中文字的", " a", "^_^", "ab\n",
             " \t"]


def shapes(length: int, rng: random.Random) -> list[str]:
    texts = [c * length for c in RUNS]
    texts += [(p * length)[:length] for p in PERIODS]
    texts += ["".join(rng.choice(a) for _ in range(length)) for a in ALPHABETS]
    return texts


@pytest.fixture(scope="module")
def whole_pieces():
    """name -> (tokenforge, tiktoken) encodings that take each text as one piece."""
    import tiktoken

    made = {}

    def get(name):
        if name not in made:
            ours, _ = pair(name)
            ranks = ours._mergeable_ranks
            made[name] = (warm(tokenforge.Encoding(name, pat_str=WHOLE, mergeable_ranks=ranks, special_tokens={})),
                          tiktoken.Encoding(name, pat_str=WHOLE, mergeable_ranks=ranks, special_tokens={}))
        return made[name]

    return get


def test_trie_merge_level_switch_clamps_to_the_cpu():
    """The test hook sets a build the CPU runs and gives back the one before."""
    best = _native._testing.trie_merge_level()
    assert best in (0, 1)
    assert _native._testing.trie_merge_level(5) == best
    assert _native._testing.trie_merge_level() == best
    assert _native._testing.trie_merge_level(0) == best
    assert _native._testing.trie_merge_level() == 0
    assert _native._testing.trie_merge_level(best) == 0


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base", "r50k_base", "llama3"])
@pytest.mark.parametrize("length", [64, 65, 100, 129, 200, 250, 256, 257, 300, 1024, 5000])
def test_long_adversarial_pieces_equal_to_tiktoken(name, length, whole_pieces, trie_level):
    """Runs, periodic strings and random text of small alphabets, around the 64-byte switch
    to the trie merge (once the tables are wanted), the 256-byte switch to the long-piece
    merge and far above it; Llama 3's vocabulary is not merge-closed (588 orphans, 107
    tangled tokens)."""
    rng = random.Random(length)
    ours, ref = pair(name)
    cold = tokenforge.Encoding(name, pat_str=ours._pat_str, mergeable_ranks=ours._mergeable_ranks, special_tokens={})
    whole, whole_ref = whole_pieces(name)
    warm(ours)
    for text in shapes(length, rng):
        want = ref.encode_ordinary(text)
        assert ours.encode_ordinary(text) == want, (text[:12], length)
        assert cold.encode_ordinary(text) == want, (text[:12], length)
        assert whole.encode_ordinary(text) == whole_ref.encode_ordinary(text), (text[:12], length)


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_chunks_around_the_trie_merge_sizes_equal_to_tiktoken(name, whole_pieces, trie_level):
    """Chunks of exactly k bytes around the trie merge's switches (63/64: the one-word part
    starts, 64/65: the block minima), made by a run or random letters cut off by CJK
    characters (nothing straddles a letter and a CJK byte), among random letters."""
    rng = random.Random(63)
    whole, whole_ref = whole_pieces(name)
    for k in (3, 4, 5, 31, 32, 33, 62, 63, 64, 65, 66, 79, 80, 81, 255, 256, 257):
        for body in ("a" * k, " " * k, "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(k))):
            text = "中" + body + "中文" + body + "字" + "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(300))
            assert whole.encode_ordinary(text) == whole_ref.encode_ordinary(text), (name, k, body[:8])


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base", "llama3"])
def test_short_chunks_of_medium_pieces_through_the_cache_equal_to_tiktoken(name, whole_pieces):
    """Once the trie is built, the chunks of up to 15 bytes of pieces of 65..256 bytes are
    merged through the short merge cache (those of longer pieces by the trie): CJK pieces,
    cut into chunks of one to a few characters that recur, each text encoded twice (the
    second time from the cache), on both sides of 256 bytes."""
    rng = random.Random(11)
    ours, ref = pair(name)
    whole, whole_ref = whole_pieces(name)
    warm(ours)
    common = (
        "的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年得就那要下以生会自着"
        "去之过家学对可里后小么心多天而能好都然没日于起还发成事只作当想看文无开手十用主行"
        "方又如前所本见经头面公同三已老从动两长知民样现分将外但身些与高意进把法此实回二理"
        "美点月明其种声全工己话儿者向情部正名定女问力机给等几很业最间新什打便位因重被走电"
        "四第门相次东政海口使教西再平真听世气信北少关并内加化由却代军产入先山五太水万市眼"
        "体别处总才场师书比住员九笑性通目华报立马命张活难神数件安表原车白应路期叫死常提感"
        "金何更反合放做系计或司利受光王果亲界及今京务制解各任至清物台象记边共风战干接它许"
        "八特觉望直服毛林题建南度统色字请交爱让认算论百吃义科怎元社术结六功指思非流每青管"
        "夫连远资队跟带花快条院变联言权往展该领传近留红治决周保达办运武半候七必城父强步完"
        "革深区即求品士转量空甚众技轻程告江语英基派满式李息写呢识极令黄德收脸钱党倒未持音"
    )
    for n in (20, 21, 22, 60, 80, 85, 86, 90, 120):
        texts = ["".join(rng.choice(common) for _ in range(n)) for _ in range(40)]
        texts += [" " + t[: n // 2] + "ab" + t[n // 2:] for t in texts[:10]]
        for text in texts + texts:
            want = ref.encode_ordinary(text)
            assert ours.encode_ordinary(text) == want, (name, text)
            assert whole.encode_ordinary(text) == whole_ref.encode_ordinary(text), (name, text)


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base", "llama3"])
@SETTINGS
@given(text=st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=65, max_size=3000))
def test_random_letters_equal_to_tiktoken(name, text, whole_pieces, trie_level):
    """Random letters as one piece: SafeCuts' chunks of every size up to ~100 bytes."""
    whole, whole_ref = whole_pieces(name)
    assert whole.encode_ordinary(text) == whole_ref.encode_ordinary(text)


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base", "r50k_base", "llama3"])
@SETTINGS
@given(
    parts=st.lists(st.tuples(st.sampled_from(RUNS + PERIODS + ALPHABETS), st.integers(1, 400), st.booleans()),
                   min_size=1, max_size=8),
    seed=st.integers(min_value=0, max_value=2**32 - 1),
)
def test_mixed_long_pieces_equal_to_tiktoken(name, parts, seed, whole_pieces):
    """Pieces glued from runs, periods and random stretches, each a run/period or random."""
    rng = random.Random(seed)
    text = "".join((s * n)[:n] if repeat else "".join(rng.choice(s) for _ in range(n)) for s, n, repeat in parts)
    whole, whole_ref = whole_pieces(name)
    assert whole.encode_ordinary(text) == whole_ref.encode_ordinary(text)


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base", "llama3"])
def test_streams_of_medium_pieces_equal_to_tiktoken(name):
    """Many pieces of 48-256 bytes (whitespace runs, runs of letters, random spaces and tabs)
    under the real patterns: their bytes add up to the build of the tables partway through,
    so the first take the short merge and the rest the trie merge."""
    rng = random.Random(7)
    ours, ref = pair(name)
    fresh = tokenforge.Encoding(name, pat_str=ours._pat_str, mergeable_ranks=ours._mergeable_ranks, special_tokens={})
    for n in (48, 64, 65, 128, 129, 200, 253, 256):
        for text in ((" " * n + "qg") * 8, ("a" * n + " ") * 8, "".join(rng.choice(" \t") for _ in range(n)) + "x"):
            assert fresh.encode_ordinary(text) == ref.encode_ordinary(text), (name, n, text[:8])
    stream = "".join(" " * rng.randrange(48, 257) + "qg" + "".join(rng.choice(" \t") for _ in range(rng.randrange(48, 257)))
                     + "x " + "b" * rng.randrange(48, 257) for _ in range(6000))
    assert len(stream.encode()) > 4 * BUILD_AFTER  # a piece of n <= 256 bytes counts n * n / 512
    assert fresh.encode_ordinary(stream) == ref.encode_ordinary(stream)
    assert fresh.encode_ordinary(stream[:50_000]) == ref.encode_ordinary(stream[:50_000])


RUNS_BEFORE_BACKTRACK = _native._testing.RUNS_BEFORE_BACKTRACK


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base", "llama3"])
def test_streams_of_medium_runs_equal_to_tiktoken(name):
    """Pieces of 65-256 bytes that repeat one byte (maybe after a space: " aaaa") take the
    backtracking merge once it is built: a warm encoding has it from a long piece; a fresh
    one (cl100k only, the stream is long; unshared(), so no other test built it) builds it
    partway through a stream of them (their bytes add up to RUNS_BEFORE_BACKTRACK after
    those that build the trie).  The expected ids are tiktoken's for each piece of the
    stream (split by its pattern, each distinct piece merged once), checked against its
    whole-text encoding on a sample first."""
    import regex

    ours, ref = pair(name)
    fresh = tokenforge.Encoding(name, pat_str=ours._pat_str, mergeable_ranks=unshared(name), special_tokens={})
    pattern = regex.compile(ours._pat_str)
    rng = random.Random(65)
    units = []
    for n in (65, 66, 100, 127, 128, 129, 200, 250):  # no piece over 256 bytes (those build it too)
        for c in " \n\t.-=^1aZ":
            units += [c * n + "qg\n", " " + c * n + "x\n"]
    units += [" " + "é" * 100 + "x\n", "中" * 80 + "qg\n"]
    merged = {}

    def expected(text):
        ids = []
        for piece in pattern.findall(text):
            if piece not in merged:
                merged[piece] = ref._encode_single_piece(piece.encode())
            ids += merged[piece]
        return ids

    sample = "".join(rng.choice(units) for _ in range(300))
    assert expected(sample) == ref.encode_ordinary(sample)
    # Pieces of at most 128 bytes are found in the piece cache when they repeat, not merged.
    longer = [u for u in units if len(u) > 131]
    size = RUNS_BEFORE_BACKTRACK + (8 << 20) if name == "cl100k_base" else 1 << 20
    stream = "".join(rng.choice(longer) for _ in range(size // 160))
    assert len(stream.encode()) > size
    want = expected(stream)
    encodings = [warm(tokenforge.Encoding(name, pat_str=ours._pat_str, mergeable_ranks=ours._mergeable_ranks,
                                          special_tokens={}))]
    if name == "cl100k_base":
        encodings.append(fresh)
    for enc in encodings:
        assert enc.encode_ordinary(stream) == want
        assert enc.encode_ordinary(sample) == ref.encode_ordinary(sample)


def merge_vocabulary(merges: list[tuple[int, int]]) -> dict[bytes, int]:
    """All 256 bytes, then tokens made by joining two earlier tokens (given as indexes into
    the tokens so far, modulo their number), in order; merge-closed or not."""
    tokens = [bytes([b]) for b in range(256)]
    extra = [b"a", b"b", b"c", b"d"]
    for i, j in merges:
        t = extra[i % len(extra)] + extra[j % len(extra)]
        if t not in extra:
            extra.append(t)
    ranks = {t: r for r, t in enumerate(tokens)}
    for t in extra[4:]:
        ranks[t] = len(ranks)
    return ranks


vocabularies = st.lists(st.tuples(st.integers(0, 60), st.integers(0, 60)), min_size=1, max_size=60).map(merge_vocabulary)


@SETTINGS
@given(ranks=vocabularies, text=st.text(alphabet="abcd", min_size=1, max_size=1200), run=st.integers(0, 600))
def test_random_vocabulary_long_pieces_equal_to_tiktoken_and_reference(ranks, text, run):
    """Native (backtracking once the tables are built) == tiktoken == reference (plain and backtracking)."""
    import tiktoken

    text = "a" * run + text
    ours = tokenforge.Encoding("t", pat_str=WHOLE, mergeable_ranks=ranks, special_tokens={})
    ref = tiktoken.Encoding("t", pat_str=WHOLE, mergeable_ranks=ranks, special_tokens={})
    want = ref.encode_ordinary(text)
    assert ours.encode_ordinary(text) == want
    assert warm(ours).encode_ordinary(text) == want
    piece = text.encode()
    merged = reference.bpe_merge(piece, ranks)
    assert merged == want or piece in ranks
    splits, orphans = oracles.backtrack_splits(ranks)
    assert oracles.bpe_backtrack(piece, ranks, splits, orphans=orphans) == merged
    if oracles.merge_splits(ranks) is not None:
        assert oracles.bpe_backtrack(piece, ranks, oracles.merge_splits(ranks)) == merged


def last_merges(ranks: dict[bytes, int]) -> dict[int, tuple[int, int]] | None:
    """merge_splits by its definition: merge each token's bytes, keep the last merge."""
    splits = {}
    for token, rank in ranks.items():
        if len(token) < 2:
            continue
        parts = [token[i:i + 1] for i in range(len(token))]
        last = None
        while len(parts) > 1:
            found = [(ranks[a + b], i) for i, (a, b) in enumerate(zip(parts, parts[1:])) if a + b in ranks]
            if not found:
                return None
            _, at = min(found)
            last = (ranks[parts[at]], ranks[parts[at + 1]])
            parts[at:at + 2] = [parts[at] + parts[at + 1]]
        if max(last) >= rank:
            return None
        splits[rank] = last
    return splits


def in_given_order(tokens: list[str]) -> dict[bytes, int]:
    """The 256 bytes, then `tokens` ranked in the order given (hypothesis draws it at random,
    so a token may rank below its own parts: orphans and tangled tokens)."""
    ranks = {bytes([b]): b for b in range(256)}
    for t in tokens:
        ranks[t.encode()] = len(ranks)
    return ranks


@SETTINGS
@given(ranks=vocabularies)
def test_merge_splits_by_rank_order_equal_the_last_merges(ranks):
    assert oracles.merge_splits(ranks) == last_merges(ranks)


@SETTINGS
@given(
    tokens=st.lists(st.text(alphabet="abc", min_size=2, max_size=6), min_size=1, max_size=40, unique=True),
    text=st.text(alphabet="abc", min_size=65, max_size=900),
    run=st.integers(0, 300),
)
def test_trie_merge_on_any_rank_order_equal_to_tiktoken(tokens, text, run, trie_level):
    """Tokens in random rank order (a merge may make a pair of lower rank than itself, and
    merges of one rank come in rounds): the trie merge of the chunks stays tiktoken's."""
    import tiktoken

    ranks = in_given_order(tokens)
    text = "ab" * run + text
    ours = warm(tokenforge.Encoding("t", pat_str=WHOLE, mergeable_ranks=ranks, special_tokens={}))
    ref = tiktoken.Encoding("t", pat_str=WHOLE, mergeable_ranks=ranks, special_tokens={})
    assert ours.encode_ordinary(text) == ref.encode_ordinary(text)


@SETTINGS
@given(
    tokens=st.lists(st.text(alphabet="abc", min_size=3, max_size=6), min_size=1, max_size=80, unique=True),
    lengths=st.lists(st.integers(3, 256), min_size=1, max_size=6),
    seed=st.integers(0, 2**32 - 1),
)
def test_trie_merge_of_chunks_of_every_length_equal_to_tiktoken(tokens, lengths, seed, trie_level):
    """The keys a trie merge writes reach its key array only after the next scan or merge,
    which takes them from registers (trie_chunk_merge.cc): chunks of every length from 3 to
    256 bytes (an "x", in no token, cuts), so both merges (at most 63 bytes, and longer ones
    with block minima), over every pair of "abc" and longer tokens in random rank order,
    so that most joins are tokens and those held-back keys are often the smallest or the
    second smallest.  The expected ids are tiktoken's."""
    import tiktoken

    rng = random.Random(seed)
    words = [a + b for a in "abc" for b in "abc"] + tokens
    rng.shuffle(words)
    ranks = in_given_order(words)
    text = "x".join("".join(rng.choice("abc") for _ in range(k)) for k in lengths)
    ours = warm(tokenforge.Encoding("t", pat_str=WHOLE, mergeable_ranks=ranks, special_tokens={}))
    ref = tiktoken.Encoding("t", pat_str=WHOLE, mergeable_ranks=ranks, special_tokens={})
    assert ours.encode_ordinary(text) == ref.encode_ordinary(text)


def test_trie_merge_joins_through_pairs_that_are_no_tokens(trie_level):
    """The trie merge starts the walk of two single bytes from the pair table, token or not:
    "bc" is no token but starts "bca", which "b" + "ca" makes (and "cabca", ranked last,
    keeps the cuts out of "bca" * k; an "x" cuts, so the pieces over 64 bytes are merged as
    chunks of 45 and 120 bytes: both trie merges, for chunks of at most 63 bytes and longer)."""
    import tiktoken

    ranks = in_given_order(["ca", "bca", "ab", "cabca"])
    ours = warm(tokenforge.Encoding("t", pat_str=WHOLE, mergeable_ranks=ranks, special_tokens={}))
    ref = tiktoken.Encoding("t", pat_str=WHOLE, mergeable_ranks=ranks, special_tokens={})
    for text in ["bca" * 15 + "x" + "bca" * 40, "x" + "abca" * 30, "b" + "cab" * 21 + "cx" + "bca" * 10]:
        want = ref.encode_ordinary(text)
        assert ours.encode_ordinary(text) == want, text
    assert ref.encode_ordinary("bca" * 15) == [257] * 15  # worked by hand: "ca" first, then "b" + "ca"


@SETTINGS
@given(
    tokens=st.lists(st.text(alphabet="abc", min_size=2, max_size=6), min_size=1, max_size=40, unique=True),
    text=st.text(alphabet="abc", min_size=1, max_size=120),
)
def test_second_smallest_key_rule_equals_the_plain_merge(tokens, text):
    """The reference of the trie merge's skipped scans (`bpe_merge_second_smallest`) gives
    the plain merge's ids in any rank order (joins ranking below their parts included)."""
    ranks = in_given_order(tokens)
    assert oracles.bpe_merge_second_smallest(text.encode(), ranks) == reference.bpe_merge(text.encode(), ranks)


def test_second_smallest_key_rule_on_many_small_vocabularies():
    """Denser than the random draws above: 3000 vocabularies of a few two- and three-byte
    tokens in random order and short texts, where a join ranking below the second smallest
    key (which the rule must not skip past) comes up often."""
    rng = random.Random(7)
    words = ["".join(w) for k in (2, 3) for w in itertools.product("abc", repeat=k)]
    for _ in range(3000):
        ranks = in_given_order(rng.sample(words, rng.randrange(2, 9)))
        text = "".join(rng.choice("abc") for _ in range(rng.randrange(2, 13))).encode()
        assert oracles.bpe_merge_second_smallest(text, ranks) == reference.bpe_merge(text, ranks), (ranks, text)


def test_trie_merge_takes_the_second_smallest_key_only_when_still_next(trie_level):
    """A scan of the trie merge also finds the second smallest key, and merges it next
    without a scan only if the first merge wrote no smaller key.  In "abcd" the first merge
    is "ab" and the second smallest key "cd", but "ab" + "c" ranks below "cd": tiktoken
    merges "abc" next (worked by hand: [abc, d]).  Chunks of 4 bytes (a cut before each
    "a") and, with "cdab" a token, one chunk of 80 bytes: both trie merges."""
    import tiktoken

    for extra in [[], ["cdab"]]:
        ranks = in_given_order(["ab", "abc", "cd", "ef", "efg"] + extra)
        ours = warm(tokenforge.Encoding("t", pat_str=WHOLE, mergeable_ranks=ranks, special_tokens={}))
        ref = tiktoken.Encoding("t", pat_str=WHOLE, mergeable_ranks=ranks, special_tokens={})
        assert ref.encode_ordinary("abcd") == [257, ord("d")]
        for text in ["abcd" * 20, "abcd" * 20 + "efgh" * 20, "ab" + "cdab" * 30 + "cd"]:
            assert ours.encode_ordinary(text) == ref.encode_ordinary(text), (extra, text)
    # One chunk of 73 bytes ("za" and "aa" keep the cuts out): "xy" first, then "xyz", which
    # ranks below the second smallest key "za" (worked by hand: [xyz, aa * 35]).
    ranks = in_given_order(["xy", "xyz", "za", "aa"])
    ours = warm(tokenforge.Encoding("t", pat_str=WHOLE, mergeable_ranks=ranks, special_tokens={}))
    ref = tiktoken.Encoding("t", pat_str=WHOLE, mergeable_ranks=ranks, special_tokens={})
    assert ref.encode_ordinary("xyz" + "a" * 70) == [257] + [259] * 35
    for text in ["xyz" + "a" * 70, "xyz" + "a" * 40 + "xyz" + "a" * 40]:
        assert ours.encode_ordinary(text) == ref.encode_ordinary(text), text


@SETTINGS
@given(ranks=vocabularies)
def test_compatible_means_the_pair_merges_into_itself(ranks):
    """In a merge-closed vocabulary, compatible(x, y) iff merging x's bytes + y's bytes gives [x, y]."""
    splits = oracles.merge_splits(ranks)
    if splits is None:
        return
    joins = oracles.pair_joins(ranks)
    by_id = {r: t for t, r in ranks.items()}
    ids = [ranks[c] for c in (b"a", b"b", b"c", b"d")] + [r for r in by_id if r >= 256]
    for x in ids:
        for y in ids:
            merged = reference.bpe_merge(by_id[x] + by_id[y], ranks)
            assert oracles.compatible(x, y, splits, joins) == (merged == [x, y]), (by_id[x], by_id[y])


def test_merge_splits_hand_worked():
    """b"abc" = b"ab" + b"c" is merge-closed; with b"abc" ranked before b"ab" its last
    merge joins a higher rank; b"bcd" and b"abcd" are not reached by merging their own bytes."""
    base = {bytes([b]): b for b in range(256)}
    a, b, c, d = b"abcd"
    assert oracles.merge_splits(base | {b"ab": 256, b"abc": 257}) == {256: (a, b), 257: (256, c)}
    assert oracles.merge_splits(base | {b"abc": 256, b"ab": 257}) is None
    assert oracles.merge_splits(base | {b"bc": 256, b"bcd": 257, b"cd": 258}) == {256: (b, c), 257: (256, d), 258: (c, d)}
    assert oracles.merge_splits(base | {b"cd": 256, b"bcd": 257, b"bc": 258}) == {256: (c, d), 257: (b, 256), 258: (b, c)}
    assert oracles.merge_splits(base | {b"ab": 256, b"bc": 257, b"bcd": 258, b"abcd": 259}) is None  # stops at ab, c, d
    assert oracles.merge_splits(base | {b"bcd": 256}) is None


def test_not_merge_closed_vocabulary_long_pieces():
    """b"abc" is ranked before b"ab" (not merge-closed: b"abc" is tangled, merged from
    b"ab" + b"c", worked by hand)."""
    import tiktoken

    ranks = {bytes([b]): b for b in range(256)} | {b"abc": 256, b"ab": 257, b"ca": 258, b"bca": 259}
    ours = warm(tokenforge.Encoding("t", pat_str=WHOLE, mergeable_ranks=ranks, special_tokens={}))
    ref = tiktoken.Encoding("t", pat_str=WHOLE, mergeable_ranks=ranks, special_tokens={})
    assert oracles.backtrack_splits(ranks) == ({257: (97, 98), 258: (99, 97), 259: (98, 258)}, set())
    for text in ["abc" * 400, "ab" * 300 + "c", "abca" * 200, "c" + "abc" * 300, "bca" * 300, "abcabca" * 100]:
        assert ours.encode_ordinary(text) == ref.encode_ordinary(text)


def test_long_piece_tables_shared_only_by_equal_vocabularies():
    """Models over equal vocabularies share one set of long-piece tables (SharedVocab);
    vocabularies with the same bytes under other ids, or one token more, must not.  Each
    encoding is warmed (its tables built) after the others, then checked against tiktoken
    on texts where the two rank orders merge differently (worked by hand: with b"ab"
    before b"ca", "abca" merges a+b first; with b"ca" first, c+a)."""
    import tiktoken

    base = {bytes([b]): b for b in range(256)}
    first = base | {b"abc": 256, b"ab": 257, b"ca": 258, b"bca": 259}
    vocabularies = [
        first,
        base | {b"abc": 256, b"ca": 257, b"ab": 258, b"bca": 259},  # two ids swapped
        first | {b"cab": 260},  # one token more
        dict(reversed(list(first.items()))),  # equal to the first, built in another order
    ]
    pairs = []
    for ranks in vocabularies:
        ours = warm(tokenforge.Encoding("t", pat_str=WHOLE, mergeable_ranks=ranks, special_tokens={}))
        pairs.append((ours, tiktoken.Encoding("t", pat_str=WHOLE, mergeable_ranks=ranks, special_tokens={})))
    texts = ["abca" * 300, "cab" * 400, "bcab" * 250 + "c", "a" + "bca" * 300, "abcab" * 200]
    for ours, ref in pairs:
        for text in texts:
            assert ours.encode_ordinary(text) == ref.encode_ordinary(text)
    assert pairs[0][0].encode_ordinary("abca" * 300) != pairs[1][0].encode_ordinary("abca" * 300)


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_tables_built_while_two_threads_encode(name):
    """A fresh vocabulary meets two long pieces at once on two threads: one builds the
    tables, the other waits for them (or merges without them); both give tiktoken's ids.
    (unshared(): tables no other test built.)"""
    import tiktoken

    ours, _ = pair(name)
    ranks = unshared(name)
    fresh = tokenforge.Encoding(name, pat_str=ours._pat_str, mergeable_ranks=ranks, special_tokens={})
    ref = tiktoken.Encoding(name, pat_str=ours._pat_str, mergeable_ranks=ranks, special_tokens={})
    rng = random.Random(7)
    texts = ["a" * BUILD_AFTER, "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(BUILD_AFTER)),
             "^" * 300_000, "ab" * 150_000, " " * 300_000 + "x"]
    assert fresh.encode_ordinary_batch(texts, num_threads=2) == [ref.encode_ordinary(t) for t in texts]


def kinds_by_definition(ranks: dict[bytes, int]) -> tuple[dict[int, tuple[int, int]], set[int]]:
    """backtrack_splits by its definition: an orphan's bytes do not merge into it; the
    other multi-byte tokens are monotone (kept with their last merge) when every merge of
    their own bytes joins two parts of lower rank than the result."""
    splits, orphans = {}, set()
    for token, rank in ranks.items():
        if len(token) < 2:
            continue
        parts = [token[i:i + 1] for i in range(len(token))]
        merges = []
        while len(parts) > 1:
            found = [(ranks[a + b], i) for i, (a, b) in enumerate(zip(parts, parts[1:])) if a + b in ranks]
            if not found:
                break
            r, at = min(found)
            merges.append((ranks[parts[at]], ranks[parts[at + 1]], r))
            parts[at:at + 2] = [parts[at] + parts[at + 1]]
        if len(parts) > 1:
            orphans.add(rank)
        elif all(max(a, b) < r for a, b, r in merges):
            splits[rank] = merges[-1][:2]
    return splits, orphans


@SETTINGS
@given(ranks=vocabularies)
def test_backtrack_splits_equal_their_definition(ranks):
    assert oracles.backtrack_splits(ranks) == kinds_by_definition(ranks)


@SETTINGS
@given(tokens=st.lists(st.text(alphabet="abc", min_size=2, max_size=5), min_size=1, max_size=30, unique=True))
def test_backtrack_splits_in_any_rank_order_equal_their_definition(tokens):
    """Tokens in random rank order: many orphans and tangled tokens."""
    ranks = in_given_order(tokens)
    assert oracles.backtrack_splits(ranks) == kinds_by_definition(ranks)


@SETTINGS
@given(
    tokens=st.lists(st.text(alphabet="abc", min_size=2, max_size=6), min_size=1, max_size=40, unique=True),
    text=st.text(alphabet="abc", min_size=1, max_size=700),
    run=st.integers(0, 300),
)
def test_backtracking_on_any_rank_order_equal_to_tiktoken(tokens, text, run):
    """Tokens in random rank order (orphans and tangled tokens galore): the native
    backtracking merge of long chunks and the reference's both give tiktoken's ids."""
    import tiktoken

    ranks = in_given_order(tokens)
    text = "ab" * run + text
    ours = warm(tokenforge.Encoding("t", pat_str=WHOLE, mergeable_ranks=ranks, special_tokens={}))
    ref = tiktoken.Encoding("t", pat_str=WHOLE, mergeable_ranks=ranks, special_tokens={})
    want = ref.encode_ordinary(text)
    assert ours.encode_ordinary(text) == want
    piece = text.encode()
    if piece not in ranks:
        splits, orphans = oracles.backtrack_splits(ranks)
        assert oracles.bpe_backtrack(piece, ranks, splits, orphans=orphans) == want


@pytest.fixture(scope="module")
def llama3_kinds():
    """(ranks, splits, orphans, tangled) of Llama 3's vocabulary by the reference."""
    ours, _ = pair("llama3")
    ranks = ours._mergeable_ranks
    splits, orphans = oracles.backtrack_splits(ranks)
    tangled = sorted(r for t, r in ranks.items() if len(t) > 1 and r not in splits and r not in orphans)
    return ranks, splits, orphans, tangled


def test_llama3_orphans_and_tangled_tokens(llama3_kinds, whole_pieces):
    """Each orphan's bytes merge (tiktoken, as a piece one byte longer, so not looked up
    whole) into other tokens; each tangled token is its own merge."""
    ranks, splits, orphans, tangled = llama3_kinds
    _, ref = whole_pieces("llama3")
    by_id = {r: t for t, r in ranks.items()}
    # The orphans are exactly the tokens tiktoken never makes from their own bytes.
    by_tiktoken = {r for t, r in ranks.items() if len(t) > 1 and r not in ref._encode_bytes(t + b"\x00")}
    assert set(orphans) == by_tiktoken
    # The kinds, by their definition (the merge of each token's own bytes, written out above).
    assert (splits, set(orphans)) == kinds_by_definition(ranks)
    assert orphans and tangled  # Llama 3 has both (the docstrings name their numbers)
    for r in tangled:
        assert ref._encode_bytes(by_id[r] + b"\x00")[0] == r


def test_llama3_odd_tokens_in_context_equal_to_tiktoken(llama3_kinds, whole_pieces):
    """Long pieces made of Llama 3's orphans and tangled tokens, repeated and among random
    tokens and punctuation: the backtracking merge's two special cases, vs tiktoken."""
    ranks, splits, orphans, tangled = llama3_kinds
    whole, whole_ref = whole_pieces("llama3")
    by_id = {r: t for t, r in ranks.items()}
    ids = sorted(by_id)
    odd = sorted(orphans) + tangled
    rng = random.Random(588)
    odd_set = set(odd)
    with_odd = 0  # texts whose tiktoken ids hold an orphan or tangled token
    for round_ in range(300):
        def context():
            return b"".join(by_id[rng.choice(ids)] for _ in range(rng.randrange(4)))
        picks = [by_id[rng.choice(odd)] for _ in range(3)]
        piece = b"".join(context() + t * rng.randrange(1, 4) + rng.choice([b"", b" ", b".", b":", b"a"])
                         for t in (rng.choice(picks) for _ in range(rng.randrange(20, 120))))
        text = piece.decode("utf-8", "ignore")
        want = whole_ref.encode_ordinary(text)
        assert whole.encode_ordinary(text) == want, text[:40]
        with_odd += not odd_set.isdisjoint(want)
        if round_ % 30 == 0:  # the reference is slow
            piece = text.encode()[:600]
            assert oracles.bpe_backtrack(piece, ranks, splits, orphans=orphans) == whole_ref._encode_bytes(piece)
    assert with_odd > 30  # the texts reach the two special cases, by tiktoken's ids


def test_llama3_odd_tokens_repeated_equal_to_tiktoken(llama3_kinds, whole_pieces):
    """Each orphan and tangled token of Llama 3 repeated into a long piece, alone and with a
    byte between (punctuation, a letter, its own first or last byte): long chunks where the
    search meets them, vs tiktoken (checking a tangled pair by the border walk fails here)."""
    ranks, _, orphans, tangled = llama3_kinds
    whole, whole_ref = whole_pieces("llama3")
    by_id = {r: t for t, r in ranks.items()}
    rng = random.Random(107)
    for r in tangled + sorted(orphans):
        t = by_id[r]
        for piece in (t * (600 // len(t) + 1),
                      b"".join(t + rng.choice([b"", b"a", b".", b":", b" ", t[:1], t[-1:]]) for _ in range(60))):
            text = piece.decode("utf-8", "ignore")
            assert whole.encode_ordinary(text) == whole_ref.encode_ordinary(text), t


def test_llama3_backtracking_gives_up_to_the_bucket_queue(whole_pieces):
    """On Llama 3's b".:.:" runs each step of the search walks a 32-byte candidate to take
    a 2-byte token, so it gives up (BacktrackMerge::kWalkPerByte) partway and the bucket
    queue merges the chunk; near runs and random b".:" mixes stay with the search."""
    whole, whole_ref = whole_pieces("llama3")
    rng = random.Random(32)
    texts = [".:.:" * 5000, ":.:." * 3000 + "x", "." + ".:" * 4000 + "::", ".:.:" * 900 + "." * 2000 + ".:" * 1500,
             "".join(rng.choice(".:") for _ in range(20000)), "".join(rng.choice([".:", ".:.", ":"]) for _ in range(6000))]
    for text in texts:
        assert whole.encode_ordinary(text) == whole_ref.encode_ordinary(text), text[:12]
