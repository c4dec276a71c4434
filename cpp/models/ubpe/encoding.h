// What UBPE's encoders return for one part: token ids and their tf-idf weight, plus the
// weight helper both encoders share.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "models/ubpe/tfidf.h"

namespace tf::ubpe {

struct Encoded {
  std::vector<uint32_t> ids;
  double weight = 0.0;
};

// The idf of `id` (0 for alphabet ids and ids past the table).
inline double idf_of(const std::vector<double>& weights, uint32_t id) {
  return id < weights.size() ? weights[id] : 0.0;
}

// tf-idf of `ids` summed over distinct tokens in first-occurrence order (a Counter's order);
// tokens of weight 0 add exactly nothing to Py312Sum, so they are skipped.
inline double tfidf_in_order(const std::vector<uint32_t>& ids, const std::vector<double>& weights) {
  std::vector<std::pair<uint32_t, uint32_t>> by_id;  // (id, first index)
  by_id.reserve(ids.size());
  for (uint32_t i = 0; i < ids.size(); ++i) {
    if (idf_of(weights, ids[i]) != 0.0) by_id.emplace_back(ids[i], i);
  }
  std::sort(by_id.begin(), by_id.end());
  std::vector<std::pair<uint32_t, uint32_t>> groups;  // (first index, count)
  std::vector<uint32_t> group_id;
  for (size_t k = 0; k < by_id.size();) {
    size_t e = k;
    while (e < by_id.size() && by_id[e].first == by_id[k].first) ++e;
    groups.emplace_back(by_id[k].second, static_cast<uint32_t>(e - k));
    k = e;
  }
  std::vector<size_t> order(groups.size());
  for (size_t g = 0; g < order.size(); ++g) order[g] = g;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return groups[a].first < groups[b].first; });
  LogTable logs;
  Py312Sum sum;
  for (size_t g : order) {
    uint32_t id = ids[groups[g].first];
    sum.add(logs.one_plus_log(groups[g].second) * weights[id]);
  }
  return sum.result();
}

}  // namespace tf::ubpe
