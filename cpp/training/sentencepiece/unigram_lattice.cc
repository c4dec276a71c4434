// UnigramTrainer's per-word lattices: the edges of a word (every piece found by the trie
// from each position, plus an unknown edge where no one-character piece starts), the
// forward-backward E-step and Viterbi.
//
// The E-step works in probabilities, not logs (exp(score) per piece, computed once per
// step): no exp or log per edge.  A word whose total probability would underflow a double
// (long words of rare pieces) is redone in log space.  Expected counts are added in fixed
// point (kUnigramCountScale units), so that sums do not depend on how words are split over threads.
#include <algorithm>
#include <cmath>
#include <limits>

#include "training/sentencepiece/unigram_trainer.h"

namespace tf::spm_train {

namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();
constexpr double kSmallestTotal = 1e-250;     // below this, the word is redone in log space

double log_add(double a, double b) {
  if (a == kNegInf) return b;
  if (b == kNegInf) return a;
  return a > b ? a + std::log1p(std::exp(b - a)) : b + std::log1p(std::exp(a - b));
}

int64_t fixed(double x) { return static_cast<int64_t>(x * kUnigramCountScale + 0.5); }

}  // namespace

void UnigramTrainer::edges_of(const char32_t* chars, size_t n, std::vector<Edge>* edges) const {
  edges->clear();
  const size_t max_len = static_cast<size_t>(rules_.max_length);
  for (size_t i = 0; i < n; ++i) {
    int32_t node = 0;
    bool single = false;
    const size_t last = std::min(n, i + max_len);
    for (size_t end = i + 1; end <= last; ++end) {
      const UnigramPieceIndex::Step next = index_.step(node, chars[end - 1]);
      if (next.node < 0) break;
      node = next.node;
      const int32_t id = next.piece;
      if (id < 0) continue;
      edges->push_back({static_cast<uint32_t>(i), static_cast<uint32_t>(end), id});
      single = single || end == i + 1;
    }
    if (!single) edges->push_back({static_cast<uint32_t>(i), static_cast<uint32_t>(i + 1), -1});
  }
}

double UnigramTrainer::expect(size_t begin, size_t end, std::vector<int64_t>* counts) const {
  Scratch s;
  double objective = 0.0;
  for (size_t w = begin; w < end; ++w) {
    const size_t n = word_size(w);
    if (n == 0) continue;
    const char32_t* chars = word(w);
    const auto freq = static_cast<double>(counts_[w]);
    edges_of(chars, n, &s.edges);
    s.alpha.assign(n + 1, 0.0);
    s.alpha[0] = 1.0;
    for (const Edge& e : s.edges) s.alpha[e.end] += s.alpha[e.start] * edge_prob(e);
    const double z = s.alpha[n];
    if (!(z > kSmallestTotal)) {
      objective += expect_log(n, freq, &s, counts);
      continue;
    }
    s.beta.assign(n + 1, 0.0);
    s.beta[n] = 1.0;
    for (auto it = s.edges.rbegin(); it != s.edges.rend(); ++it)
      s.beta[it->start] += edge_prob(*it) * s.beta[it->end];
    objective += freq * std::log(z);
    const double scale = freq / z;
    for (const Edge& e : s.edges) {
      if (e.piece < 0) continue;
      (*counts)[e.piece] += fixed(scale * s.alpha[e.start] * probs_[e.piece] * s.beta[e.end]);
    }
  }
  return objective;
}

double UnigramTrainer::expect_log(size_t n, double freq, Scratch* s, std::vector<int64_t>* counts) const {
  s->alpha.assign(n + 1, kNegInf);
  s->beta.assign(n + 1, kNegInf);
  s->alpha[0] = 0.0;
  s->beta[n] = 0.0;
  for (const Edge& e : s->edges) s->alpha[e.end] = log_add(s->alpha[e.end], s->alpha[e.start] + edge_score(e));
  for (auto it = s->edges.rbegin(); it != s->edges.rend(); ++it)
    s->beta[it->start] = log_add(s->beta[it->start], edge_score(*it) + s->beta[it->end]);
  const double z = s->alpha[n];
  for (const Edge& e : s->edges) {
    if (e.piece < 0) continue;
    (*counts)[e.piece] += fixed(freq * std::exp(s->alpha[e.start] + edge_score(e) + s->beta[e.end] - z));
  }
  return freq * z;
}

bool UnigramTrainer::viterbi(const char32_t* chars, size_t n, int32_t skip_whole, Scratch* s,
                             std::vector<int32_t>* path, double* score) const {
  edges_of(chars, n, &s->edges);
  auto& best = s->alpha;
  best.assign(n + 1, kNegInf);
  s->back.assign(n + 1, -1);
  best[0] = 0.0;
  for (size_t k = 0; k < s->edges.size(); ++k) {
    const Edge& e = s->edges[k];
    if (e.piece == skip_whole && e.start == 0 && e.end == n) continue;
    const double v = best[e.start] + edge_score(e);
    if (v > best[e.end]) best[e.end] = v, s->back[e.end] = static_cast<int32_t>(k);
  }
  path->clear();
  *score = best[n];
  if (best[n] == kNegInf) return false;
  bool has_unknown = false;
  for (size_t pos = n; pos > 0;) {
    const Edge& e = s->edges[static_cast<size_t>(s->back[pos])];
    path->push_back(e.piece);
    has_unknown = has_unknown || e.piece < 0;
    pos = e.start;
  }
  std::reverse(path->begin(), path->end());
  return !has_unknown;
}

void UnigramTrainer::viterbi_counts(size_t begin, size_t end, std::vector<double>* counts) const {
  Scratch s;
  std::vector<int32_t> path;
  double score;
  for (size_t w = begin; w < end; ++w) {
    viterbi(word(w), word_size(w), -2, &s, &path, &score);
    for (int32_t id : path)
      if (id >= 0) (*counts)[static_cast<size_t>(id)] += static_cast<double>(counts_[w]);
  }
}

}  // namespace tf::spm_train
