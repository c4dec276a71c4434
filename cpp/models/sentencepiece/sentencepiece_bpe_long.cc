// SentencePieceBpe::merge_long: sentencepiece's merge order (highest score first, leftmost
// on ties) for words too long for the quadratic scan, e.g. a megabyte of one letter.
//
// Every adjacent pair of symbols that forms a piece waits in a BucketQueue
// (common/bucket_queue.h) under its score rank.  A popped candidate is live while its
// left symbol still stands and the pair still has the byte length it had (that length
// only grows when either side changes).  About O(n) queue work per word.
#include <algorithm>

#include "common/bucket_queue.h"
#include "models/sentencepiece/sentencepiece_bpe.h"

namespace tf::spm {

namespace {

struct Candidate {
  uint32_t left;     // symbol index of the left part
  uint32_t size;     // bytes of left + right when queued
  int32_t merged;    // the piece they form
};

}  // namespace

void SentencePieceBpe::merge_long(std::vector<Symbol>& sy, double dropout, std::mt19937_64* rng,
                                  std::unordered_map<int32_t, std::pair<int32_t, int32_t>>* last_split) const {
  // Kept per thread across calls (through a pinned reference: named in the lambda below,
  // the thread_local would cost a __tls_get_addr call per candidate).
  thread_local BucketQueue<Candidate> tls_queue;
  BucketQueue<Candidate>& queue = pinned(tls_queue);
  queue.prepare(rank_count_);

  auto add_pair = [&](int32_t l) {
    if (l < 0) return;
    const Symbol& a = sy[l];
    if (a.next < 0) return;
    const Symbol& b = sy[a.next];
    if (a.frozen || b.frozen || a.sym < 0 || b.sym < 0) return;
    const PairValue* pv = find_pair(a.sym, b.sym);
    if (pv == nullptr) return;
    queue.push(pv->rank, Candidate{static_cast<uint32_t>(l), a.len + b.len, pv->merged});
    if (last_split != nullptr && vocab_->type(pv->merged) == SpmType::kUnused) (*last_split)[pv->merged] = {a.sym, b.sym};
  };

  for (size_t i = 0; i + 1 < sy.size(); ++i) add_pair(static_cast<int32_t>(i));
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  for (uint32_t r; (r = queue.top_rank()) != queue.kNone;) {
    const Candidate c = queue.pop(r);
    Symbol& l = sy[c.left];
    if (l.len == 0 || l.next < 0 || l.len + sy[l.next].len != c.size) continue;  // stale
    if (dropout > 0.0 && (dropout >= 1.0 || uniform(*rng) < dropout)) continue;
    Symbol& right = sy[l.next];
    l.len += right.len;
    l.sym = c.merged;
    l.next = right.next;
    if (right.next >= 0) sy[right.next].prev = static_cast<int32_t>(c.left);
    right.len = 0;
    add_pair(l.prev);
    add_pair(static_cast<int32_t>(c.left));
  }
  queue.reset();
}

}  // namespace tf::spm
