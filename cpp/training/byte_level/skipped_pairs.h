// SkippedPairs: the BPE trainer's log of pairs too rare to be worth a record yet.
//
// On text of rare pieces (random lines, identifiers, mixed scripts) most pairs that a merge
// creates occur once or twice and are never merged: the vocabulary fills up long before the
// best count falls that low (on mixed.txt, 500 000 of 580 000 new pairs occur under 4 times
// and the last merge occurs 5 times).  A record costs a random probe into the pair index and
// about 64 bytes (record, index slots, list header, queue entry); a logged pair costs 24
// bytes written in order, plus 4 per position beyond the first.  The trainer turns logged
// pairs into the records and queue entries they would have had (bpe_trainer.cc,
// restore_skipped) before the best count falls below the floor they were logged under.
// What it leaves out: when to log and restore, and why that gives the same merges
// (bpe_trainer.h).
#pragma once

#include <cstdint>

#include "training/byte_level/big_vector.h"

namespace tf::train {

class SkippedPairs {
 public:
  struct Pair {
    uint32_t a, b;
    int32_t count;      // the pair's count at the end of the step that created it
    uint32_t size;  // positions
    union {
      uint32_t single;  // the position, if size == 1
      uint64_t begin;   // else where the positions start in the pool
    };
  };

  void add(uint32_t a, uint32_t b, int64_t count, const uint32_t* p, size_t n) {
    Pair s{a, b, static_cast<int32_t>(count), static_cast<uint32_t>(n), {}};
    if (n == 1) {
      s.single = p[0];
    } else {
      s.begin = pool_.size();
      pool_.append(p, p + n);
    }
    pairs_.push_back(s);
  }

  const uint32_t* positions(const Pair& s) const {
    return s.size == 1 ? &s.single : pool_.data() + s.begin;
  }

  // Calls f(pair) for every logged pair, in the order logged, and forgets those for which
  // it returns true; ahead(pair) is called a few pairs before f (to prefetch what f reads).
  template <typename F, typename A>
  void take_if(F&& f, A&& ahead) {
    constexpr size_t kAhead = 8;
    size_t kept = 0;
    for (size_t i = 0; i < pairs_.size(); ++i) {
      if (i + kAhead < pairs_.size()) ahead(pairs_[i + kAhead]);
      Pair s = pairs_[i];
      if (!f(s)) pairs_[kept++] = s;
    }
    pairs_.resize(kept);
    if (kept == 0) {
      BigVector<Pair>().swap(pairs_);
      BigVector<uint32_t>().swap(pool_);
    }
  }

  bool empty() const { return pairs_.empty(); }

 private:
  BigVector<Pair> pairs_;
  BigVector<uint32_t> pool_;
};

}  // namespace tf::train
