// UBPE fitting with in-place pair counts (see fit.h).
#include "models/ubpe/fit.h"

#include <algorithm>
#include <cmath>

#include "common/u64_map.h"

namespace tf::ubpe {
namespace {

struct PairStat {
  uint32_t left, right;
  int64_t count = 0;
  int64_t docs = 0;
  bool listed = false;             // in UbpePairTable::live_
  std::vector<int32_t> positions;  // where the pair started at some point; stale ones are skipped
};

// Ranks pairs as ubpe's PairCounter.most_common: more frequent, then in fewer documents,
// then the larger (left, right).
bool ranks_before(const PairStat& a, const PairStat& b) {
  if (a.count != b.count) return a.count > b.count;
  if (a.docs != b.docs) return a.docs < b.docs;
  if (a.left != b.left) return a.left > b.left;
  return a.right > b.right;
}

// The corpus as one linked sequence of symbols (parts unlinked from each other) with its pair
// statistics.  Invariant: stats[pid].count is the number of live positions p with
// (sym[p], sym[next[p]]) == pair, and docs the number of documents holding one.
class UbpePairTable {
 public:
  UbpePairTable(const std::vector<std::vector<uint32_t>>& parts, const std::vector<uint32_t>& part_doc) {
    size_t n = 0;
    for (const auto& p : parts) n += p.size();
    sym_.reserve(n);
    next_.reserve(n);
    prev_.reserve(n);
    doc_.reserve(n);
    for (size_t i = 0; i < parts.size(); ++i) {
      int32_t start = static_cast<int32_t>(sym_.size());
      for (size_t k = 0; k < parts[i].size(); ++k) {
        int32_t pos = start + static_cast<int32_t>(k);
        sym_.push_back(static_cast<int32_t>(parts[i][k]));
        prev_.push_back(k == 0 ? -1 : pos - 1);
        next_.push_back(k + 1 == parts[i].size() ? -1 : pos + 1);
        doc_.push_back(part_doc[i]);
      }
    }
    pid_here_.assign(sym_.size(), UINT32_MAX);
    for (int32_t p = 0; p < static_cast<int32_t>(sym_.size()); ++p) {
      if (next_[p] >= 0) add(p);
    }
  }

  int64_t count_of(uint32_t left, uint32_t right) const {
    const uint32_t* pid = pid_of_.find(pack_pair(left, right));
    return pid ? stats_[*pid].count : 0;
  }

  // The top n pairs by ranks_before (fewer if fewer pairs occur): one pass over the live
  // pairs with a bounded heap whose front is the worst kept, O(pairs + n log n) per step.
  std::vector<uint32_t> top(size_t n) {
    auto before = [&](uint32_t a, uint32_t b) { return ranks_before(stats_[a], stats_[b]); };
    std::vector<uint32_t> best;
    best.reserve(n + 1);
    size_t kept = 0;
    for (uint32_t pid : live_) {
      if (stats_[pid].count <= 0) {
        stats_[pid].listed = false;
        continue;
      }
      live_[kept++] = pid;
      if (best.size() < n) {
        best.push_back(pid);
        std::push_heap(best.begin(), best.end(), before);
      } else if (n > 0 && before(pid, best.front())) {
        std::pop_heap(best.begin(), best.end(), before);
        best.back() = pid;
        std::push_heap(best.begin(), best.end(), before);
      }
    }
    live_.resize(kept);
    std::sort_heap(best.begin(), best.end(), before);
    return best;
  }

  const PairStat& stat(uint32_t pid) const { return stats_[pid]; }

  // Replaces every occurrence of pair `pid`, left to right, by `new_id`.
  void merge(uint32_t pid, uint32_t new_id) {
    std::vector<int32_t> where;
    where.swap(stats_[pid].positions);
    std::sort(where.begin(), where.end());
    where.erase(std::unique(where.begin(), where.end()), where.end());
    const int32_t left = static_cast<int32_t>(stats_[pid].left);
    const int32_t right = static_cast<int32_t>(stats_[pid].right);
    for (int32_t p : where) {
      int32_t q = next_[p];
      if (sym_[p] != left || q < 0 || sym_[q] != right) continue;  // stale, or eaten by an overlap
      int32_t a = prev_[p], b = next_[q];
      if (a >= 0) remove(a);
      remove(p);
      if (b >= 0) remove(q);
      sym_[p] = static_cast<int32_t>(new_id);
      sym_[q] = -1;
      next_[p] = b;
      if (b >= 0) prev_[b] = p;
      if (a >= 0) add(a);
      if (b >= 0) add(p);
    }
  }

 private:
  uint32_t pid_at(int32_t p) {
    uint32_t l = static_cast<uint32_t>(sym_[p]), r = static_cast<uint32_t>(sym_[next_[p]]);
    uint32_t& pid = pid_of_.get_or_insert(pack_pair(l, r), UINT32_MAX);
    if (pid == UINT32_MAX) {
      pid = static_cast<uint32_t>(stats_.size());
      stats_.push_back(PairStat{l, r});
    }
    return pid;
  }
  void add(int32_t p) {
    uint32_t pid = pid_at(p);
    pid_here_[p] = pid;
    PairStat& s = stats_[pid];
    if (!s.listed) {
      s.listed = true;
      live_.push_back(pid);
    }
    ++s.count;
    s.positions.push_back(p);
    if (doc_pairs_.get_or_insert(pack_pair(pid, doc_[p]), 0)++ == 0) ++s.docs;
  }
  void remove(int32_t p) {
    uint32_t pid = pid_here_[p];  // the pair add() counted at p, still there
    PairStat& s = stats_[pid];
    --s.count;
    if (--*doc_pairs_.find(pack_pair(pid, doc_[p])) == 0) --s.docs;
  }

  std::vector<int32_t> sym_, next_, prev_;  // sym -1: merged into its left neighbour
  std::vector<uint32_t> doc_;
  std::vector<uint32_t> pid_here_;  // pid of the pair starting at each position
  std::vector<PairStat> stats_;
  std::vector<uint32_t> live_;  // each pid with count > 0 once (and some with 0)
  U64Map<uint32_t> pid_of_;     // (left, right) -> pid
  U64Map<uint32_t> doc_pairs_;  // (pid, doc) -> occurrences in that document
};

}  // namespace

FitResult fit_merges(const std::vector<std::vector<uint32_t>>& parts,
                     const std::vector<uint32_t>& part_doc, uint32_t n_docs, uint32_t first_id,
                     uint32_t n_tokens, uint32_t n_candidates) {
  UbpePairTable table(parts, part_doc);
  FitResult out;
  int64_t last_id = static_cast<int64_t>(first_id) - 1;
  while (last_id < static_cast<int64_t>(n_tokens)) {
    std::vector<uint32_t> top = table.top(n_candidates);
    if (top.empty()) break;
    std::vector<uint32_t> chosen{top[0]};
    for (size_t i = 1; i < top.size(); ++i) {
      const PairStat& c = table.stat(top[i]);
      bool ok = true;
      for (uint32_t t : chosen) {
        const PairStat& d = table.stat(t);
        if (c.left == d.left || c.left == d.right || c.right == d.left || c.right == d.right ||
            table.count_of(c.right, d.left) >= c.count || table.count_of(d.right, c.left) >= c.count) {
          ok = false;
          break;
        }
      }
      if (ok) chosen.push_back(top[i]);
    }
    std::vector<uint32_t> ids;
    for (uint32_t pid : chosen) {
      const PairStat& s = table.stat(pid);
      out.merges.emplace_back(s.left, s.right);
      out.weights.push_back(std::log(static_cast<double>(1 + static_cast<int64_t>(n_docs)) /
                                     static_cast<double>(1 + s.docs)));
      ids.push_back(static_cast<uint32_t>(++last_id));
    }
    // The chosen pairs share no symbol, so merging one never touches another's occurrences.
    for (size_t k = 0; k < chosen.size(); ++k) table.merge(chosen[k], ids[k]);
  }
  return out;
}

}  // namespace tf::ubpe
