#include "models/byte_level_bpe.h"

#include <algorithm>
#include <atomic>
#include <cstring>

#include "util/byte_hash.h"

namespace tf {

bool ByteLevelBpe::build(std::vector<std::pair<std::string, uint32_t>> ranks, std::string* error) {
  static std::atomic<uint64_t> instances{0};
  instance_ = ++instances;
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
  return true;
}

// Two-byte strings come from a direct table; strings of up to 16 bytes go through this
// thread's small front table (which remembers misses too) before the vocabulary.
inline uint32_t ByteLevelBpe::lookup_hashed(const uint8_t* p, size_t n, uint64_t h, PieceCache* cache) const {
  if (n == 2) return pair_token_[p[0] | (p[1] << 8)];
  if (cache == nullptr || n > PieceCache::kFrontMax) return vocab_.find_hashed(p, n, h);
  uint64_t head = load_head(p, n);
  uint64_t tail = 0;
  if (n > 8) std::memcpy(&tail, p + n - 8, 8);
  uint32_t id;
  if (cache->front_find(h, head, tail, n, &id)) return id;
  id = vocab_.find_hashed(p, n, h);
  cache->front_insert(h, head, tail, n, id);
  return id;
}

inline uint32_t ByteLevelBpe::lookup(const uint8_t* p, size_t n, PieceCache* cache) const {
  if (n == 2) return pair_token_[p[0] | (p[1] << 8)];
  return lookup_hashed(p, n, hash_bytes(p, n), cache);
}

bool ByteLevelBpe::encode_piece(const uint8_t* p, size_t n, std::vector<uint32_t>* out, PieceCache* cache) const {
  if (n == 1) {
    if (byte_token_[*p] == kNoToken) return false;
    out->push_back(byte_token_[*p]);
    return true;
  }
  uint64_t h = hash_bytes(p, n);
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
  bool ok = n <= kShortPiece ? merge_short(p, n, out, cache) : merge_long(p, n, out, cache);
  if (ok && cache != nullptr) cache->insert(p, n, h, out->data() + before, out->size() - before);
  return ok;
}

// tiktoken's merge order with fixed arrays indexed by byte position: rank[i] is the token
// for the part starting at i joined with the next part (kNoToken when that is not a token
// or i no longer starts a part).  Each step takes the minimum over all n positions (a
// branch-free loop the compiler vectorizes), merges the leftmost part having it and
// refreshes two ranks; nothing is shifted.  O(n^2 / vector width) per piece.
bool ByteLevelBpe::merge_short(const uint8_t* p, size_t n, std::vector<uint32_t>* out, PieceCache* cache) const {
  uint32_t rank[kShortPiece];
  uint32_t token[kShortPiece];  // token of the part starting at i
  uint16_t next[kShortPiece];   // start of the following part (n at the end)
  uint16_t prev[kShortPiece];   // start of the preceding part
  for (size_t i = 0; i < n; ++i) {
    next[i] = static_cast<uint16_t>(i + 1);
    prev[i] = static_cast<uint16_t>(i == 0 ? 0 : i - 1);
    token[i] = byte_token_[p[i]];
    rank[i] = i + 1 < n ? pair_token_[p[i] | (p[i + 1] << 8)] : kNoToken;
  }
  while (true) {
    uint32_t best = kNoToken;
    for (size_t i = 0; i + 1 < n; ++i) best = rank[i] < best ? rank[i] : best;
    if (best == kNoToken) break;
    size_t at = 0;
    while (rank[at] != best) ++at;
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

// The same merge order with a min-heap of (rank, left start) and lazy deletion: an entry
// is live while its left part still starts there and the pair still ends where it did.
bool ByteLevelBpe::merge_long(const uint8_t* p, size_t n, std::vector<uint32_t>* out, PieceCache* cache) const {
  struct Entry {
    uint32_t rank, left, end;
    bool operator>(const Entry& o) const { return rank != o.rank ? rank > o.rank : left > o.left; }
  };
  const uint32_t N = static_cast<uint32_t>(n);
  std::vector<uint32_t> next(n), prev(n), token(n);
  std::vector<uint8_t> alive(n, 1);
  for (uint32_t i = 0; i < N; ++i) {
    next[i] = i + 1;
    prev[i] = i == 0 ? 0 : i - 1;
    token[i] = byte_token_[p[i]];
  }
  std::vector<Entry> heap;
  heap.reserve(n);
  auto push_pair = [&](uint32_t left) {
    uint32_t right = next[left];
    if (right >= N) return;
    uint32_t end = next[right];
    uint32_t r = lookup(p + left, end - left, cache);
    if (r == kNoToken) return;
    heap.push_back(Entry{r, left, end});
    std::push_heap(heap.begin(), heap.end(), std::greater<Entry>());
  };
  for (uint32_t i = 0; i + 1 < N; ++i) push_pair(i);
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), std::greater<Entry>());
    Entry e = heap.back();
    heap.pop_back();
    uint32_t right = next[e.left];
    if (!alive[e.left] || right >= N || next[right] != e.end) continue;
    alive[right] = 0;
    token[e.left] = e.rank;
    next[e.left] = e.end;
    if (e.end < N) prev[e.end] = e.left;
    push_pair(e.left);
    if (e.left > 0) push_pair(prev[e.left]);
  }
  for (uint32_t i = 0; i < N; i = next[i]) out->push_back(token[i]);
  return true;
}

}  // namespace tf
