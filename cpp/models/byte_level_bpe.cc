#include "models/byte_level_bpe.h"

#include <algorithm>
#include <atomic>
#include <cstring>

#include "models/trie_chunk_merge.h"
#include "util/byte_hash.h"

#if defined(__SSE4_1__)
#include <smmintrin.h>
#endif

namespace tf {

bool ByteLevelBpe::build(std::vector<std::pair<std::string, uint32_t>> ranks, std::string* error) {
  instance_ = new_cache_owner();
  TokenTable table;
  if (!table.build(std::move(ranks), error)) return false;
  shared_ = share_vocab(std::move(table));
  vocab_ = &shared_->table;
  all_bytes_ = true;
  for (int b = 0; b < 256; ++b) {
    uint8_t byte = static_cast<uint8_t>(b);
    byte_token_[b] = vocab_->find(&byte, 1);
    all_bytes_ = all_bytes_ && byte_token_[b] != kNoToken;
  }
  pair_token_.assign(65536, kNoToken);
  for (int b = 0; b < 65536; ++b) {
    uint8_t two[2] = {static_cast<uint8_t>(b & 255), static_cast<uint8_t>(b >> 8)};
    pair_token_[b] = vocab_->find(two, 2);
  }
  cuts_.build(*vocab_);
  atoms_.build(*vocab_);
  short_.build(*vocab_);
  wide_.build(*vocab_, true);
  return true;
}

bool ByteLevelBpe::encode_piece_slow(const uint8_t* p, size_t n, uint64_t h, std::vector<uint32_t>* out,
                                     PieceCache* cache) const {
  uint32_t whole = lookup_hashed(p, n, h);
  if (whole != kNoToken) {
    out->push_back(whole);
    return true;
  }
  return encode_merged(p, n, h, out, cache);
}

namespace {

// Appends the ids the general table of `cache` holds for [p, p + n) (hash h); false if none.
bool from_cache(const uint8_t* p, size_t n, uint64_t h, const PieceCache& cache, std::vector<uint32_t>* out) {
  uint32_t count;
  const uint32_t* ids = cache.find(p, n, h, &count);
  if (ids == nullptr) return false;
  out->insert(out->end(), ids, ids + count);
  return true;
}

// The merge of [p, p + n) (n <= ShortMergeCache::kMaxLen; key k, h its hash) from the
// short table of `cache`, or from its general table once the short one is full (then
// strings are kept in both; a chunk's merge under its bytes: no whole piece of up to 15
// bytes that is looked up there is a token, and for the others merge and encoding
// agree); else merge() appends it (false: nothing to store, returned as is) and it is
// stored.
template <class Merge>
bool through_short_cache(const uint8_t* p, size_t n, ShortTokenIndex::Key k, uint64_t h, PieceCache& cache,
                         std::vector<uint32_t>* out, Merge merge) {
  ShortMergeCache& shorts = cache.shorts();
  if (shorts.find(k, h, out)) return true;
  const uint64_t long_hash = shorts.full() ? hash_bytes(p, n) : 0;
  if (shorts.full() && from_cache(p, n, long_hash, cache, out)) return true;
  const size_t before = out->size();
  if (!merge()) return false;
  shorts.insert(k, h, out->data() + before, out->size() - before);
  if (shorts.full()) {
    cache.insert(p, n, long_hash != 0 ? long_hash : hash_bytes(p, n), out->data() + before, out->size() - before);
  }
  return true;
}

}  // namespace

bool ByteLevelBpe::bytes_are_tokens(const uint8_t* p, size_t n) const {
  if (all_bytes_) return true;  // then no piece can hold a byte that is not a token
  for (size_t i = 0; i < n; ++i) {
    if (byte_token_[p[i]] == kNoToken) return false;
  }
  return true;
}

bool ByteLevelBpe::encode_nontoken(const uint8_t* p, size_t n, std::vector<uint32_t>* out, PieceCache* cache) const {
  if (n == 1) return false;  // a byte that is not a token
  if (cache != nullptr && n <= ShortTokenIndex::kMaxLen) {
    ShortTokenIndex::Key k = ShortTokenIndex::key_exact(p, n);
    return encode_short_nontoken(p, n, k, ShortTokenIndex::hash(k), out, cache);
  }
  return encode_merged(p, n, hash_bytes(p, n), out, cache);
}

bool ByteLevelBpe::encode_short_nontoken(const uint8_t* p, size_t n, ShortTokenIndex::Key k, uint64_t h,
                                         std::vector<uint32_t>* out, PieceCache* cache) const {
  return through_short_cache(p, n, k, h, *cache, out, [&] {
    if (!bytes_are_tokens(p, n)) return false;
    // An ASCII piece is merged whole: its safe cuts (rare inside ASCII words) cost more to
    // look for than they save in a merge this short (-1.5 % on cold English, in-process
    // A/B).  Exact either way (see SafeCuts).  The key's length tag (<= 15) has no high bit.
    if (((k.lo | k.hi) & 0x8080808080808080ull) == 0) {
      merge_parts(p, n, out, cache);
    } else {
      merge_chunks(p, n, out, cache, true);  // cannot fail: every byte is a token, n <= kShortPiece
    }
    return true;
  });
}

size_t ByteLevelBpe::count_nontoken(const uint8_t* p, size_t n, std::vector<uint32_t>* scratch,
                                    PieceCache* cache) const {
  if (n == 1) return 0;  // a byte that is not a token
  if (cache != nullptr && n > ShortTokenIndex::kMaxLen) {
    uint64_t h = hash_bytes(p, n);
    uint32_t count;
    if (cache->find(p, n, h, &count) != nullptr) return count;
    scratch->clear();
    return encode_merged(p, n, h, scratch, cache) ? scratch->size() : 0;
  }
  scratch->clear();
  return encode_nontoken(p, n, scratch, cache) ? scratch->size() : 0;
}

bool ByteLevelBpe::encode_merged(const uint8_t* p, size_t n, uint64_t h, std::vector<uint32_t>* out,
                                 PieceCache* cache) const {
  if (cache != nullptr && n <= ShortTokenIndex::kMaxLen) {
    ShortTokenIndex::Key k = ShortTokenIndex::key_exact(p, n);
    return encode_short_nontoken(p, n, k, ShortTokenIndex::hash(k), out, cache);
  }
  if (cache != nullptr && from_cache(p, n, h, *cache, out)) return true;
  if (!bytes_are_tokens(p, n)) return false;
  size_t before = out->size();
  bool ok = merge_chunks(p, n, out, cache);
  if (ok && cache != nullptr) cache->insert(p, n, h, out->data() + before, out->size() - before);
  return ok;
}

size_t ByteLevelBpe::count_piece(const uint8_t* p, size_t n, std::vector<uint32_t>* scratch,
                                 PieceCache* cache) const {
  if (n == 1) return byte_token_[*p] != kNoToken ? 1 : 0;
  return count_long(p, n, hash_bytes(p, n), scratch, cache);
}

size_t ByteLevelBpe::count_long(const uint8_t* p, size_t n, uint64_t h, std::vector<uint32_t>* scratch,
                                PieceCache* cache) const {
  if (lookup_hashed(p, n, h) != kNoToken) return 1;
  if (cache != nullptr && n > ShortTokenIndex::kMaxLen) {
    uint32_t count;
    if (cache->find(p, n, h, &count) != nullptr) return count;
  }
  scratch->clear();
  return encode_merged(p, n, h, scratch, cache) ? scratch->size() : 0;
}

namespace {

// True if [p + 1, p + n) repeats one byte (n >= 2): a run, maybe after a space as the
// patterns cut " aaaa".
bool is_run(const uint8_t* p, size_t n) {
  uint8_t differ = 0;
  for (size_t i = 2; i < n; ++i) differ |= p[i] ^ p[1];
  return differ == 0;
}

}  // namespace

// A chunk is not looked up whole: tiktoken emits a token directly only for a whole piece,
// and a chunk's merges need not end in the token its bytes spell.  The chunks of a piece
// over kTrieAfter bytes are merged with the TokenTrie (trie_chunk_merge.h) once it is
// wanted: merge_short's scan is quadratic (~50 ns/byte on pieces of 253 spaces, against
// ~20 for the trie scan, whose batched rounds suit runs), so such pieces count toward
// building it, a stream of them gets the trie and a few never wait.  A piece of n <= 256
// bytes counts n * n / 512: what the scan costs over the trie grows with n, and the build
// (~50 ms for cl100k, ~150 for o200k) pays off only after a few MB of such pieces (at
// ~25 ns/byte saved), so a one-off megabyte of them does not build.  A chunk of such a
// piece that repeats one byte (253 spaces, or " aaaa") takes the backtracking merge
// instead, in about half the time, once it is built (LongPieceTables::backtrack_for_run);
// on other chunks (random spaces and tabs) its pair checks cost more than the trie scan.
// Out of line: inlined, its few lines cost merge_chunks' scan for cuts ~25% on a megabyte
// of one letter (register allocation of the loop).
__attribute__((noinline)) void ByteLevelBpe::merge_medium_chunk(const TokenTrie& trie, const uint8_t* q, size_t m,
                                                                std::vector<uint32_t>* out) const {
  const BacktrackMerge* linear = m > kTrieAfter && is_run(q, m) ? shared_->long_tables.backtrack_for_run(*vocab_, m) : nullptr;
  if (linear == nullptr || !linear->encode(q, m, out, instance_)) trie_chunk_merge(trie, q, m, out);
}

bool ByteLevelBpe::merge_chunks(const uint8_t* p, size_t n, std::vector<uint32_t>* out, PieceCache* cache,
                                bool whole_cached) const {
  const size_t weight = n > kShortPiece ? n : n * n / (2 * kShortPiece);
  const TokenTrie* trie = n > kTrieAfter && shared_->long_tables.wanted(weight) ? shared_->long_tables.trie(*vocab_) : nullptr;
  size_t start = 0;
  for (size_t b = cuts_.next(p, n, 1);; b = cuts_.next(p, n, b + 1)) {
    const uint8_t* q = p + start;
    size_t m = b - start;
    if (m == 1) {
      out->push_back(byte_token_[q[0]]);
    } else if (m == 2) {
      uint32_t t = pair_token_[q[0] | (q[1] << 8)];
      if (t != kNoToken) {
        out->push_back(t);
      } else {
        out->push_back(byte_token_[q[0]]);
        out->push_back(byte_token_[q[1]]);
      }
    } else if (trie != nullptr && m <= kMaxTrieChunk) {
      merge_medium_chunk(*trie, q, m, out);
    } else if (!(m <= kShortPiece ? merge_short(q, m, out, cache, !(whole_cached && m == n)) : merge_long(q, m, out))) {
      return false;
    }
    start = b;
    if (b == n) break;
  }
  return true;
}

namespace {

// The smallest value of r[0, n) (n a multiple of 8, padded with kNoToken) and the first
// index holding it.  With SSE4.1 (the x86-64-v2 baseline): unsigned minimums four lanes at
// a time, then the first block of four holding it; no branch but the block search's.  (An
// AVX2 clone measured no faster on typical pieces.)
TF_ALWAYS_INLINE
uint32_t leftmost_min(const uint32_t* r, size_t n, size_t* at) {
#if defined(__SSE4_1__)
  __m128i m = _mm_set1_epi32(-1);
  for (size_t i = 0; i < n; i += 4) m = _mm_min_epu32(m, _mm_load_si128(reinterpret_cast<const __m128i*>(r + i)));
  m = _mm_min_epu32(m, _mm_shuffle_epi32(m, 0x4E));
  m = _mm_min_epu32(m, _mm_shuffle_epi32(m, 0xB1));
  const uint32_t best = static_cast<uint32_t>(_mm_cvtsi128_si32(m));
  if (best == kNoToken) return best;
  for (size_t b = 0;; b += 4) {
    __m128i eq = _mm_cmpeq_epi32(_mm_load_si128(reinterpret_cast<const __m128i*>(r + b)), m);
    int hit = _mm_movemask_ps(_mm_castsi128_ps(eq));
    if (hit != 0) {
      *at = b + static_cast<size_t>(__builtin_ctz(static_cast<unsigned>(hit)));
      return best;
    }
  }
#else
  uint32_t best = kNoToken;
  for (size_t i = 0; i < n; ++i) best = r[i] < best ? r[i] : best;
  if (best == kNoToken) return best;
  for (size_t b = 0;; b += 8) {
    uint32_t hit = 0;
    for (size_t k = 0; k < 8; ++k) hit |= static_cast<uint32_t>(r[b + k] == best) << k;
    if (hit != 0) {
      *at = b + static_cast<size_t>(__builtin_ctz(hit));
      return best;
    }
  }
#endif
}

}  // namespace

// tiktoken's merge order with fixed arrays indexed by byte position: rank[i] is the token
// for the part starting at i joined with the next part (kNoToken when that is not a token
// or i no longer starts a part).  Each step takes the minimum over all n positions (a
// branch-free loop the compiler vectorizes), merges the leftmost part having it and
// refreshes two ranks; nothing is shifted.  O(n^2 / vector width) per piece.
bool ByteLevelBpe::merge_short(const uint8_t* p, size_t n, std::vector<uint32_t>* out, PieceCache* cache,
                               bool cached) const {
  if (cached && cache != nullptr && n <= ShortMergeCache::kMaxLen) {
    ShortTokenIndex::Key k = ShortTokenIndex::key_exact(p, n);
    return through_short_cache(p, n, k, ShortTokenIndex::hash(k), *cache, out, [&] {
      merge_parts(p, n, out, cache);
      return true;
    });
  }
  merge_parts(p, n, out, cache);
  return true;
}

// merge_short without the cache.
void ByteLevelBpe::merge_parts(const uint8_t* p, size_t n, std::vector<uint32_t>* out, PieceCache* cache) const {
  alignas(32) uint32_t rank[kShortPiece];
  uint32_t token[kShortPiece];  // token of the part starting at i
  uint16_t next[kShortPiece];   // start of the following part (n at the end)
  uint16_t prev[kShortPiece];   // start of the preceding part
  // The parts' ids come from the short index by key_wide, which reads 16 bytes whatever the
  // part's length (no branch on it): a copy of the piece padded for that.
  alignas(16) uint8_t bytes[kShortPiece + 16];
  std::memcpy(bytes, p, n);
  std::memset(bytes + n, 0, 16);
  const size_t padded = (n + 7) & ~size_t{7};
  // tiktoken's merge order over the parts set up below; part_rank(start, len) is the rank
  // of the bytes [start, start + len) (kNoToken if they are not a token).
  // The ASCII branch prefetches the substrings of length ahead_len in each step (see there).
  size_t ahead_len = kShortPiece;
  auto merge_loop = [&](auto part_rank) {
    while (true) {
      if (ahead_len <= n && ahead_len <= ShortTokenIndex::kMaxLen) {
        for (size_t i = 0; i + ahead_len <= n; ++i) short_.prefetch(ShortTokenIndex::key_wide(bytes + i, ahead_len));
        ++ahead_len;
      }
      size_t at = 0;
      uint32_t best = leftmost_min(rank, padded, &at);
      if (best == kNoToken) break;
      // Join the part at `at` with the next one.
      size_t right = next[at];
      size_t after = next[right];
      token[at] = best;
      rank[right] = kNoToken;
      next[at] = static_cast<uint16_t>(after);
      if (after < n) {
        prev[after] = static_cast<uint16_t>(at);
        rank[at] = part_rank(at, next[after] - at);
      } else {
        rank[at] = kNoToken;
      }
      if (at > 0) {
        size_t before = prev[at];
        rank[before] = part_rank(before, after - before);
      }
    }
    for (size_t i = 0; i < n; i = next[i]) out->push_back(token[i]);
  };
  uint16_t high[kShortPiece + 1];  // bytes >= 0x80 before position i
  high[0] = 0;
  for (size_t i = 0; i < n; ++i) high[i + 1] = static_cast<uint16_t>(high[i] + (p[i] >> 7));
  if (high[n] == 0) {
    for (size_t i = 0; i < n; ++i) {
      next[i] = static_cast<uint16_t>(i + 1);
      prev[i] = static_cast<uint16_t>(i == 0 ? 0 : i - 1);
      token[i] = byte_token_[p[i]];
      rank[i] = i + 1 < n ? pair_token_[p[i] | (p[i + 1] << 8)] : kNoToken;
    }
    for (size_t i = n; i < padded; ++i) rank[i] = kNoToken;
    // Each merge step probes the index for the parts it joined and the next step waits
    // for those probes, so a first-time merge is a chain of cache misses.  The parts are
    // substrings of the chunk, so their buckets are prefetched, one length per step: k
    // merges make parts of at most k + 1 bytes, so step k looks up spans of at most k + 2
    // bytes; those of 3 bytes are prefetched here and those of k + 3 bytes in step k (the
    // loop above), one step before any can be wanted.  Issuing them all here instead (at
    // most ~400 for 32 bytes) filled the queue of misses in flight, stalling the prefetches
    // themselves, and fetched lengths no step reached: in-process A/B on cold 4 MB
    // encodes, English cl100k -3 %, and -8 % in a loop merging 15k first-time English
    // pieces.  Measured no faster (on text without spaces, before CharAtoms): a hashed bit
    // per token to skip the buckets of non-tokens (in the prefetch, the probes, or both;
    // on English, slower), no prefetch, prefetching only substrings on character bounds
    // or of at most 10 bytes, start-major order with shared hashing (fewer instructions,
    // slower), a branch-free leftmost_min for <= 32 lanes (nor, on English, keys of rank
    // and position in one word), and a memo of 16-32-byte chunks (about 5 % hits).
    if (n <= kPrefetchChunk) {
      for (size_t i = 0; i + 3 <= n; ++i) short_.prefetch(ShortTokenIndex::key_wide(bytes + i, 3));
      ahead_len = 4;
    }
  } else {
    // Characters that CharAtoms admits start as their token, the rest as bytes: a third of
    // the parts and merge steps on CJK text, and only substrings on character bounds are
    // ever looked up.
    uint16_t starts[kShortPiece + 1];
    size_t parts = 0;
    for (size_t i = 0; i < padded; ++i) rank[i] = kNoToken;
    for (size_t i = 0; i < n;) {
      uint32_t id = kNoToken;
      size_t k = atoms_.at(p, n, i, &id);
      token[i] = k == 1 ? byte_token_[p[i]] : id;
      prev[i] = parts == 0 ? 0 : starts[parts - 1];
      next[i] = static_cast<uint16_t>(i + k);
      starts[parts++] = static_cast<uint16_t>(i);
      i += k;
    }
    starts[parts] = static_cast<uint16_t>(n);
    // A span holding a byte >= 0x80 can only be a token of the smaller wide_ index.
    auto index_of = [&](size_t start, size_t len) -> const ShortTokenIndex& {
      return high[start + len] != high[start] ? wide_ : short_;
    };
    auto wide_rank = [&](size_t start, size_t len) {
      if (len <= ShortTokenIndex::kMaxLen) return index_of(start, len).find(ShortTokenIndex::key_wide(bytes + start, len));
      return lookup(p + start, len);
    };
    if (n > kPrefetchAtoms) {
      for (size_t j = 0; j + 1 < parts; ++j) {
        size_t a = starts[j];
        rank[a] = wide_rank(a, starts[j + 2] - a);
      }
    } else {
      // As above, the buckets of the spans of 2.. parts of up to 15 bytes, fewest parts
      // first.  Those of two parts are the first lookups: their keys and buckets are kept.
      // About 24 prefetches per chunk for 12-13 lookups on the multi corpus (o200k), a
      // quarter of this function's instructions; still, measured no faster: prefetching
      // only the two-part spans, or none (12 and 16 % fewer instructions), or the three-part
      // spans only next to a two-part token once the first lookups are in; nor setting the
      // next chunk of a piece up while this one's probes are in flight.
      ShortTokenIndex::Key key2[kPrefetchAtoms];
      uint64_t bucket2[kPrefetchAtoms];
      const ShortTokenIndex* index2[kPrefetchAtoms];  // nullptr: over kMaxLen bytes
      bool any = false;
      for (size_t j = 0; j + 1 < parts; ++j) {
        size_t a = starts[j], len = starts[j + 2] - a;
        index2[j] = nullptr;
        if (len > ShortTokenIndex::kMaxLen) continue;
        any = true;
        const ShortTokenIndex& index = index_of(a, len);
        key2[j] = ShortTokenIndex::key_wide(bytes + a, len);
        bucket2[j] = index.bucket_of(key2[j]);
        index.prefetch_bucket(bucket2[j]);
        index2[j] = &index;
      }
      for (size_t span = 3; any && span <= parts; ++span) {
        any = false;  // once no span of this many parts fits, none longer does
        for (size_t j = 0; j + span <= parts; ++j) {
          size_t a = starts[j], len = starts[j + span] - a;
          if (len > ShortTokenIndex::kMaxLen) continue;
          any = true;
          index_of(a, len).prefetch(ShortTokenIndex::key_wide(bytes + a, len));
        }
      }
      for (size_t j = 0; j + 1 < parts; ++j) {
        size_t a = starts[j];
        rank[a] = index2[j] != nullptr ? index2[j]->find_in(key2[j], bucket2[j]) : lookup(p + a, starts[j + 2] - a);
      }
    }
    merge_loop(wide_rank);
    return;
  }
  auto part_rank = [&](size_t start, size_t len) {
    if (len <= ShortTokenIndex::kMaxLen) return short_.find(ShortTokenIndex::key_wide(bytes + start, len));
    return lookup(p + start, len);
  };
  merge_loop(part_rank);
}

}  // namespace tf
