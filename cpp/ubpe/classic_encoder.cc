// Classic UBPE encoding (see classic_encoder.h).
#include "ubpe/classic_encoder.h"

#include <algorithm>

namespace tf::ubpe {

ClassicEncoder::ClassicEncoder(const std::vector<std::pair<uint32_t, uint32_t>>& pairs,
                               const std::vector<uint32_t>& ids, std::vector<double> weights)
    : pairs_(pairs), ids_(ids), weights_(std::move(weights)), rank_of_(pairs.size() + 1),
      symbol_slot_(pairs.size() + 1) {
  for (uint32_t k = 0; k < pairs_.size(); ++k) {
    rank_of_.get_or_insert(pack_pair(pairs_[k].first, pairs_[k].second), k);
    for (uint32_t s : {pairs_[k].first, pairs_[k].second}) {
      uint32_t& slot = symbol_slot_.get_or_insert(s, UINT32_MAX);
      if (slot == UINT32_MAX) {
        slot = static_cast<uint32_t>(ranks_with_.size());
        ranks_with_.emplace_back();
      }
      auto& ranks = ranks_with_[slot];
      if (ranks.empty() || ranks.back() != k) ranks.push_back(k);
    }
  }
}

uint32_t ClassicEncoder::next_clash(uint32_t symbol, uint32_t after) const {
  const uint32_t* slot = symbol_slot_.find(symbol);
  if (slot == nullptr) return static_cast<uint32_t>(pairs_.size());
  const auto& ranks = ranks_with_[*slot];
  auto it = std::upper_bound(ranks.begin(), ranks.end(), after);
  return it == ranks.end() ? static_cast<uint32_t>(pairs_.size()) : *it;
}

Encoded ClassicEncoder::encode(const std::vector<uint32_t>& word) const {
  Encoded out;
  out.ids = word;
  std::vector<uint32_t>& w = out.ids;
  std::vector<uint32_t> rank_at, present, taken;
  std::vector<uint32_t> next;
  while (w.size() > 1) {
    rank_at.assign(w.size(), UINT32_MAX);
    present.clear();
    for (size_t i = 0; i + 1 < w.size(); ++i) {
      const uint32_t* r = rank_of_.find(pack_pair(w[i], w[i + 1]));
      if (r) {
        rank_at[i] = *r;
        present.push_back(*r);
      }
    }
    if (present.empty()) break;
    std::sort(present.begin(), present.end());
    present.erase(std::unique(present.begin(), present.end()), present.end());
    taken.clear();
    uint32_t stop = UINT32_MAX;
    for (uint32_t k : present) {
      if (k >= stop) break;
      taken.push_back(k);
      stop = std::min({stop, next_clash(pairs_[k].first, k), next_clash(pairs_[k].second, k)});
    }
    next.clear();
    for (size_t i = 0; i < w.size();) {
      if (rank_at[i] != UINT32_MAX && std::binary_search(taken.begin(), taken.end(), rank_at[i])) {
        next.push_back(ids_[rank_at[i]]);
        i += 2;
      } else {
        next.push_back(w[i]);
        i += 1;
      }
    }
    w.swap(next);
  }
  out.weight = tfidf_in_order(w, weights_);
  return out;
}

}  // namespace tf::ubpe
