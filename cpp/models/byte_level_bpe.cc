#include "models/byte_level_bpe.h"

#include <algorithm>
#include <atomic>

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
  return true;
}

bool ByteLevelBpe::encode_piece(const uint8_t* p, size_t n, std::vector<uint32_t>* out, PieceCache* cache) const {
  if (n == 1) {
    if (byte_token_[*p] == kNoToken) return false;
    out->push_back(byte_token_[*p]);
    return true;
  }
  uint64_t h = hash_bytes(p, n);
  uint32_t whole = vocab_.find_hashed(p, n, h);
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
  bool ok = n <= kShortPiece ? merge_short(p, n, out) : merge_long(p, n, out);
  if (ok && cache != nullptr) cache->insert(p, n, h, out->data() + before, out->size() - before);
  return ok;
}

// tiktoken's loop: keep the part boundaries and the rank of each adjacent pair; merge the
// lowest (leftmost on ties) and refresh the two neighbouring ranks.  O(n^2), tiny constant.
bool ByteLevelBpe::merge_short(const uint8_t* p, size_t n, std::vector<uint32_t>* out) const {
  uint32_t start[kShortPiece + 1];
  uint32_t rank[kShortPiece];  // rank[i]: token for parts i and i+1 joined
  size_t parts = n;
  for (size_t i = 0; i <= n; ++i) start[i] = static_cast<uint32_t>(i);
  for (size_t i = 0; i + 1 < parts; ++i) rank[i] = rank_of(p + i, 2);
  while (parts > 1) {
    uint32_t best = kNoToken;
    size_t at = 0;
    for (size_t i = 0; i + 1 < parts; ++i) {
      if (rank[i] < best) {
        best = rank[i];
        at = i;
      }
    }
    if (best == kNoToken) break;
    // Join parts `at` and `at + 1`.
    for (size_t i = at + 1; i < parts; ++i) start[i] = start[i + 1];
    for (size_t i = at + 1; i + 1 < parts - 1; ++i) rank[i] = rank[i + 1];
    --parts;
    if (at + 1 < parts) rank[at] = rank_of(p + start[at], start[at + 2] - start[at]);
    if (at > 0) rank[at - 1] = rank_of(p + start[at - 1], start[at + 1] - start[at - 1]);
  }
  for (size_t i = 0; i < parts; ++i) {
    size_t len = start[i + 1] - start[i];
    out->push_back(len == 1 ? byte_token_[p[start[i]]] : rank_of(p + start[i], len));
  }
  return true;
}

// The same merge order with a min-heap of (rank, left start) and lazy deletion: an entry
// is live while its left part still starts there and the pair still ends where it did.
bool ByteLevelBpe::merge_long(const uint8_t* p, size_t n, std::vector<uint32_t>* out) const {
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
    uint32_t r = rank_of(p + left, end - left);
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
