#include "models/trie_chunk_merge.h"

#if defined(__SSE4_1__)
#include <smmintrin.h>
#endif

namespace tf {

namespace {

// The key of joining part i with the next into token t: t << 8 | i, or kNoToken when t is
// kNoToken (no branch: the walk's result is unpredictable on random text).
inline uint32_t keyed(uint32_t t, size_t i) {
  return (t << 8) | static_cast<uint32_t>(i) | -static_cast<uint32_t>(t == kNoToken);
}

// The smallest key of key[0, n) and of xa, xb, and in *second the second smallest (n a
// multiple of 4, at least 4; keys are distinct but for kNoToken), where keys equal to s0,
// s1 or s2 count as kNoToken.  xa and xb are the keys the merge before wrote, not yet
// stored, and s0-s2 the keys it ended (its own, and those of the part it absorbed and of
// the part before), not yet cleared: taken from registers, so the scan of key[] does not
// wait for that merge's walks, and its 16-byte loads do not meet 4-byte stores still in
// flight (a load that overlaps a narrower store waits until the store has left the core,
// what made a vectorized minimum over freshly stored keys no faster than scalar_min; the
// clears were such stores until the scan masked them: random letters, native merge,
// cl100k 13.0 -> 12.7 ns/byte).  Per lane the two smallest, then the lane of the
// smallest gives its second: one pass where scalar_min and scalar_min_above took two.
#if defined(__SSE4_1__)
template <bool kMask = true>
inline uint32_t two_smallest(const uint32_t* key, size_t n, uint32_t xa, uint32_t xb, uint32_t s0, uint32_t s1,
                             uint32_t s2, uint32_t* second) {
  const __m128i m0 = _mm_set1_epi32(static_cast<int>(s0)), m1 = _mm_set1_epi32(static_cast<int>(s1)),
                m2 = _mm_set1_epi32(static_cast<int>(s2));
  auto live = [&](__m128i v) {  // the stale keys to all ones
    if (!kMask) return v;
    return _mm_or_si128(v, _mm_or_si128(_mm_cmpeq_epi32(v, m0), _mm_or_si128(_mm_cmpeq_epi32(v, m1), _mm_cmpeq_epi32(v, m2))));
  };
  __m128i lo = live(_mm_load_si128(reinterpret_cast<const __m128i*>(key))), hi = _mm_set1_epi32(-1);
  for (size_t i = 4; i < n; i += 4) {
    const __m128i v = live(_mm_load_si128(reinterpret_cast<const __m128i*>(key + i)));
    hi = _mm_min_epu32(hi, _mm_max_epu32(lo, v));
    lo = _mm_min_epu32(lo, v);
  }
  const __m128i extra = _mm_setr_epi32(static_cast<int>(xa), static_cast<int>(xb), -1, -1);
  hi = _mm_min_epu32(hi, _mm_max_epu32(lo, extra));
  lo = _mm_min_epu32(lo, extra);
  __m128i m = _mm_min_epu32(lo, _mm_shuffle_epi32(lo, 0x4E));
  m = _mm_min_epu32(m, _mm_shuffle_epi32(m, 0xB1));
  __m128i c = _mm_blendv_epi8(lo, hi, _mm_cmpeq_epi32(lo, m));
  c = _mm_min_epu32(c, _mm_shuffle_epi32(c, 0x4E));
  c = _mm_min_epu32(c, _mm_shuffle_epi32(c, 0xB1));
  *second = static_cast<uint32_t>(_mm_cvtsi128_si32(c));
  return static_cast<uint32_t>(_mm_cvtsi128_si32(m));
}
// The merges clear the keys they end only after the next scan (it masks them).
constexpr bool kLateClears = true;
#else
uint32_t scalar_min(const uint32_t* key, size_t n);
uint32_t scalar_min_above(const uint32_t* key, size_t n, uint32_t floor);

// Without SSE4.1: the two scans of the four running minimums below, then xa and xb.  The
// merges clear the keys they end at once, so s0-s2 are not in key[].
constexpr bool kLateClears = false;
template <bool kMask = true>
inline uint32_t two_smallest(const uint32_t* key, size_t n, uint32_t xa, uint32_t xb, uint32_t, uint32_t, uint32_t,
                             uint32_t* second) {
  uint32_t lo = scalar_min(key, n);
  uint32_t hi = lo == kNoToken ? kNoToken : scalar_min_above(key, n, lo);
  for (uint32_t v : {xa, xb}) {
    hi = v < hi ? (v < lo ? lo : v) : hi;
    lo = v < lo ? v : lo;
  }
  *second = hi;
  return lo;
}
#endif

// The minimum of key[0, n) by scalar compares, for chunks of at most 32 bytes (most of
// them on random text): the vectorized loop's 16-byte loads cannot take the keys just
// stored as 4 bytes straight from the store buffer and wait for the cache, which costs
// more than the few compares (CJK ~9.0 -> 7.7 ns/byte, random letters ~3% faster).  Four
// running minimums, not one: every merge waits for this minimum, and one running minimum
// is a chain of n dependent compare-and-moves (random letters ~24.5 -> ~22.4 ns/byte).
// n is a multiple of 4, at least 4 (the keys are padded).  Kept out of line so the compiler does not
// vectorize it.
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((noinline, optimize("no-tree-vectorize", "no-tree-slp-vectorize")))
#elif defined(__clang__)
__attribute__((noinline))
#endif
uint32_t scalar_min(const uint32_t* key, size_t n) {
  uint32_t b0 = key[0], b1 = key[1], b2 = key[2], b3 = key[3];
#if defined(__clang__)
#pragma clang loop vectorize(disable)
#endif
  for (size_t i = 4; i < n; i += 4) {
    b0 = key[i] < b0 ? key[i] : b0;
    b1 = key[i + 1] < b1 ? key[i + 1] : b1;
    b2 = key[i + 2] < b2 ? key[i + 2] : b2;
    b3 = key[i + 3] < b3 ? key[i + 3] : b3;
  }
  b0 = b1 < b0 ? b1 : b0;
  b2 = b3 < b2 ? b3 : b2;
  return b2 < b0 ? b2 : b0;
}

// The smallest key of key[0, n) above `floor` (one of them), or kNoToken if none is: a
// second scan like scalar_min's, of key - (floor + 1), where `floor` itself wraps to the top.
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((noinline, optimize("no-tree-vectorize", "no-tree-slp-vectorize")))
#elif defined(__clang__)
__attribute__((noinline))
#endif
uint32_t scalar_min_above(const uint32_t* key, size_t n, uint32_t floor) {
  const uint32_t f = floor + 1;  // floor < kNoToken
  uint32_t b0 = key[0] - f, b1 = key[1] - f, b2 = key[2] - f, b3 = key[3] - f;
#if defined(__clang__)
#pragma clang loop vectorize(disable)
#endif
  for (size_t i = 4; i < n; i += 4) {
    const uint32_t x0 = key[i] - f, x1 = key[i + 1] - f, x2 = key[i + 2] - f, x3 = key[i + 3] - f;
    b0 = x0 < b0 ? x0 : b0;
    b1 = x1 < b1 ? x1 : b1;
    b2 = x2 < b2 ? x2 : b2;
    b3 = x3 < b3 ? x3 : b3;
  }
  b0 = b1 < b0 ? b1 : b0;
  b2 = b3 < b2 ? b3 : b2;
  return (b2 < b0 ? b2 : b0) + f;  // a padding key is kNoToken, so there is one above
}

// Chunks of at most 63 bytes (almost all of them on random text): the same merge, but the
// part starts are one word with a sentinel bit at n, so a part's neighbours are a bit scan
// each instead of loads from linked lists that each merge's chain of steps would wait for.
//
// Each scan also takes the second smallest key, and when the merge of the smallest writes
// only keys above it and leaves its key in place, it is the next merge, without a scan:
// every key it did not write was at least the second smallest, the one it removed is gone,
// and keys are distinct (they hold their position).  So exact for any vocabulary, ranks
// that a join makes below its parts included (then the shortcut is not taken).  The second
// scan is off the chain of dependent steps a merge waits for (minimum, walks, keys), and
// the merge it allows starts without waiting for the first merge's keys and the next scan:
// on random letters ~40% of the merges, ~8% faster.
//
// The keys a merge writes stay in registers until the next scan has read them (the scan
// of the others need not wait for the merge's walks; see two_smallest), and the scan takes
// both smallest keys in one vectorized pass: random letters ~3-5% faster (o200k, whose
// chunks are longer, the most).  The keys it ends are cleared after that scan too, which
// masks them; a merge finds the next three part starts from one shift of the word (each
// the lowest bit left after clearing the one before), not three shifts and scans in a row
// (random letters, native merge: cl100k 13.4 -> 13.0 ns/byte).
constexpr size_t kSmallChunk = 63;
// Chunks of at most 4 bytes (one vector of keys: emoji, CJK and Hangul characters cut
// after their lead bytes) clear the keys a merge ends at once and scan without masks:
// their few merges paid more for the masks than for the stores (native merge, 1 MB of
// random emoji, o200k: 10.3 -> 9.6 ns/byte, as before the late clears and walks).
constexpr size_t kTinyChunk = 4;

// kLate: the keys a merge ends are cleared after the next scan, which masks them
// (kLateClears), or at once.
template <bool kLate>
void small_chunk_merge(const TokenTrie& trie, const uint8_t* p, size_t n, std::vector<uint32_t>* out) {
  alignas(16) uint32_t key[64];  // as in trie_chunk_merge
  int32_t node[64];
  TokenTrie::Walk reach[64];
  const size_t padded = (n + 3) & ~size_t{3};
#if defined(__SSE4_1__)
  // Four keys to a store, so the first scan's loads take them from the stores.
  for (size_t i = 0; i < padded; i += 4) {
    uint32_t k[4];
    for (size_t j = 0; j < 4; ++j) {
      if (i + j + 1 < n) {
        const TokenTrie::BytePair e = trie.byte_pair_entry(p[i + j], p[i + j + 1]);
        k[j] = e.token == kNoToken ? kNoToken : (e.token << 8) | static_cast<uint32_t>(i + j);
        node[i + j] = trie.byte_node(p[i + j]);
        reach[i + j] = e.walk;
      } else {
        k[j] = kNoToken;
      }
    }
    _mm_store_si128(reinterpret_cast<__m128i*>(key + i), _mm_setr_epi32(static_cast<int>(k[0]), static_cast<int>(k[1]),
                                                                        static_cast<int>(k[2]), static_cast<int>(k[3])));
  }
#else
  for (size_t i = 0; i + 1 < n; ++i) {
    const TokenTrie::BytePair e = trie.byte_pair_entry(p[i], p[i + 1]);
    key[i] = e.token == kNoToken ? kNoToken : (e.token << 8) | static_cast<uint32_t>(i);
    node[i] = trie.byte_node(p[i]);
    reach[i] = e.walk;
  }
  for (size_t i = n - 1; i < padded; ++i) key[i] = kNoToken;
#endif
  node[n - 1] = trie.byte_node(p[n - 1]);
  uint64_t starts = ~uint64_t{0} >> (63 - n);  // bits 0 .. n - 1, and the sentinel n
  // The keys the last merge wrote, and where: key[] holds a stale key there until the
  // next scan has taken them from here (see two_smallest).  Unused, they point at
  // key[n - 1], which is always kNoToken (the last part has no right neighbour).
  size_t pa_at = n - 1, pb_at = n - 1;
  uint32_t pa = kNoToken, pb = kNoToken;
  // Stale keys the last merge left in key[] (the merged one, and those of the part it
  // absorbed and the part before), masked by the next scan and cleared after it.
  size_t r_at = n - 1;
  uint32_t s0 = kNoToken, s1 = kNoToken, s2 = kNoToken;
  // Merges the part at `at` with the next by key k; returns the smallest key it wrote.
  auto merge = [&](uint32_t k) {
    const size_t at = k & 255;
    const uint64_t x1 = starts >> (at + 1), x2 = x1 & (x1 - 1);
    const size_t right = at + 1 + static_cast<size_t>(__builtin_ctzll(x1));
    const size_t after = at + 1 + static_cast<size_t>(__builtin_ctzll(x2));
    node[at] = reach[at].node;  // the merge's key is a token, so its join was walked
    s0 = k;
    s2 = key[right];
    r_at = right;
    if (!kLate) key[at] = key[right] = kNoToken;
    starts &= ~(uint64_t{1} << right);
    uint32_t low = kNoToken;
    if (after < n) {
      const size_t end = at + 1 + static_cast<size_t>(__builtin_ctzll(x2 & (x2 - 1)));
      uint32_t t;
      reach[at] = trie.walk(reach[at], p + after, end - after, &t);
      low = keyed(t, at);
    }
    pa_at = at;
    pa = low;
    pb_at = n - 1;
    pb = kNoToken;
    s1 = kNoToken;
    if (at > 0) {
      const size_t before = 63 - static_cast<size_t>(__builtin_clzll(starts & ((uint64_t{1} << at) - 1)));
      s1 = key[before];
      if (!kLate) key[before] = kNoToken;
      uint32_t t;
      reach[before] = trie.walk(reach[before], p + right, after - right, &t);
      const uint32_t kb = keyed(t, before);
      pb_at = before;
      pb = kb;
      low = kb < low ? kb : low;
    }
    return low;
  };
  auto flush = [&] {
    key[r_at] = kNoToken;
    key[pa_at] = pa;
    key[pb_at] = pb;
  };
  while (true) {
    uint32_t second;
    const uint32_t best = two_smallest<kLate>(key, padded, pa, pb, s0, s1, s2, &second);
    flush();
    if (best == kNoToken) break;
    // The second is still in place unless it was the key of the part absorbed or of the
    // part before (the only keys the merge ended besides its own).
    if (merge(best) > second && second != s1 && second != s2) {
      flush();  // the second merge holds back its own
      merge(second);
    }
  }
  for (uint64_t s = starts & ~(uint64_t{1} << n); s != 0; s &= s - 1) out->push_back(trie.token(node[__builtin_ctzll(s)]));
}

// The minimum of 16 keys (16-byte aligned).  Vectorized: after a batched round every
// block is to be refreshed, and most keys were stored long before.
uint32_t block_minimum(const uint32_t* k) {
#if defined(__SSE4_1__)
  const __m128i* v = reinterpret_cast<const __m128i*>(k);
  __m128i m = _mm_min_epu32(_mm_min_epu32(_mm_load_si128(v), _mm_load_si128(v + 1)),
                            _mm_min_epu32(_mm_load_si128(v + 2), _mm_load_si128(v + 3)));
  m = _mm_min_epu32(m, _mm_shuffle_epi32(m, 0x4E));
  m = _mm_min_epu32(m, _mm_shuffle_epi32(m, 0xB1));
  return static_cast<uint32_t>(_mm_cvtsi128_si32(m));
#else
  return scalar_min(k, 16);
#endif
}

}  // namespace

void trie_chunk_merge(const TokenTrie& trie, const uint8_t* p, size_t n, std::vector<uint32_t>* out) {
  if (n <= kSmallChunk) {
    if (n <= kTinyChunk) return small_chunk_merge<false>(trie, p, n, out);
    return small_chunk_merge<kLateClears>(trie, p, n, out);
  }
  alignas(32) uint32_t key[kMaxTrieChunk];  // rank << 8 | i of joining part i with the next, or kNoToken
  int32_t node[kMaxTrieChunk];              // the part starting at i
  // The trie node part i's bytes then the next part's lead to, token or not (-1: none
  // starts so); for two single bytes it comes from the pair table with their token.  When
  // the next part grows by a merge, the walk goes on from here along the added bytes only:
  // parts are walked once each instead of again with every merge to their right, and the
  // part a merge makes is the node its key came from, with no walk.
  TokenTrie::Walk reach[kMaxTrieChunk];
  uint16_t next[kMaxTrieChunk], prev[kMaxTrieChunk];
  for (size_t i = 0; i < n; ++i) {
    next[i] = static_cast<uint16_t>(i + 1);
    prev[i] = static_cast<uint16_t>(i == 0 ? 0 : i - 1);
    node[i] = trie.byte_node(p[i]);
    const TokenTrie::BytePair e = i + 1 < n ? trie.byte_pair_entry(p[i], p[i + 1]) : TokenTrie::BytePair{kNoToken, 0, TokenTrie::Walk{0, TokenTrie::kDead}};
    reach[i] = e.walk;
    key[i] = e.token == kNoToken ? kNoToken : (e.token << 8) | static_cast<uint32_t>(i);
  }
  const size_t padded = (n + 15) & ~size_t{15};
  for (size_t i = n; i < padded; ++i) key[i] = kNoToken;
  // Over 64 bytes: the minimum of each block of 16 keys, refreshed before a scan for the
  // blocks merges changed since the last (at most three per merge, and a batched round of
  // merges refreshes each block once), so a minimum reads n / 16 block minima and a few
  // blocks instead of all n keys.
  uint32_t block_min[kMaxTrieChunk / 16] = {};
  uint32_t dirty = 0;  // bit b: block b changed since block_min[b] was taken
  const size_t blocks = padded / 16, blocks4 = (blocks + 3) & ~size_t{3};
  if (n > 64) {
    for (size_t b = 0; b < blocks; ++b) block_min[b] = block_minimum(key + 16 * b);
    for (size_t b = blocks; b < blocks4; ++b) block_min[b] = kNoToken;
  }
  size_t at = 0;
  bool batched = false;  // `at` is already the next merge (see below)
  int credit = n >= 32 ? 2 : 0;  // short chunks rarely repeat a rank
  // As in small_chunk_merge: the second smallest key at the last scan, and the smallest key
  // the merges since have written.  While that one is above the other and the other still
  // in place, it is the next merge.
  uint32_t second = kNoToken, low = kNoToken;
  // The keys the last merge wrote, held back from key[] (which holds kNoToken there) until
  // the next scan or merge: see small_chunk_merge.
  size_t pa_at = n - 1, pb_at = n - 1;  // key[n - 1] is always kNoToken
  uint32_t pa = kNoToken, pb = kNoToken;
  auto flush = [&] {
    key[pa_at] = pa;
    key[pb_at] = pb;
    dirty |= uint32_t{1} << (pa_at >> 4) | uint32_t{1} << (pb_at >> 4);
  };
  while (true) {
    if (!batched) {
      uint32_t best = kNoToken, next_best = kNoToken;
      if (n <= 64) {
        best = two_smallest(key, (n + 3) & ~size_t{3}, pa, pb, kNoToken, kNoToken, kNoToken, &next_best);
      } else {
        for (; dirty != 0; dirty &= dirty - 1) {
          const size_t b = static_cast<size_t>(__builtin_ctz(dirty));
          block_min[b] = block_minimum(key + 16 * b);
        }
        best = scalar_min(block_min, blocks4);
        if (best != kNoToken) {
          // The smallest other block minimum, or the next key in the block of the smallest.
          const uint32_t other = scalar_min_above(block_min, blocks4, best);
          const uint32_t inside = scalar_min_above(key + ((best & 255) & ~size_t{15}), 16, best);
          next_best = inside < other ? inside : other;
        }
        // The two smallest of {best, next_best} and {pa, pb}.
        const uint32_t x = pa < pb ? pa : pb, y = pa < pb ? pb : pa;
        const uint32_t hi1 = best < x ? x : best, lo2 = next_best < y ? next_best : y;
        best = best < x ? best : x;
        next_best = hi1 < lo2 ? hi1 : lo2;
      }
      flush();
      if (best == kNoToken) break;
      second = next_best;
      at = best & 255;
      low = kNoToken;
    } else {
      flush();
    }
    const uint32_t rank = key[at] >> 8;
    size_t right = next[at];
    size_t after = next[right];
    node[at] = reach[at].node;  // the merge's key is a token, so its join was walked
    key[right] = kNoToken;
    key[at] = kNoToken;
    next[at] = static_cast<uint16_t>(after);
    pa_at = at;
    pa = kNoToken;
    pb_at = n - 1;
    pb = kNoToken;
    if (after < n) {
      prev[after] = static_cast<uint16_t>(at);
      uint32_t t;
      reach[at] = trie.walk(reach[at], p + after, next[after] - after, &t);
      pa = keyed(t, at);
    }
    low = pa < low ? pa : low;
    if (at > 0) {
      size_t before = prev[at];
      key[before] = kNoToken;
      uint32_t t;
      reach[before] = trie.walk(reach[before], p + right, after - right, &t);
      pb_at = before;
      pb = keyed(t, before);
      low = pb < low ? pb : low;
    }
    dirty |= uint32_t{1} << (right >> 4) | uint32_t{1} << (at >> 4) | uint32_t{1} << (prev[at] >> 4);
    batched = false;
    if (low > second && key[second & 255] == second) {
      at = second & 255;
      batched = true;
      second = kNoToken;
      continue;
    }
    // The two new joins are longer than the token just made, so never of its rank.  If both
    // rank above it, every key still ranks at least `rank`, and the next merge is the next
    // part to the right with that rank, if any: found by a short forward look instead of a
    // whole scan.  Runs and periods merge whole rounds of one rank this way; on text where
    // ranks do not repeat the look fails and soon stops being tried (`credit`).
    if (credit > 0 && pa >> 8 > rank && (at == 0 || pb >> 8 > rank)) {
      // At most kLook positions ahead: the next merge of a run is a part length away, and
      // an unbounded look is a second linear scan per merge where ranks repeat far apart
      // (random spaces and tabs: ~27% of the time).
      constexpr size_t kLook = 16;
      const size_t stop = at + 1 + kLook < n ? at + 1 + kLook : n;
      size_t i = at + 1;
      while (i < stop && key[i] >> 8 != rank) ++i;
      if (i < stop) {
        at = i;
        batched = true;
        credit += credit < 8;
      } else {
        --credit;
      }
    }
  }
  for (size_t i = 0; i < n; i = next[i]) out->push_back(trie.token(node[i]));
}

}  // namespace tf
