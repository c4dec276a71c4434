#include "models/hf/viterbi_unigram.h"

#include <algorithm>

#include "common/unicode/unicode.h"

namespace tf::hf {

namespace {
constexpr double kUnkPenalty = 10.0;
}  // namespace

bool ViterbiUnigram::build(const std::vector<std::pair<std::string, double>>& pieces, int64_t unk_id,
                           std::string* error) {
  if (unk_id < 0 || static_cast<size_t>(unk_id) >= pieces.size()) {
    *error = "Unigram: unk_id outside the vocab";
    return false;
  }
  std::vector<std::pair<std::string, int32_t>> keys;
  std::vector<std::string> seen;
  keys.reserve(pieces.size());
  double min_score = pieces.empty() ? 0.0 : pieces[0].second;
  scores_.resize(pieces.size());
  for (size_t i = 0; i < pieces.size(); ++i) {
    scores_[i] = pieces[i].second;
    min_score = std::min(min_score, pieces[i].second);
    if (!pieces[i].first.empty()) keys.emplace_back(pieces[i].first, static_cast<int32_t>(i));
  }
  // A text listed twice keeps its first id (stable sort, then drop the later copies).
  std::stable_sort(keys.begin(), keys.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  keys.erase(std::unique(keys.begin(), keys.end(), [](const auto& a, const auto& b) { return a.first == b.first; }),
             keys.end());
  trie_.build(std::move(keys));
  float_scores_ = std::all_of(scores_.begin(), scores_.end(),
                              [](double x) { return static_cast<double>(static_cast<float>(x)) == x; });
  if (float_scores_) trie_.set_payloads(std::vector<float>(scores_.begin(), scores_.end()));
  unk_id_ = static_cast<uint32_t>(unk_id);
  unk_score_ = min_score - kUnkPenalty;
  return true;
}

template <bool kPayload>
void ViterbiUnigram::forward(const uint8_t* s, size_t n, Node* best) const {
  const PieceTrie::View trie = trie_.view();
  size_t i = 0;
  while (i < n) {
    int len = 1;
    decode_utf8(s + i, s + n, &len);
    const double here = best[i].score;
    bool single = false;
    int32_t node = 0;
    for (size_t j = i; j < n; ++j) {
      node = PieceTrie::child(trie, node, s[j]);
      if (node < 0) break;
      const int32_t id = PieceTrie::value(trie, node);
      if (id < 0) continue;
      const size_t end = j + 1;
      const double cand = here + (kPayload ? static_cast<double>(PieceTrie::payload(trie, node)) : scores_[id]);
      Node& t = best[end];
      if (t.start == kNoPath || cand > t.score) t = Node{cand, static_cast<uint32_t>(i), static_cast<uint32_t>(id)};
      if (end - i == static_cast<size_t>(len)) single = true;
    }
    if (!single) {
      const double cand = here + unk_score_;
      Node& t = best[i + len];
      if (t.start == kNoPath || cand > t.score) t = Node{cand, static_cast<uint32_t>(i), unk_id_};
    }
    i += len;
  }
}

void ViterbiUnigram::encode(std::string_view word, uint32_t base, std::vector<HfToken>* out,
                            Lattice& lattice) const {
  const uint8_t* s = reinterpret_cast<const uint8_t*>(word.data());
  const size_t n = word.size();
  std::vector<Node>& best = lattice.best;
  best.assign(n + 1, Node{0.0, kNoPath, 0});
  best[0].start = 0;
  if (float_scores_) {
    forward<true>(s, n, best.data());
  } else {
    forward<false>(s, n, best.data());
  }
  // Back from the end: pieces in reverse, unknown runs fused, each id looked up by its text.
  const size_t first = out->size();
  size_t end = n;
  size_t unk_end = 0;  // > 0: a run of unknown pieces ends here
  auto push = [&](size_t a, size_t b) {
    int32_t v = -1;
    const size_t m = trie_.longest_prefix(s + a, b - a, &v);
    const int32_t id = (m == b - a) ? v : static_cast<int32_t>(unk_id_);
    out->push_back(HfToken{static_cast<uint32_t>(id), base + static_cast<uint32_t>(a), base + static_cast<uint32_t>(b)});
  };
  while (end > 0) {
    const Node& t = best[end];
    const size_t start = static_cast<size_t>(t.start);
    if (t.id == unk_id_) {
      if (unk_end == 0) unk_end = end;
    } else {
      if (unk_end) push(end, unk_end);
      unk_end = 0;
      // The trie's value at this piece's node: already the first id of its text.
      out->push_back(HfToken{t.id, base + static_cast<uint32_t>(start), base + static_cast<uint32_t>(end)});
    }
    end = start;
  }
  if (unk_end) push(0, unk_end);
  std::reverse(out->begin() + static_cast<std::ptrdiff_t>(first), out->end());
}

}  // namespace tf::hf
