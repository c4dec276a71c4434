#include "models/byte_level_bpe.h"

#include <algorithm>
#include <atomic>
#include <cstring>

#include "models/trie_chunk_merge.h"
#include "util/byte_hash.h"

namespace tf {

bool ByteLevelBpe::build(std::vector<std::pair<std::string, uint32_t>> ranks, std::string* error) {
  instance_ = new_cache_owner();
  if (!vocab_.build(std::move(ranks), error)) return false;
  for (int b = 0; b < 256; ++b) {
    uint8_t byte = static_cast<uint8_t>(b);
    byte_token_[b] = vocab_.find(&byte, 1);
  }
  pair_token_.assign(65536, kNoToken);
  for (int b = 0; b < 65536; ++b) {
    uint8_t two[2] = {static_cast<uint8_t>(b & 255), static_cast<uint8_t>(b >> 8)};
    pair_token_[b] = vocab_.find(two, 2);
  }
  cuts_.build(vocab_);
  long_tables_.reset();
  return true;
}

bool ByteLevelBpe::encode_piece_slow(const uint8_t* p, size_t n, uint64_t h, std::vector<uint32_t>* out,
                                     PieceCache* cache) const {
  uint32_t whole = lookup_hashed(p, n, h, cache);
  if (whole != kNoToken) {
    out->push_back(whole);
    return true;
  }
  if (cache != nullptr) {
    uint32_t count;
    if (const uint32_t* ids = cache->find(p, n, h, &count)) {
      out->insert(out->end(), ids, ids + count);
      return true;
    }
  }
  for (size_t i = 0; i < n; ++i) {
    if (byte_token_[p[i]] == kNoToken) return false;
  }
  size_t before = out->size();
  bool ok = merge_chunks(p, n, out, cache);
  if (ok && cache != nullptr) cache->insert(p, n, h, out->data() + before, out->size() - before);
  return ok;
}

size_t ByteLevelBpe::count_piece(const uint8_t* p, size_t n, std::vector<uint32_t>* scratch,
                                 PieceCache* cache) const {
  if (n == 1) return byte_token_[*p] != kNoToken ? 1 : 0;
  uint64_t h = hash_bytes(p, n);
  if (lookup_hashed(p, n, h, cache) != kNoToken) return 1;
  if (cache != nullptr) {
    uint32_t count;
    if (cache->find(p, n, h, &count) != nullptr) return count;
  }
  scratch->clear();
  return encode_piece(p, n, scratch, cache) ? scratch->size() : 0;
}

// A chunk is not looked up whole: tiktoken emits a token directly only for a whole piece,
// and a chunk's merges need not end in the token its bytes spell.  The chunks of a long
// piece are merged with the TokenTrie (trie_chunk_merge.h) once it is wanted.
bool ByteLevelBpe::merge_chunks(const uint8_t* p, size_t n, std::vector<uint32_t>* out, PieceCache* cache) const {
  const TokenTrie* trie = n > kShortPiece && long_tables_.wanted(n) ? long_tables_.trie(vocab_) : nullptr;
  size_t start = 0;
  for (size_t b = 1; b <= n; ++b) {
    if (b < n && !cuts_.at(p, n, b)) continue;
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
      trie_chunk_merge(*trie, q, m, out);
    } else if (!(m <= kShortPiece ? merge_short(q, m, out, cache) : merge_long(q, m, out, cache))) {
      return false;
    }
    start = b;
  }
  return true;
}

namespace {

// The smallest value of r[0, n) (n a multiple of 8, padded with kNoToken) and the first
// index holding it.  Blocks of 8 keep both loops branch-free so they vectorize (pminud
// with the x86-64-v2 baseline; an AVX2 clone measured no faster on typical pieces).
TF_ALWAYS_INLINE
uint32_t leftmost_min(const uint32_t* r, size_t n, size_t* at) {
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
}

}  // namespace

// tiktoken's merge order with fixed arrays indexed by byte position: rank[i] is the token
// for the part starting at i joined with the next part (kNoToken when that is not a token
// or i no longer starts a part).  Each step takes the minimum over all n positions (a
// branch-free loop the compiler vectorizes), merges the leftmost part having it and
// refreshes two ranks; nothing is shifted.  O(n^2 / vector width) per piece.
bool ByteLevelBpe::merge_short(const uint8_t* p, size_t n, std::vector<uint32_t>* out, PieceCache* cache) const {
  alignas(32) uint32_t rank[kShortPiece];
  uint32_t token[kShortPiece];  // token of the part starting at i
  uint16_t next[kShortPiece];   // start of the following part (n at the end)
  uint16_t prev[kShortPiece];   // start of the preceding part
  for (size_t i = 0; i < n; ++i) {
    next[i] = static_cast<uint16_t>(i + 1);
    prev[i] = static_cast<uint16_t>(i == 0 ? 0 : i - 1);
    token[i] = byte_token_[p[i]];
    rank[i] = i + 1 < n ? pair_token_[p[i] | (p[i + 1] << 8)] : kNoToken;
  }
  const size_t padded = (n + 7) & ~size_t{7};
  for (size_t i = n; i < padded; ++i) rank[i] = kNoToken;
  while (true) {
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
      rank[at] = lookup(p + at, next[after] - at, cache);
    } else {
      rank[at] = kNoToken;
    }
    if (at > 0) {
      size_t before = prev[at];
      rank[before] = lookup(p + before, after - before, cache);
    }
  }
  for (size_t i = 0; i < n; i = next[i]) out->push_back(token[i]);
  return true;
}

}  // namespace tf
