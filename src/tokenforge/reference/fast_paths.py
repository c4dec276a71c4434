"""The oracles of the native encoder's fast paths, in plain Python: each function computes
what one special path of the C++ merge computes, the way it computes it, so that property
tests can check it against the plain merge (:func:`tokenforge.reference.bpe.bpe_merge`)
and the native path against it.

* `safe_cuts` / `bpe_merge_in_chunks` — why a piece may be cut into chunks merged alone;
* `bpe_merge_second_smallest` — how the trie merge (and `merge_by_joins`) skips scans by
  applying the second-smallest merge of a scan when it is still valid;
* `bpe_backtrack` (with `backtrack_splits`, `merge_splits`, `compatible`) — the linear
  merge of long pieces;
* `bpe_merge_atoms` (with `char_atoms`) — characters that are tokens start as one part;
* `merge_by_joins` (with `own_joins`, `pair_joins`) — joining parts by their ids;
* `char_merges` — the merge of each three-byte character alone, read from a table;
* `bpe_merge_ascii` (with `ascii_triples`) — the exact filter that spares most lookups
  of a new short ASCII piece.

What it leaves out: speed; the plain algorithm is in :mod:`tokenforge.reference.bpe`.
"""

from __future__ import annotations

from tokenforge.reference.bpe import bpe_merge, merge_parts


def _merge_smallest_two(keys: list, merge, compared) -> None:
    """The merge loop of `bpe_merge_second_smallest` and `merge_by_joins`.

    keys[k] is the key of joining parts k and k + 1 (None: no join); merge(k) joins them,
    updates `keys` in place and returns what it wrote that is compared with compared(key)
    of the second smallest key (the smallest key it wrote, or its lowest rank; None if it
    wrote none).  Each scan merges the smallest key, then the second smallest without a
    scan when what the first merge wrote is above it and it is still in place.
    """
    while True:
        present = sorted(k for k in keys if k is not None)
        if not present:
            return
        second = present[1] if len(present) > 1 else None
        low = merge(keys.index(present[0]))
        if second is not None and (low is None or low > compared(second)) and second in keys:
            merge(keys.index(second))


def bpe_merge_second_smallest(piece: bytes, ranks: dict[bytes, int]) -> list[int]:
    """`bpe_merge`, finding its merges as the native trie merge does (trie_chunk_merge.cc;
    merge_joins in byte_level_bpe.cc uses the same rule over parts, see `merge_by_joins`).

    Each pair of adjacent parts has the key (rank of the joined bytes, start of the left
    part), or none; keys are distinct, and the smallest is tiktoken's next merge.  A scan of
    the keys takes the smallest and the second smallest.  A merge writes only the keys of
    the parts it touches, so when every key it wrote is above the second smallest and that
    one is still in place, every key is at least it: it is the next merge, without a scan.
    A join may rank below the merge that made it (then the scan is not skipped).

    >>> ranks = {bytes([b]): b for b in range(256)} | {b"ab": 256, b"abc": 257, b"cd": 258}
    >>> bpe_merge_second_smallest(b"abcd", ranks)
    [257, 100]
    """
    starts = list(range(len(piece)))  # the start of each part, in order

    def join_key(k: int) -> tuple[int, int] | None:
        if k + 1 >= len(starts):
            return None
        end = starts[k + 2] if k + 2 < len(starts) else len(piece)
        rank = ranks.get(piece[starts[k]:end])
        return None if rank is None else (rank, starts[k])

    keys = [join_key(k) for k in range(len(starts))]  # keys[k]: part k joined with part k + 1

    def merge(k: int) -> tuple[int, int] | None:
        """Joins parts k and k + 1; the smallest key this wrote, or None."""
        del starts[k + 1], keys[k + 1]
        written = [join_key(k)] + ([join_key(k - 1)] if k > 0 else [])
        keys[k] = written[0]
        if k > 0:
            keys[k - 1] = written[1]
        return min((w for w in written if w is not None), default=None)

    _merge_smallest_two(keys, merge, lambda key: key)
    return [ranks[piece[a:b]] for a, b in zip(starts, starts[1:] + [len(piece)])]


def safe_cuts(piece: bytes, ranks: dict[bytes, int]) -> list[int]:
    """Positions b (0 < b < len(piece)) where no token can hold both piece[b-1] and piece[b].

    No merge ever joins across such a cut (a merge makes a token), so the two sides merge
    exactly as they would alone.  A token holding both bytes is those two bytes, or holds
    piece[b-2:b+1] or piece[b-1:b+2]; the native SafeCuts keeps these as tables, and cuts
    without looking at the three-byte strings where the two bytes occur in no token.  Any
    subset of these cuts gives the same ids (a chunk between two of them is made of chunks
    between consecutive ones); the native merge uses only those at character bounds in
    runs of three-byte characters.

    >>> safe_cuts(b"abxab", {bytes([b]): b for b in range(256)} | {b"ab": 256})
    [2, 3]
    >>> safe_cuts(b"abxab", {bytes([b]): b for b in range(256)} | {b"ab": 256, b"bxa": 257})
    []
    """
    threes = {t[i:i + 3] for t in ranks for i in range(len(t) - 2)}
    return [
        b for b in range(1, len(piece))
        if piece[b - 1:b + 1] not in ranks
        and (b < 2 or piece[b - 2:b + 1] not in threes)
        and (b + 1 >= len(piece) or piece[b - 1:b + 2] not in threes)
    ]


def bpe_merge_in_chunks(piece: bytes, ranks: dict[bytes, int]) -> list[int]:
    """`bpe_merge` of each chunk between safe cuts: the same ids as `bpe_merge(piece)`.

    >>> bpe_merge_in_chunks(b"abxab", {bytes([b]): b for b in range(256)} | {b"ab": 256})
    [256, 120, 256]
    """
    bounds = [0, *safe_cuts(piece, ranks), len(piece)]
    return [i for a, b in zip(bounds, bounds[1:]) for i in bpe_merge(piece[a:b], ranks)]


def ascii_triples(ranks: dict[bytes, int]) -> tuple[set[bytes], set[bytes]]:
    """(the ASCII tokens of three bytes, the first three bytes of the ASCII tokens of 4..15):
    the native AsciiTriples, two bits per string of three ASCII bytes.

    >>> threes, starts = ascii_triples({bytes([b]): b for b in range(256)} | {b"abc": 256, b"abcd": 257, b"xyzw": 258})
    >>> threes, sorted(starts)
    ({b'abc'}, [b'abc', b'xyz'])
    """
    ascii_tokens = [t for t in ranks if 3 <= len(t) <= 15 and max(t) < 0x80]
    return {t for t in ascii_tokens if len(t) == 3}, {t[:3] for t in ascii_tokens if len(t) > 3}


def bpe_merge_ascii(piece: bytes, ranks: dict[bytes, int], triples: tuple[set[bytes], set[bytes]]) -> list[int]:
    """`bpe_merge` of an ASCII piece of at most 15 bytes, asking `ranks` for a joined part only
    when `triples` (= ascii_triples(ranks)) lets it be a token, as the native merge of new
    short ASCII pieces does (ByteLevelBpe::merge_ascii): a token of three bytes is in the
    first set, one of 4..15 begins with a member of the second, so the answer is the same;
    the native index is asked far less often (random letters: ~1 lookup in 8).

    >>> ranks = {bytes([b]): b for b in range(256)} | {b"ab": 256, b"cd": 257, b"abcd": 258}
    >>> bpe_merge_ascii(b"abcde", ranks, ascii_triples(ranks))
    [258, 101]
    """
    threes, starts = triples
    parts = [piece[i:i + 1] for i in range(len(piece))]

    def rank(joined: bytes) -> int | None:
        if len(joined) > 2 and joined[:3] not in (threes if len(joined) == 3 else starts):
            return None  # surely no token
        return ranks.get(joined)

    while len(parts) > 1:
        keys = [(r, i) for i in range(len(parts) - 1) if (r := rank(parts[i] + parts[i + 1])) is not None]
        if not keys:
            break
        _, at = min(keys)
        parts[at:at + 2] = [parts[at] + parts[at + 1]]
    return [ranks[p] for p in parts]


def char_merges(ranks: dict[bytes, int]) -> dict[bytes, list[int]]:
    """The merge alone of every three-byte UTF-8 character whose bytes are tokens (the native
    CharMerges): `bpe_merge` of its three bytes, worked out from its two pairs.  A chunk
    between two safe cuts that is one such character merges exactly as alone (see
    `safe_cuts`), so the native merge takes its ids from this table.

    >>> ranks = {bytes([b]): b for b in range(256)} | {b"\\xe4\\xb8": 256, b"\\xe4\\xb8\\x80": 257}
    >>> merges = char_merges(ranks)
    >>> merges["一".encode()], merges["丁".encode()], merges["字".encode()]
    ([257], [256, 129], [229, 173, 151])
    """
    merges = {}
    for cp in range(0x800, 0x10000):
        c = bytes([0xE0 | cp >> 12, 0x80 | (cp >> 6) & 0x3F, 0x80 | cp & 0x3F])
        if any(c[i:i + 1] not in ranks for i in range(3)):
            continue
        left, right = ranks.get(c[:2]), ranks.get(c[1:])
        if left is None and right is None:
            merges[c] = [ranks[c[i:i + 1]] for i in range(3)]
        elif c in ranks:
            merges[c] = [ranks[c]]
        elif right is None or (left is not None and left <= right):
            merges[c] = [left, ranks[c[2:]]]
        else:
            merges[c] = [ranks[c[:1]], right]
    return merges


def _char_at(piece: bytes, i: int) -> int:
    """The length (2 or 3) of the UTF-8 character at piece[i], if one is there whole; else 1."""
    for k in (2, 3):
        try:
            if i + k <= len(piece) and len(piece[i:i + k].decode("utf-8")) == 1:
                return k
        except UnicodeDecodeError:
            pass
    return 1


def char_atoms(ranks: dict[bytes, int]) -> dict[bytes, int]:
    """The two- and three-byte characters that may start a merge as their token (the native
    CharAtoms, conditions 1 and 3): c's bytes merge alone into c, and every longer token
    holding c ranks above the highest rank of that merge.  Condition 2 depends on the
    neighbours and is checked by `bpe_merge_atoms`.

    >>> ranks = {bytes([b]): b for b in range(256)} | {"é".encode(): 256, "aé".encode(): 257}
    >>> char_atoms(ranks)
    {b'\\xc3\\xa9': 256}
    >>> char_atoms(ranks | {"bé".encode(): 100})
    {}
    """
    atoms = {}
    for c, rank in ranks.items():
        if not 2 <= len(c) <= 3 or _char_at(c, 0) != len(c):
            continue
        if bpe_merge(c, ranks) != [rank]:
            continue
        parts, top = [c[i:i + 1] for i in range(len(c))], 0
        while len(parts) > 1:  # the ranks c's own merge applies
            r, i = min((ranks.get(parts[i] + parts[i + 1], 1 << 62), i) for i in range(len(parts) - 1))
            top = max(top, r)
            parts[i:i + 2] = [parts[i] + parts[i + 1]]
        if all(r > top for t, r in ranks.items() if len(t) > len(c) and c in t):
            atoms[c] = rank
    return atoms


def bpe_merge_atoms(piece: bytes, ranks: dict[bytes, int], atoms: dict[bytes, int]) -> list[int]:
    """`bpe_merge(piece, ranks)`, starting each character of `atoms` (= char_atoms(ranks)) as
    one part when no token covers part of it and bytes outside it (condition 2), else as
    bytes.  While such a character is unfinished nothing outside can join its bytes, and any
    merge that joins it whole ranks above its own merges, so the choices are tiktoken's.
    (The native check of condition 2 is a hashed, more cautious form of the one here.)

    >>> ranks = {bytes([b]): b for b in range(256)} | {"é".encode(): 256, "aé".encode(): 257}
    >>> bpe_merge_atoms("aéé".encode(), ranks, char_atoms(ranks)), bpe_merge("aéé".encode(), ranks)
    ([257, 256], [257, 256])
    """
    return merge_parts(_start_parts(piece, ranks, atoms), ranks)


def _start_parts(piece: bytes, ranks: dict[bytes, int], atoms: dict[bytes, int]) -> list[bytes]:
    """The parts `bpe_merge_atoms` starts from: each character of `atoms` whole where no
    token straddles one of its edges, every other byte alone."""
    longest = max(map(len, ranks))
    parts, i = [], 0
    while i < len(piece):
        k = _char_at(piece, i)
        c = piece[i:i + k]
        straddled = any(
            piece[a:b] in ranks
            for a in range(max(0, i - longest), i + k)
            for b in range(a + 2, min(len(piece), a + longest) + 1)
            if (a < i < b < i + k) or (i < a < i + k < b)
        )
        if k > 1 and c in atoms and not straddled:
            parts.append(c)
        else:
            parts.extend(c[j:j + 1] for j in range(k))
        i += k
    return parts


def own_joins(ranks: dict[bytes, int]) -> dict[tuple[int, int], int]:
    """(x, y) -> t for every token t of two or more bytes whose own bytes, merged alone,
    end as t by joining the two parts x and y (the native JoinIndex, for the tokens that
    hold a byte >= 0x80).  Tokens that their bytes never merge into have no entry.

    If any merge joins adjacent parts A and B, no earlier merge crossed the outer borders
    of A + B or the one between them, so the merges inside A + B were those of its bytes
    alone (each the lowest, leftmost pair inside), and that merge alone ends in the same
    join.  So two parts whose bytes spell a token but are not its own last join are never
    joined, and `merge_by_joins` may give them no rank.

    >>> own_joins({b"a": 0, b"b": 1, b"c": 2, b"ab": 3, b"bc": 4, b"abc": 5})
    {(0, 1): 3, (1, 2): 4, (3, 2): 5}
    """
    joins = {}
    for t, r in ranks.items():
        if len(t) < 2:
            continue
        parts = [t[i:i + 1] for i in range(len(t))]
        while len(parts) > 2:  # the merge of t alone, up to its last join
            best = min(((ranks.get(parts[i] + parts[i + 1], 1 << 62), i) for i in range(len(parts) - 1)))
            if best[0] == 1 << 62:
                break
            parts[best[1]:best[1] + 2] = [parts[best[1]] + parts[best[1] + 1]]
        if len(parts) == 2 and parts[0] in ranks and parts[1] in ranks:
            joins[(ranks[parts[0]], ranks[parts[1]])] = r
    return joins


def merge_by_joins(piece: bytes, ranks: dict[bytes, int], atoms: dict[bytes, int],
                   joins: dict[tuple[int, int], int]) -> list[int]:
    """`bpe_merge(piece, ranks)` as the native merge of non-ASCII pieces runs it
    (`atoms` = char_atoms(ranks), `joins` = own_joins(ranks)): characters start as in
    `bpe_merge_atoms`, and two parts join into `joins[(x, y)]` of their ids x and y
    instead of the token their bytes spell (the native code asks JoinIndex when either
    part holds a byte >= 0x80, and the token of their bytes otherwise, which is the same
    whenever it matters; see `own_joins`).  Merges are found as in
    `bpe_merge_second_smallest`: a join's key is (its token, the first index of its left
    part), and the second smallest key of a scan is merged next without a scan when the
    merge of the smallest wrote only tokens above its token (ranks alone are compared, as
    the native code does; on a tie the scan is not skipped) and left it in place.

    >>> ranks = {b"a": 0, b"b": 1, b"c": 2, b"ab": 3, b"bc": 4, b"abc": 5}
    >>> merge_by_joins(b"abc", ranks, {}, own_joins(ranks)), bpe_merge(b"abc", ranks)
    ([5], [5])
    """
    parts = [(i, ranks[part]) for i, part in enumerate(_start_parts(piece, ranks, atoms))]  # (index, id)

    def join_key(k: int) -> tuple[int, int] | None:
        if k + 1 >= len(parts):
            return None
        t = joins.get((parts[k][1], parts[k + 1][1]))
        return None if t is None else (t, parts[k][0])

    keys = [join_key(k) for k in range(len(parts))]  # keys[k]: part k joined with part k + 1

    def merge(k: int) -> int | None:
        """Joins parts k and k + 1; the lowest token this wrote, or None."""
        parts[k] = (parts[k][0], keys[k][0])
        del parts[k + 1], keys[k + 1]
        written = [join_key(k)] + ([join_key(k - 1)] if k > 0 else [])
        keys[k] = written[0]
        if k > 0:
            keys[k - 1] = written[1]
        return min((w[0] for w in written if w is not None), default=None)

    _merge_smallest_two(keys, merge, lambda key: key[0])
    return [t for _, t in parts]


def pair_joins(ranks: dict[bytes, int]) -> dict[tuple[int, int], int]:
    """(x, y) -> the rank of x's bytes + y's bytes, for every two tokens that join into one.

    >>> pair_joins({b"a": 0, b"b": 1, b"ab": 2})
    {(0, 1): 2}
    """
    return {(ranks[t[:k]], ranks[t[k:]]): r for t, r in ranks.items() for k in range(1, len(t))
            if t[:k] in ranks and t[k:] in ranks}


def backtrack_splits(ranks: dict[bytes, int]) -> tuple[dict[int, tuple[int, int]], set[int]]:
    """What `bpe_backtrack` needs of any vocabulary: (splits, orphans).

    `orphans`: the tokens whose own bytes do not merge into them.  Such a token never forms
    in any merge, not even as a passing part: if it formed over bytes [i, j), no merge
    before crossed i or j (parts only grow), so the merges inside [i, j) were those of its
    bytes alone (each the lowest, leftmost pair inside), which would then give the token.
    So leaving them out changes no merge; they matter only when a whole piece is one.

    `splits`: the last merge of each "monotone" token's own bytes, whose merge tree has
    ranks growing towards the root (tiktoken's own vocabularies have only such tokens and
    bytes): the pair check `compatible` walks these trees.  Found in rank order: merging
    token t's bytes with only the ranks below t leaves [a, b] (then joined into t) iff a + b
    spell t, both rank lower, and they are `compatible` when only ranks below t count;
    the walk is exact when a and b are monotone.  A multi-byte token that is neither is
    "tangled" (it merges into itself, but some merge of its tree has a lower rank than a
    part): pairs with it are checked by merging their bytes.

    >>> backtrack_splits({b"a": 0, b"b": 1, b"c": 2, b"ab": 3, b"abc": 4, b"bc": 5})
    ({3: (0, 1), 4: (3, 2), 5: (1, 2)}, set())
    >>> backtrack_splits({b"a": 0, b"b": 1, b"c": 2, b"d": 3, b"ab": 4, b"bcd": 5, b"abcd": 6})  # abcd: orphan
    ({4: (0, 1)}, {5, 6})
    >>> backtrack_splits({b"a": 0, b"b": 1, b"c": 2, b"abc": 3, b"ab": 4})  # abc: tangled
    ({4: (0, 1)}, set())
    """
    joins = pair_joins(ranks)
    candidates: dict[int, list[tuple[int, int]]] = {}
    for pair, token in joins.items():
        candidates.setdefault(token, []).append(pair)
    single = {r for t, r in ranks.items() if len(t) == 1}
    splits: dict[int, tuple[int, int]] = {}
    orphans: set[int] = set()
    for token, rank in sorted(ranks.items(), key=lambda item: item[1]):
        if len(token) < 2:
            continue
        split = next((pair for pair in candidates.get(rank, []) if max(pair) < rank
                      and all(p in splits or p in single for p in pair)
                      and compatible(*pair, splits, joins, below=rank)), None)
        if split is not None:
            splits[rank] = split
        elif bpe_merge(token, ranks) != [rank]:
            orphans.add(rank)
    return splits, orphans


def merge_splits(ranks: dict[bytes, int]) -> dict[int, tuple[int, int]] | None:
    """`backtrack_splits(ranks)[0]` if every multi-byte token is monotone (the vocabulary
    is "merge-closed": every token encodes to itself by a merge tree whose ranks grow
    towards the root), else None.

    >>> merge_splits({b"a": 0, b"b": 1, b"ab": 2, b"abb": 3})
    {2: (0, 1), 3: (2, 1)}
    >>> merge_splits({b"a": 0, b"b": 1, b"c": 2, b"abc": 3}) is None  # no merge reaches b"abc"
    True
    """
    splits, _ = backtrack_splits(ranks)
    return splits if len(splits) == sum(len(t) > 1 for t in ranks) else None


def compatible(left: int, right: int, splits: dict[int, tuple[int, int]], joins: dict[tuple[int, int], int],
               below: float = float("inf")) -> bool:
    """True if merging the bytes of tokens `left` + `right` gives [left, right] (given
    `splits` = merge_splits(ranks) and `joins` = pair_joins(ranks)), counting only the
    tokens of rank below `below`.

    Merging left + right runs each side's merge tree in rank order until a pair across the
    border is merged first.  Walk the border's states backwards from (left, right), undoing
    the later of the two sides' last merges (the right one on equal ranks: among equal
    ranks the leftmost goes first).  In state (x, y) the pair x + y, of rank c, is merged
    across the border iff it beats the merge that would consume x (c < its rank: that one
    lies to the left) and the one that would consume y (c <= its rank).

    >>> ranks = {b"a": 0, b"b": 1, b"ab": 2, b"bb": 3}
    >>> joins = {(0, 1): 2, (1, 1): 3}
    >>> compatible(0, 3, merge_splits(ranks), joins)  # b"abb" merges b"ab" first
    False
    >>> compatible(2, 1, merge_splits(ranks), joins)
    True
    """
    x, y = left, right
    x_limit, y_limit = below, below - 1  # ranks of the merges that would consume x and y
    while True:
        c = joins.get((x, y))
        if c is not None and c < x_limit and c <= y_limit:
            return False
        if x in splits and (y not in splits or x > y):
            x_limit, x = x, splits[x][1]
        elif y in splits:
            y_limit, y = y, splits[y][0]
        else:
            return True


def bpe_backtrack(piece: bytes, ranks: dict[bytes, int], splits: dict[int, tuple[int, int]],
                  joins: dict[tuple[int, int], int] | None = None, orphans: set[int] = frozenset()) -> list[int]:
    """`bpe_merge(piece, ranks)` in about linear time, for any vocabulary with every byte
    a token ((`splits`, `orphans`) = backtrack_splits(ranks), or `splits` = merge_splits(ranks)
    when that is not None; `joins` = pair_joins(ranks), computed if not given).

    A sequence of tokens that are not orphans is the BPE encoding of its bytes iff every
    two neighbours are compatible (merging the two's bytes gives the two).  The merge of
    the whole gives such a sequence: no merge crosses its borders, so inside two
    neighbours the merges were those of the pair alone.  Conversely, take the first merge
    of the whole that crosses a border of such a sequence: until then no merge crossed
    either neighbour's outer border, so the merges inside the pair were those of its bytes
    alone, and that merge would be the pair's next one too; so none crosses, and each
    token's bytes merge as alone, into the token.  Hence the encoding of every prefix the
    search reaches is unique.  Depth-first: at each position try the tokens starting
    there, longest first, keep the first compatible one; when none fits, mark the position
    dead (no encoding goes through it) and step back.  Each position is left for good at
    most once, so the work is O(n * longest token) pair checks.  A pair of monotone tokens
    (or bytes) is checked by `compatible`, a pair with a tangled token by merging its bytes.

    >>> ranks = {b"a": 0, b"b": 1, b"ab": 2, b"bb": 3}
    >>> bpe_backtrack(b"abb", ranks, merge_splits(ranks)), bpe_merge(b"abb", ranks)
    ([2, 1], [2, 1])
    """
    joins = pair_joins(ranks) if joins is None else joins
    by_id = {r: t for t, r in ranks.items()}
    longest = max(map(len, ranks))

    def fits(left: int, right: int) -> bool:
        if all(t in splits or len(by_id[t]) == 1 for t in (left, right)):
            return compatible(left, right, splits, joins)
        return bpe_merge(by_id[left] + by_id[right], ranks) == [left, right]

    dead = [False] * (len(piece) + 1)
    stack: list[tuple[int, int]] = []  # (token, its length)
    pos, limit = 0, longest  # try tokens of at most `limit` bytes at `pos`
    while pos < len(piece):
        for n in range(min(limit, len(piece) - pos), 0, -1):
            token = ranks.get(piece[pos:pos + n])
            if (token is not None and token not in orphans and not dead[pos + n]
                    and (not stack or fits(stack[-1][0], token))):
                stack.append((token, n))
                pos, limit = pos + n, longest
                break
        else:
            dead[pos] = True
            _, n = stack.pop()
            pos, limit = pos - n, n - 1
    return [token for token, _ in stack]
