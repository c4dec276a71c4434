// Classic UBPE encoding (see classic_encoder.h).
#include "models/ubpe/classic_encoder.h"

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
  constexpr uint32_t kNone = UINT32_MAX;
  Encoded out;
  std::vector<uint32_t> w = word, next;
  std::vector<uint32_t> rank_at(w.size(), kNone), next_rank;  // rank of the pair (w[i], w[i+1])
  std::vector<uint8_t> fresh;                                  // next[j] is a new token
  std::vector<uint32_t> from;                                  // next[j] came from w[from[j]]
  std::vector<uint32_t> candidates, taken;
  auto rank_of = [&](uint32_t a, uint32_t b) {
    const uint32_t* r = rank_of_.find(pack_pair(a, b));
    return r ? *r : kNone;
  };
  for (size_t i = 0; i + 1 < w.size(); ++i) rank_at[i] = rank_of(w[i], w[i + 1]);
  while (w.size() > 1) {
    uint32_t first = kNone;
    for (size_t i = 0; i + 1 < w.size(); ++i) first = std::min(first, rank_at[i]);
    if (first == kNone) break;
    // The stop only falls as pairs are taken, so every taken rank lies below the first bound.
    uint32_t stop = std::min(next_clash(pairs_[first].first, first), next_clash(pairs_[first].second, first));
    candidates.clear();
    for (size_t i = 0; i + 1 < w.size(); ++i) {
      if (rank_at[i] > first && rank_at[i] < stop) candidates.push_back(rank_at[i]);
    }
    std::sort(candidates.begin(), candidates.end());
    candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
    taken.assign(1, first);
    for (uint32_t k : candidates) {
      if (k >= stop) break;
      taken.push_back(k);
      stop = std::min({stop, next_clash(pairs_[k].first, k), next_clash(pairs_[k].second, k)});
    }
    const uint32_t last_taken = taken.back();
    next.clear();
    fresh.clear();
    from.clear();
    for (size_t i = 0; i < w.size();) {
      uint32_t r = rank_at.size() > i ? rank_at[i] : kNone;
      if (r >= first && r <= last_taken && std::binary_search(taken.begin(), taken.end(), r)) {
        next.push_back(ids_[r]);
        fresh.push_back(1);
        from.push_back(static_cast<uint32_t>(i));
        i += 2;
      } else {
        next.push_back(w[i]);
        fresh.push_back(0);
        from.push_back(static_cast<uint32_t>(i));
        i += 1;
      }
    }
    // An untouched neighbour pair keeps its rank; only pairs next to a new token are looked up.
    next_rank.assign(next.size(), kNone);
    for (size_t j = 0; j + 1 < next.size(); ++j) {
      next_rank[j] = (fresh[j] || fresh[j + 1]) ? rank_of(next[j], next[j + 1]) : rank_at[from[j]];
    }
    w.swap(next);
    rank_at.swap(next_rank);
  }
  out.weight = tfidf_in_order(w, weights_);
  out.ids = std::move(w);
  return out;
}

}  // namespace tf::ubpe
