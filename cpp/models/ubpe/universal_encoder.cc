// Universal UBPE encoding (see universal_encoder.h).
#include "models/ubpe/universal_encoder.h"

#include <algorithm>

namespace tf::ubpe {

struct UniversalEncoder::Tail {
  double weight = 0.0;
  uint32_t length = 0;                                  // tokens in the tail
  uint32_t token = 0, next_pos = 0, next_idx = 0;       // first token; the tail after it
  std::vector<std::pair<uint32_t, uint32_t>> counter;  // (id, count), nonzero weights, ubpe's order

  // ubpe's EncodingCandidate.__lt__: lighter, or as heavy and longer.
  bool operator<(const Tail& o) const {
    if (weight == o.weight) return length > o.length;
    return weight < o.weight;
  }
};

UniversalEncoder::UniversalEncoder(const std::vector<std::vector<uint32_t>>& strings,
                                   const std::vector<uint32_t>& ids, std::vector<double> weights)
    : value_(1, -1), child_(strings.size() * 4 + 16), weights_(std::move(weights)) {
  for (size_t k = 0; k < strings.size(); ++k) {
    max_len_ = std::max(max_len_, strings[k].size());
    uint32_t node = 0;
    for (uint32_t s : strings[k]) {
      uint32_t& next = child_.get_or_insert(pack_pair(node, s), UINT32_MAX);
      if (next == UINT32_MAX) {
        next = static_cast<uint32_t>(value_.size());
        value_.push_back(-1);
      }
      node = next;
    }
    if (value_[node] < 0) value_[node] = ids[k];  // the first entry of a string wins, as in ubpe's trie
  }
}

void UniversalEncoder::edges_at(const std::vector<uint32_t>& word, size_t start,
                                std::vector<std::pair<uint32_t, uint32_t>>& out) const {
  out.clear();
  uint32_t node = 0;
  for (size_t i = start; i < word.size(); ++i) {
    const uint32_t* next = child_.find(pack_pair(node, word[i]));
    if (next == nullptr) break;
    node = *next;
    if (value_[node] >= 0) out.emplace_back(static_cast<uint32_t>(i + 1 - start), static_cast<uint32_t>(value_[node]));
  }
}

double UniversalEncoder::weight_with(const Tail& tail, uint32_t token, LogTable& logs) const {
  double idf = idf_of(weights_, token);
  if (idf == 0.0) return tail.weight;  // adds exactly nothing: the same sum as the tail's
  Py312Sum sum;
  bool found = false;
  for (const auto& [id, count] : tail.counter) {
    bool here = !found && id == token;
    found = found || here;
    sum.add(logs.one_plus_log(count + (here ? 1 : 0)) * weights_[id]);
  }
  if (!found) sum.add(logs.one_plus_log(1) * idf);  // a new Counter key goes last
  return sum.result();
}

UniversalEncoder::Tail UniversalEncoder::extend(const Tail& tail, uint32_t token, uint32_t next_pos,
                                                uint32_t next_idx, double weight) const {
  Tail t;
  t.weight = weight;
  t.length = tail.length + 1;
  t.token = token;
  t.next_pos = next_pos;
  t.next_idx = next_idx;
  t.counter = tail.counter;
  if (idf_of(weights_, token) == 0.0) return t;
  for (auto& entry : t.counter) {
    if (entry.first == token) {
      ++entry.second;
      return t;
    }
  }
  t.counter.emplace_back(token, 1);
  return t;
}

namespace {

// heapq's _siftdown and _siftup over `heap` with Tail::operator<, step for step.
template <typename T>
void sift_down(std::vector<T>& heap, size_t start, size_t pos) {
  T item = std::move(heap[pos]);
  while (pos > start) {
    size_t parent = (pos - 1) >> 1;
    if (item < heap[parent]) {
      heap[pos] = std::move(heap[parent]);
      pos = parent;
      continue;
    }
    break;
  }
  heap[pos] = std::move(item);
}

template <typename T>
void sift_up(std::vector<T>& heap, size_t pos) {
  size_t end = heap.size(), start = pos;
  T item = std::move(heap[pos]);
  size_t child = 2 * pos + 1;
  while (child < end) {
    size_t right = child + 1;
    if (right < end && !(heap[child] < heap[right])) child = right;
    heap[pos] = std::move(heap[child]);
    pos = child;
    child = 2 * pos + 1;
  }
  heap[pos] = std::move(item);
  sift_down(heap, start, pos);
}

}  // namespace

std::vector<Encoded> UniversalEncoder::encode(const std::vector<uint32_t>& word, uint32_t top_n) const {
  const size_t n = word.size();
  std::vector<std::vector<Tail>> tails(n + 1);
  tails[n].emplace_back();
  LogTable logs;
  std::vector<std::pair<uint32_t, uint32_t>> edges;
  for (size_t start = n; start-- > 0;) {
    std::vector<Tail>& heap = tails[start];
    edges_at(word, start, edges);
    for (auto [len, token] : edges) {
      const uint32_t next_pos = static_cast<uint32_t>(start + len);
      const std::vector<Tail>& after = tails[next_pos];
      const size_t usable = top_n == 1 ? std::min<size_t>(after.size(), 1) : after.size();
      for (size_t j = 0; j < usable; ++j) {
        // Compare on (weight, length) first; the Counter is copied only for a kept tail.
        Tail key;
        key.weight = weight_with(after[j], token, logs);
        key.length = after[j].length + 1;
        auto make = [&] { return extend(after[j], token, next_pos, static_cast<uint32_t>(j), key.weight); };
        if (top_n == 1) {
          // ubpe keeps the first best: a later one replaces it only when strictly better
          if (heap.empty() || heap[0] < key) heap.assign(1, make());
        } else if (heap.size() < top_n) {
          heap.push_back(make());
          sift_down(heap, 0, heap.size() - 1);
        } else if (heap[0] < key) {
          heap[0] = make();
          sift_up(heap, 0);
        }
      }
    }
    if (start + max_len_ <= n) {  // no position before `start` reaches this far
      for (Tail& t : tails[start + max_len_]) std::vector<std::pair<uint32_t, uint32_t>>().swap(t.counter);
    }
  }
  std::vector<uint32_t> order(tails[0].size());
  for (uint32_t k = 0; k < order.size(); ++k) order[k] = k;
  // sorted(reverse=True): heaviest first, equal ones in heap order
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return tails[0][b] < tails[0][a]; });
  std::vector<Encoded> out;
  for (uint32_t k : order) {
    Encoded e;
    e.weight = tails[0][k].weight;
    uint32_t pos = 0, idx = k;
    while (pos < n) {
      const Tail& t = tails[pos][idx];
      e.ids.push_back(t.token);
      pos = t.next_pos;
      idx = t.next_idx;
    }
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace tf::ubpe
