// ClassicEncoder: classic UBPE encoding of one part by batched pair merges, `ubpe` 0.3.0's rule.
//
// Each round takes the first vocabulary pair present, then the later present ones in
// vocabulary order up to the first vocabulary pair (present or not) sharing a symbol with
// those taken, and replaces them in one left-to-right pass.  The stop is found without walking
// the vocabulary: per symbol, the sorted ranks of the pairs holding it give the next clash by
// binary search, and a round looks up only the pairs next to a new token.  A round costs
// O(n) plus sorting the few ranks below the first stop.  Oracle:
// src/tokenforge/ubpe/reference_encode.py (encode_classic).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "models/ubpe/encoding.h"
#include "common/u64_map.h"

namespace tf::ubpe {

class ClassicEncoder {
 public:
  // pairs[k]: the pair of rank k, replaced by ids[k]; weights: idf by id.
  ClassicEncoder(const std::vector<std::pair<uint32_t, uint32_t>>& pairs,
                 const std::vector<uint32_t>& ids, std::vector<double> weights);

  Encoded encode(const std::vector<uint32_t>& word) const;

 private:
  // The first rank above `after` whose pair holds `symbol` (pairs_.size() if none).
  uint32_t next_clash(uint32_t symbol, uint32_t after) const;

  std::vector<std::pair<uint32_t, uint32_t>> pairs_;
  std::vector<uint32_t> ids_;
  std::vector<double> weights_;
  U64Map<uint32_t> rank_of_;            // pair -> rank
  U64Map<uint32_t> symbol_slot_;        // symbol -> index into ranks_with_
  std::vector<std::vector<uint32_t>> ranks_with_;  // sorted ranks of the pairs holding a symbol
};

}  // namespace tf::ubpe
