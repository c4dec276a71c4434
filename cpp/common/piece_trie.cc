#include "common/piece_trie.h"

#include <algorithm>

namespace tf {

namespace {

// A range of sorted keys sharing a prefix of length `depth`, to be placed at `node`.
struct Pending {
  size_t begin, end, depth;
  int32_t node;
};

}  // namespace

void PieceTrie::build(std::vector<std::pair<std::string, int32_t>> keys) {
  if (!std::is_sorted(keys.begin(), keys.end())) std::sort(keys.begin(), keys.end());  // callers may sort faster
  size_ = keys.size();
  // Built in separate arrays, then interleaved into units_.
  std::vector<int32_t> base_(1, 0), check_(1, -2), value_(1, kNone);  // the root is taken
  units_.clear();
  if (keys.empty()) {
    units_.push_back(Unit{0, -2, kNone, 0.0f});
    return;
  }

  std::vector<uint8_t> used(1, 1);
  // next_free[i]: a slot index <= the first free slot at or after i (union-find with path
  // halving), so the search for a base skips used slots in near-constant time.
  std::vector<uint32_t> next_free(1, 1);
  auto ensure = [&](size_t n) {
    if (n > check_.size()) {
      size_t old = check_.size();
      check_.resize(n, -1);
      base_.resize(n, 0);
      value_.resize(n, kNone);
      used.resize(n, 0);
      next_free.resize(n + 1);
      for (size_t i = old; i <= n; ++i) next_free[i] = static_cast<uint32_t>(i);
    }
  };
  auto find_free = [&](size_t i) {
    ensure(i + 1);
    while (next_free[i] != i) {
      next_free[i] = next_free[next_free[i]];
      i = next_free[i];
      ensure(i + 1);
    }
    return i;
  };

  std::vector<Pending> stack{{0, keys.size(), 0, 0}};
  std::vector<std::pair<uint8_t, std::pair<size_t, size_t>>> kids;  // label -> key range
  while (!stack.empty()) {
    Pending p = stack.back();
    stack.pop_back();
    kids.clear();
    for (size_t i = p.begin; i < p.end;) {
      const std::string& k = keys[i].first;
      if (k.size() == p.depth) {  // the key ending exactly here sorts first
        value_[p.node] = keys[i].second;
        ++i;
        continue;
      }
      uint8_t c = static_cast<uint8_t>(k[p.depth]);
      size_t j = i + 1;
      while (j < p.end && keys[j].first.size() > p.depth && static_cast<uint8_t>(keys[j].first[p.depth]) == c) ++j;
      kids.push_back({c, {i, j}});
      i = j;
    }
    if (kids.empty()) continue;
    // First fit: the first free slot for the first label whose other slots are free too.
    for (size_t pos = find_free(kids[0].first + 1);; pos = find_free(pos + 1)) {
      size_t base = pos - kids[0].first - 1;
      ensure(base + kids.back().first + 2);
      bool ok = true;
      for (size_t k = 1; ok && k < kids.size(); ++k) ok = !used[base + kids[k].first + 1];
      if (!ok) continue;
      base_[p.node] = static_cast<int32_t>(base);
      for (auto& kid : kids) {
        size_t t = base + kid.first + 1;
        used[t] = 1;
        next_free[t] = static_cast<uint32_t>(t + 1);
        check_[t] = p.node;
        stack.push_back({kid.second.first, kid.second.second, p.depth + 1, static_cast<int32_t>(t)});
      }
      break;
    }
  }
  units_.resize(check_.size());
  for (size_t i = 0; i < check_.size(); ++i) units_[i] = Unit{base_[i], check_[i], value_[i], 0.0f};
}

}  // namespace tf
