// BucketQueue<Candidate>: a priority queue of merge candidates for BPE over long inputs,
// popped lowest rank first and, within a rank, leftmost first (Candidate::left).
//
// A binary heap over millions of candidates spends its time on cache misses.  Here
// candidates wait in one bucket per rank: a vector sorted by position read through a
// cursor, plus a small min-heap for the rare candidate that arrives left of the last one
// appended (merges mostly create candidates in increasing position order, so almost every
// push is an append and almost every pop a cursor step).  A two-level bitmap over ranks
// finds the lowest non-empty bucket.  About O(1) per push and pop plus O(ranks / 4096)
// bitmap words per piece.  Candidates are not removed when they go stale: the caller
// checks each popped one (lazy deletion).
//
// Used by the byte-level merge of long pieces (ranks = token ids) and SentencePiece's BPE
// of long words (ranks = score order).  Keep one per thread (it is reused across calls
// and keeps its capacity): reset() empties it in time proportional to the ranks used.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace tf {

template <class Candidate>
class BucketQueue {
 public:
  static constexpr uint32_t kNone = 0xFFFFFFFFu;

  // Ranks pushed are < rank_bound.
  void prepare(uint32_t rank_bound) {
    if (bucket_of_.size() < rank_bound) {
      bucket_of_.assign(rank_bound, kNone);
      words_.assign((rank_bound + 63) / 64, 0);
      summary_.assign((words_.size() + 63) / 64, 0);
    }
  }

  void push(uint32_t rank, Candidate c) {
    uint32_t& slot = bucket_of_[rank];
    if (slot == kNone) {
      slot = static_cast<uint32_t>(used_ranks_.size());
      if (slot == buckets_.size()) buckets_.emplace_back();
      used_ranks_.push_back(rank);
    }
    buckets_[slot].add(c);
    words_[rank >> 6] |= uint64_t{1} << (rank & 63);
    summary_[rank >> 12] |= uint64_t{1} << ((rank >> 6) & 63);
    lowest_ = std::min(lowest_, rank);
  }

  // The lowest rank with a candidate, or kNone when the queue is empty.
  uint32_t top_rank() {
    lowest_ = first_from(lowest_);
    return lowest_;
  }

  // Removes and returns the leftmost candidate of `rank` (which top_rank() returned).
  Candidate pop(uint32_t rank) {
    Bucket& b = buckets_[bucket_of_[rank]];
    const Candidate c = b.take();
    if (b.empty()) {
      uint64_t& w = words_[rank >> 6];
      w &= ~(uint64_t{1} << (rank & 63));
      if (w == 0) summary_[rank >> 12] &= ~(uint64_t{1} << ((rank >> 6) & 63));
    }
    return c;
  }

  // The candidate `k` places after the next one pop(rank) returns from the sorted run, or
  // nullptr: for prefetching what a later pop will check.
  const Candidate* ahead(uint32_t rank, size_t k) const {
    const Bucket& b = buckets_[bucket_of_[rank]];
    return b.cursor + k < b.sorted.size() ? &b.sorted[b.cursor + k] : nullptr;
  }

  // Empties the queue, keeping its memory.
  void reset() {
    for (size_t i = 0; i < used_ranks_.size(); ++i) {
      const uint32_t r = used_ranks_[i];
      bucket_of_[r] = kNone;
      words_[r >> 6] = 0;
      summary_[r >> 12] = 0;
      buckets_[i].clear();
    }
    used_ranks_.clear();
    lowest_ = kNone;
  }

 private:
  struct Bucket {
    std::vector<Candidate> sorted;  // by left, consumed from `cursor`
    size_t cursor = 0;
    std::vector<Candidate> late;    // min-heap by left

    static bool later(const Candidate& a, const Candidate& b) { return a.left > b.left; }
    bool empty() const { return cursor == sorted.size() && late.empty(); }
    void clear() {
      sorted.clear();
      cursor = 0;
      late.clear();
    }
    void add(Candidate c) {
      if (cursor == sorted.size()) {  // consumed: start the run again
        sorted.clear();
        cursor = 0;
      }
      if (sorted.empty() || c.left > sorted.back().left) {
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

  // The smallest rank >= r with a candidate, or kNone.
  uint32_t first_from(uint32_t r) const {
    size_t wi = r >> 6;
    if (wi >= words_.size()) return kNone;
    uint64_t w = words_[wi] & (~uint64_t{0} << (r & 63));
    if (w != 0) return static_cast<uint32_t>((wi << 6) | __builtin_ctzll(w));
    size_t si = (wi + 1) >> 6;
    if (si >= summary_.size()) return kNone;
    uint64_t s = ((wi + 1) & 63) == 0 ? summary_[si] : summary_[si] & (~uint64_t{0} << ((wi + 1) & 63));
    while (s == 0) {
      if (++si >= summary_.size()) return kNone;
      s = summary_[si];
    }
    const size_t word = (si << 6) | static_cast<size_t>(__builtin_ctzll(s));
    return static_cast<uint32_t>((word << 6) | __builtin_ctzll(words_[word]));
  }

  std::vector<Bucket> buckets_;     // the first used_ranks_.size() are in use
  std::vector<uint32_t> bucket_of_;  // rank -> index in buckets_, kNone when none
  std::vector<uint32_t> used_ranks_;
  std::vector<uint64_t> words_;    // a bit per rank with a non-empty bucket
  std::vector<uint64_t> summary_;  // a bit per non-zero word
  uint32_t lowest_ = kNone;        // no non-empty bucket has a smaller rank
};

}  // namespace tf
