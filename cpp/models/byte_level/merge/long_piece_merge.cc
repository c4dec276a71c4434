// ByteLevelBpe::merge_long: tiktoken's merge order (lowest rank first, leftmost on ties)
// for pieces too long for the quadratic scan, e.g. a megabyte of one letter.
//
// Candidate pairs wait in one bucket per rank.  A bucket is a vector sorted by position,
// read through a cursor, plus a small min-heap for the rare candidate that arrives to the
// left of the last one appended; merges mostly create candidates in increasing position
// order, so almost every insertion is an append and almost every removal a cursor step.
// A two-level bitmap over ranks finds the lowest non-empty bucket.  Candidates are
// checked lazily: one is live while its left part still starts there and the pair still
// ends where it did.  About O(n) bucket work plus O(V / 64) bitmap words per piece.
// Once LongPieceTables are ready, BacktrackMerge takes over (linear, 5-10x faster on runs
// of one byte); this queue stays the fallback for vocabularies it refuses (backtrack_merge.h).
#include <algorithm>

#include "models/byte_level/byte_level_bpe.h"

namespace tf::byte_level {

namespace {

struct Candidate {
  uint32_t left, end;
};

struct Bucket {
  std::vector<Candidate> sorted;  // by left, consumed from `cursor`
  size_t cursor = 0;
  std::vector<Candidate> late;    // min-heap by left

  bool empty() const { return cursor == sorted.size() && late.empty(); }
  void add(Candidate c) {
    if (sorted.empty() || c.left > sorted.back().left) {
      sorted.push_back(c);
    } else {
      late.push_back(c);
      std::push_heap(late.begin(), late.end(), [](Candidate a, Candidate b) { return a.left > b.left; });
    }
  }
  Candidate take() {
    bool from_late = !late.empty() && (cursor == sorted.size() || late.front().left < sorted[cursor].left);
    if (!from_late) return sorted[cursor++];
    std::pop_heap(late.begin(), late.end(), [](Candidate a, Candidate b) { return a.left > b.left; });
    Candidate c = late.back();
    late.pop_back();
    return c;
  }
};

// Which ranks have a non-empty bucket: bits over ranks plus one bit per 64-rank word.
class RankSet {
 public:
  explicit RankSet(uint32_t bound) : words_((bound + 63) / 64, 0), summary_((words_.size() + 63) / 64, 0) {}
  void insert(uint32_t r) {
    words_[r >> 6] |= uint64_t{1} << (r & 63);
    summary_[r >> 12] |= uint64_t{1} << ((r >> 6) & 63);
  }
  // Empties the set; only words of ranks in `members` can be non-zero.
  void clear(const std::vector<uint32_t>& members) {
    for (uint32_t r : members) {
      words_[r >> 6] = 0;
      summary_[r >> 12] = 0;
    }
  }
  void erase(uint32_t r) {
    uint64_t& w = words_[r >> 6];
    w &= ~(uint64_t{1} << (r & 63));
    if (w == 0) summary_[r >> 12] &= ~(uint64_t{1} << ((r >> 6) & 63));
  }
  // The smallest member >= r, or kNoToken.
  uint32_t first_from(uint32_t r) const {
    size_t wi = r >> 6;
    if (wi >= words_.size()) return kNoToken;
    uint64_t w = words_[wi] & (~uint64_t{0} << (r & 63));
    if (w != 0) return static_cast<uint32_t>((wi << 6) | __builtin_ctzll(w));
    size_t si = (wi + 1) >> 6;
    if (si >= summary_.size()) return kNoToken;
    uint64_t s = ((wi + 1) & 63) == 0 ? summary_[si] : summary_[si] & (~uint64_t{0} << ((wi + 1) & 63));
    while (s == 0) {
      if (++si >= summary_.size()) return kNoToken;
      s = summary_[si];
    }
    size_t word = (si << 6) | static_cast<size_t>(__builtin_ctzll(s));
    return static_cast<uint32_t>((word << 6) | __builtin_ctzll(words_[word]));
  }

 private:
  std::vector<uint64_t> words_;
  std::vector<uint64_t> summary_;
};

// One record per part start, so checking a candidate touches one cache line.
struct Part {
  uint32_t next, prev, token;
};

// Working memory kept per thread between calls, so a long piece does not pay for fresh
// pages (page faults and zeroing were a sixth of the time on a 1 MB piece).
struct Workspace {
  std::vector<Part> part;
  std::vector<Bucket> buckets;     // the first `used` are in use
  std::vector<uint32_t> bucket_of;  // rank -> index in buckets, kNoToken when none
  std::vector<uint32_t> used_ranks;
  RankSet nonempty{0};

  void prepare(uint32_t rank_bound) {
    if (bucket_of.size() < rank_bound) {
      bucket_of.assign(rank_bound, kNoToken);
      nonempty = RankSet(rank_bound);
    }
  }
  // Returns the workspace to its empty state, keeping capacity.
  void reset() {
    for (uint32_t r : used_ranks) bucket_of[r] = kNoToken;
    nonempty.clear(used_ranks);
    for (size_t i = 0; i < used_ranks.size(); ++i) {
      buckets[i].sorted.clear();
      buckets[i].cursor = 0;
      buckets[i].late.clear();
    }
    used_ranks.clear();
  }
};

// This thread's workspace.  Not inlined on purpose: behind a call the compiler keeps the
// address in a register instead of recomputing the thread-local address (a call to
// __tls_get_addr in a shared library) inside the merge loop.
__attribute__((noinline)) Workspace& thread_workspace() {
  thread_local Workspace ws;
  return ws;
}

}  // namespace

bool ByteLevelBpe::merge_long(const uint8_t* p, size_t n, std::vector<uint32_t>* out) const {
  // Most vocabularies take the linear search instead (backtrack_merge.h).
  if (shared_->long_tables.ready()) {
    const BacktrackMerge* linear = shared_->long_tables.backtrack(*vocab_);
    if (linear != nullptr && linear->encode(p, n, out, instance_)) return true;
  }
  const uint32_t N = static_cast<uint32_t>(n);
  constexpr uint32_t kDead = 0xFFFFFFFFu;  // in prev: no part starts here any more
  constexpr size_t kPrefetch = 16;
  Workspace& ws = thread_workspace();
  ws.prepare(vocab_->id_bound());
  std::vector<Part>& part = ws.part;
  if (part.size() < n) part.resize(n);
  for (uint32_t i = 0; i < N; ++i) part[i] = Part{i + 1, i == 0 ? 0 : i - 1, byte_token_[p[i]]};
  std::vector<Bucket>& buckets = ws.buckets;
  std::vector<uint32_t>& bucket_of = ws.bucket_of;
  std::vector<uint32_t>& used_ranks = ws.used_ranks;
  RankSet& nonempty = ws.nonempty;
  uint32_t lowest = kNoToken;  // no non-empty bucket has a smaller rank

  auto add_pair = [&](uint32_t left) {
    uint32_t right = part[left].next;
    if (right >= N) return;
    uint32_t end = part[right].next;
    uint32_t r = end - left == 2 ? pair_token_[p[left] | (p[left + 1] << 8)] : lookup(p + left, end - left);
    if (r == kNoToken) return;
    uint32_t& slot = bucket_of[r];
    if (slot == kNoToken) {
      slot = static_cast<uint32_t>(used_ranks.size());
      if (slot == buckets.size()) buckets.emplace_back();
      used_ranks.push_back(r);
    }
    buckets[slot].add(Candidate{left, end});
    nonempty.insert(r);
    lowest = std::min(lowest, r);
  };

  for (uint32_t i = 0; i + 1 < N; ++i) add_pair(i);
  while (lowest != kNoToken) {
    uint32_t r = nonempty.first_from(lowest);
    lowest = r;
    if (r == kNoToken) break;
    Bucket& b = buckets[bucket_of[r]];
    // Candidates of one rank come in position order but far apart: fetch ahead the part
    // record a later one will check (the check is otherwise a cache miss every time).
    if (b.cursor + kPrefetch < b.sorted.size()) __builtin_prefetch(&part[b.sorted[b.cursor + kPrefetch].left]);
    Candidate c = b.take();
    if (b.empty()) nonempty.erase(r);
    Part& left = part[c.left];
    if (left.prev == kDead || left.next >= N || part[left.next].next != c.end) continue;  // stale
    part[left.next].prev = kDead;
    left.token = r;
    left.next = c.end;
    if (c.end < N) part[c.end].prev = c.left;
    add_pair(c.left);
    if (c.left > 0) add_pair(left.prev);
  }
  ws.reset();
  for (uint32_t i = 0; i < N; i = part[i].next) out->push_back(part[i].token);
  return true;
}

}  // namespace tf::byte_level
