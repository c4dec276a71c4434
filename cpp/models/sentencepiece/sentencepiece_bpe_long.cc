// SentencePieceBpe::merge_long: sentencepiece's merge order (highest score first, leftmost
// on ties) for words too long for the quadratic scan, e.g. a megabyte of one letter.
//
// A binary heap of candidate pairs spends its time on cache misses once it holds millions
// of entries.  Instead candidates wait in one bucket per distinct score: a vector sorted by
// position read through a cursor, plus a small min-heap for the rare candidate that
// arrives left of the last one appended (merges mostly create candidates in increasing
// position order).  A two-level bitmap over score ranks finds the best non-empty bucket.
// Candidates are checked lazily: one is live while its left symbol still stands and the
// pair still has the byte length it had (that length only grows when either side
// changes).  About O(n) bucket work plus O(ranks / 4096) bitmap words per merge.
#include <algorithm>

#include "models/sentencepiece/sentencepiece_bpe.h"

namespace tf::spm {

namespace {

struct Candidate {
  uint32_t left;     // symbol index of the left part
  uint32_t size;     // bytes of left + right when queued
  int32_t merged;    // the piece they form
};

struct Bucket {
  std::vector<Candidate> sorted;  // by left, consumed from `cursor`
  size_t cursor = 0;
  std::vector<Candidate> late;    // min-heap by left

  static bool later(const Candidate& a, const Candidate& b) { return a.left > b.left; }
  bool empty() const { return cursor == sorted.size() && late.empty(); }
  void add(Candidate c) {
    if (cursor == sorted.size() || c.left > sorted.back().left) {
      if (cursor == sorted.size()) {
        sorted.clear();
        cursor = 0;
      }
      sorted.push_back(c);
    } else {
      late.push_back(c);
      std::push_heap(late.begin(), late.end(), later);
    }
  }
  Candidate take() {
    const bool from_late = !late.empty() && (cursor == sorted.size() || late.front().left < sorted[cursor].left);
    if (!from_late) return sorted[cursor++];
    std::pop_heap(late.begin(), late.end(), later);
    Candidate c = late.back();
    late.pop_back();
    return c;
  }
};

// The ranks with a non-empty bucket: one bit per rank plus one bit per 64-rank word.
class RankBits {
 public:
  explicit RankBits(uint32_t bound) : words_((bound + 63) / 64 + 1, 0), summary_(words_.size() / 64 + 1, 0) {}
  void insert(uint32_t r) {
    words_[r >> 6] |= uint64_t{1} << (r & 63);
    summary_[r >> 12] |= uint64_t{1} << ((r >> 6) & 63);
  }
  void erase(uint32_t r) {
    uint64_t& w = words_[r >> 6];
    w &= ~(uint64_t{1} << (r & 63));
    if (w == 0) summary_[r >> 12] &= ~(uint64_t{1} << ((r >> 6) & 63));
  }
  // The smallest member, or -1.
  int64_t first() const {
    for (size_t si = 0; si < summary_.size(); ++si) {
      if (summary_[si] == 0) continue;
      size_t wi = (si << 6) | static_cast<size_t>(__builtin_ctzll(summary_[si]));
      return static_cast<int64_t>((wi << 6) | static_cast<size_t>(__builtin_ctzll(words_[wi])));
    }
    return -1;
  }

 private:
  std::vector<uint64_t> words_;
  std::vector<uint64_t> summary_;
};

}  // namespace

void SentencePieceBpe::merge_long(std::vector<Symbol>& sy, double dropout, std::mt19937_64* rng,
                                  std::unordered_map<int32_t, std::pair<int32_t, int32_t>>* last_split) const {
  std::vector<Bucket> buckets;
  // rank -> index in buckets; kept per thread across calls, reset entry by entry after use.
  // (Through a pinned reference: named in the lambda below, the thread_local cost a
  // __tls_get_addr call per candidate, a sixth of the time on a megabyte of one letter.)
  thread_local std::vector<uint32_t> tls_bucket_of;
  std::vector<uint32_t>& bucket_of = pinned(tls_bucket_of);
  constexpr uint32_t kNone = 0xFFFFFFFFu;
  if (bucket_of.size() < rank_count_) bucket_of.assign(rank_count_, kNone);
  std::vector<uint32_t> used_ranks;
  RankBits nonempty(rank_count_);

  auto add_pair = [&](int32_t l) {
    if (l < 0) return;
    const Symbol& a = sy[l];
    if (a.next < 0) return;
    const Symbol& b = sy[a.next];
    if (a.frozen || b.frozen || a.sym < 0 || b.sym < 0) return;
    const PairValue* pv = find_pair(a.sym, b.sym);
    if (pv == nullptr) return;
    uint32_t& slot = bucket_of[pv->rank];
    if (slot == kNone) {
      slot = static_cast<uint32_t>(buckets.size());
      buckets.emplace_back();
      used_ranks.push_back(pv->rank);
    }
    buckets[slot].add(Candidate{static_cast<uint32_t>(l), a.len + b.len, pv->merged});
    nonempty.insert(pv->rank);
    if (last_split != nullptr && vocab_->type(pv->merged) == SpmType::kUnused) (*last_split)[pv->merged] = {a.sym, b.sym};
  };

  for (size_t i = 0; i + 1 < sy.size(); ++i) add_pair(static_cast<int32_t>(i));
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  for (int64_t r; (r = nonempty.first()) >= 0;) {
    Bucket& bucket = buckets[bucket_of[r]];
    const Candidate c = bucket.take();
    if (bucket.empty()) nonempty.erase(static_cast<uint32_t>(r));
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
  for (uint32_t rank : used_ranks) bucket_of[rank] = kNone;
}

}  // namespace tf::spm
