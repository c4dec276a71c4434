// ByteLevelBpe::merge_long: tiktoken's merge order (lowest rank first, leftmost on ties)
// for pieces too long for the quadratic scan, e.g. a megabyte of one letter.
//
// Parts are a linked list over byte positions; every adjacent pair that is a token waits
// in a BucketQueue (common/bucket_queue.h) under its rank.  A popped candidate is live
// while its left part still starts there and the pair still ends where it did.  About
// O(n) queue work per piece.  Once LongPieceTables are ready, BacktrackMerge takes over
// for the vocabularies it accepts (backtrack_merge.h); this stays the general fallback.
#include <algorithm>

#include "common/bucket_queue.h"
#include "models/byte_level/byte_level_bpe.h"

namespace tf::byte_level {

namespace {

struct Candidate {
  uint32_t left, end;  // the pair [left, end) when queued
};

// One record per part start, so checking a candidate touches one cache line.
struct Part {
  uint32_t next, prev, token;
};

// Working memory kept per thread between calls, so a long piece does not pay for fresh
// pages (page faults and zeroing were a sixth of the time on a 1 MB piece).
struct Workspace {
  std::vector<Part> part;
  BucketQueue<Candidate> queue;
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
  ws.queue.prepare(vocab_->id_bound());
  std::vector<Part>& part = ws.part;
  if (part.size() < n) part.resize(n);
  for (uint32_t i = 0; i < N; ++i) part[i] = Part{i + 1, i == 0 ? 0 : i - 1, byte_token_[p[i]]};
  BucketQueue<Candidate>& queue = ws.queue;

  auto add_pair = [&](uint32_t left) {
    uint32_t right = part[left].next;
    if (right >= N) return;
    uint32_t end = part[right].next;
    uint32_t r = end - left == 2 ? pair_token_[p[left] | (p[left + 1] << 8)] : lookup(p + left, end - left);
    if (r != kNoToken) queue.push(r, Candidate{left, end});
  };

  for (uint32_t i = 0; i + 1 < N; ++i) add_pair(i);
  for (uint32_t r; (r = queue.top_rank()) != queue.kNone;) {
    // Candidates of one rank come in position order but far apart: fetch ahead the part
    // record a later one will check (the check is otherwise a cache miss every time).
    if (const Candidate* later = queue.ahead(r, kPrefetch)) __builtin_prefetch(&part[later->left]);
    const Candidate c = queue.pop(r);
    Part& left = part[c.left];
    if (left.prev == kDead || left.next >= N || part[left.next].next != c.end) continue;  // stale
    part[left.next].prev = kDead;
    left.token = r;
    left.next = c.end;
    if (c.end < N) part[c.end].prev = c.left;
    add_pair(c.left);
    if (c.left > 0) add_pair(left.prev);
  }
  queue.reset();
  for (uint32_t i = 0; i < N; i = part[i].next) out->push_back(part[i].token);
  return true;
}

}  // namespace tf::byte_level
