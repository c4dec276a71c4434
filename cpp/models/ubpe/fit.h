// UBPE fitting: several byte-pair merges per step over symbol ids, `ubpe` 0.3.0's rule.
//
// Each step ranks the pairs by (count, then fewer documents, then the larger pair), walks the
// top `n_candidates` and takes the first plus every later one that shares no symbol with a
// taken pair and whose border pairs with each taken pair are rarer than it; each taken pair
// gets a new id weighted log((1 + n_docs) / (1 + docs_with_pair)).  Counts are updated in
// place around each merge (pair -> positions lists, and a (pair, document) -> count table for
// the document counts) rather than recounted per step.  The readable oracle is
// src/tokenforge/ubpe/reference_fit.py.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace tf::ubpe {

struct FitResult {
  std::vector<std::pair<uint32_t, uint32_t>> merges;  // merges[k]: the pair id first_id + k replaces
  std::vector<double> weights;                        // its idf
};

// parts: every document's parts (symbol ids); part_doc[i]: the document of parts[i].
FitResult fit_merges(const std::vector<std::vector<uint32_t>>& parts,
                     const std::vector<uint32_t>& part_doc, uint32_t n_docs, uint32_t first_id,
                     uint32_t n_tokens, uint32_t n_candidates);

}  // namespace tf::ubpe
