// UniversalEncoder: universal UBPE encoding of one part, `ubpe` 0.3.0's suffix programme.
//
// A trie over the vocabulary's symbol strings gives, at each position, every token starting
// there (the edges of the DAG of segmentations).  Walking the positions from the end, each
// keeps its top_n best tails by (tf-idf weight, then fewer tokens), built from the kept
// tails after each edge; with top_n > 1 they sit in a binary min-heap exactly as Python's
// heapq leaves them, since ubpe reads them back in that order and ties depend on it.  A tail
// carries its Counter (ids of nonzero weight in ubpe's order) so each weight is recomputed
// as ubpe does: O(distinct tokens) per edge and tail.  Counters of positions no later step
// can read (more than the longest token ahead) are freed, so memory stays
// O(longest token x distinct tokens x top_n) plus O(n) links for long documents.  Oracle:
// src/tokenforge/ubpe/reference_encode.py (encode_universal).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "models/ubpe/encoding.h"
#include "common/u64_map.h"

namespace tf::ubpe {

class UniversalEncoder {
 public:
  // strings[k]: the symbol ids token ids[k] stands for; weights: idf by id.
  UniversalEncoder(const std::vector<std::vector<uint32_t>>& strings,
                   const std::vector<uint32_t>& ids, std::vector<double> weights);

  // The best min(top_n, #segmentations) encodings, best first.
  std::vector<Encoded> encode(const std::vector<uint32_t>& word, uint32_t top_n) const;

 private:
  struct Tail;
  // (length, id) of every token starting at word[start], shortest first.
  void edges_at(const std::vector<uint32_t>& word, size_t start,
                std::vector<std::pair<uint32_t, uint32_t>>& out) const;
  // The weight of `tail` with `token` in front, summed in ubpe's Counter order.
  double weight_with(const Tail& tail, uint32_t token, LogTable& logs) const;
  // That tail itself (its Counter copied and updated).
  Tail extend(const Tail& tail, uint32_t token, uint32_t next_pos, uint32_t next_idx, double weight) const;

  std::vector<int64_t> value_;     // trie node -> token id, or -1
  size_t max_len_ = 1;             // the longest vocabulary string
  U64Map<uint32_t> child_;         // (node, symbol) -> node
  std::vector<double> weights_;
};

}  // namespace tf::ubpe
