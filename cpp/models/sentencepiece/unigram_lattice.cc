#include "models/sentencepiece/unigram_lattice.h"

#include <algorithm>
#include <cmath>
#include <queue>

namespace tf::spm {

namespace {

float log_sum_exp(float x, float y, bool init) {
  if (init) return y;
  const float lo = std::min(x, y), hi = std::max(x, y);
  if (hi > lo + 50) return hi;
  return hi + static_cast<float>(std::log(std::exp(static_cast<double>(lo - hi)) + 1.0));
}

// A* hypotheses of n-best and sampling without replacement: a lattice node with the
// hypothesis it extends toward EOS; fx orders the agenda (n-best: score of the best
// complete path through it; sampling: the perturbed, truncated score), gx is the score of
// the suffix so far (n-best) or its log probability (sampling).
struct Hyp {
  int32_t node;
  int32_t next;  // hypothesis toward EOS, -1 at EOS
  float fx, gx;
};
// Orders agenda entries (indices into the hypotheses) by fx, highest on top.
struct Lower {
  const std::vector<Hyp>* hyps;
  bool operator()(int32_t a, int32_t b) const { return (*hyps)[a].fx < (*hyps)[b].fx; }
};
using Agenda = std::priority_queue<int32_t, std::vector<int32_t>, Lower>;

// The A* agenda is kept bounded as sentencepiece keeps it: past 10,000 hypotheses only the
// best min(512, 10 * nbest_size) stay.
void bound_agenda(Agenda* agenda, const Lower& lower, size_t nbest_size) {
  if (agenda->size() < 10000) return;
  Agenda kept(lower);
  const size_t keep = std::min<size_t>(512, nbest_size * 10);
  for (size_t i = 0; i < keep && !agenda->empty(); ++i) {
    kept.push(agenda->top());
    agenda->pop();
  }
  *agenda = std::move(kept);
}

}  // namespace

int32_t UnigramLattice::insert(uint32_t pos, uint32_t length) {
  int32_t idx = static_cast<int32_t>(nodes_.size());
  nodes_.push_back(Node{-1, pos, length, char_begin_[pos], char_begin_[pos + length], 0.0f});
  begin_nodes_[pos].push_back(idx);
  end_nodes_[pos + length].push_back(idx);
  return idx;
}

bool UnigramLattice::build(const Unigram& model, std::string_view text, std::string* error) {
  const uint8_t* s = reinterpret_cast<const uint8_t*>(text.data());
  const size_t n = text.size();
  auto refuse = [&](const std::string& what) {
    *error = "cannot sample or score a text of " + std::to_string(n) + " bytes: " + what;
    nodes_.clear();
    begin_nodes_.clear();
    end_nodes_.clear();
    return false;
  };
  if (n > kMaxBytes) return refuse("a lattice holds at most " + std::to_string(kMaxBytes) + " bytes");
  constexpr size_t kMaxNodes = INT32_MAX;  // node indices are int32_t
  const char* too_many = "its lattice would have over 2^31 nodes";
  char_begin_.clear();
  std::vector<int32_t> char_at_byte(n + 1, -1);  // byte offset -> character index
  for (size_t i = 0; i < n;) {
    char_at_byte[i] = static_cast<int32_t>(char_begin_.size());
    char_begin_.push_back(static_cast<uint32_t>(i));
    i += std::min(spm_char_len(s[i]), n - i);
  }
  const uint32_t len = static_cast<uint32_t>(char_begin_.size());
  char_at_byte[n] = static_cast<int32_t>(len);
  char_begin_.push_back(static_cast<uint32_t>(n));
  nodes_.clear();
  begin_nodes_.assign(len + 1, {});
  end_nodes_.assign(len + 1, {});
  nodes_.push_back(Node{-1, 0, 0, 0, 0, 0.0f});  // BOS
  end_nodes_[0].push_back(kBos);
  nodes_.push_back(Node{-1, len, 0, static_cast<uint32_t>(n), static_cast<uint32_t>(n), 0.0f});  // EOS
  begin_nodes_[len].push_back(kEos);

  const SpmVocab& vocab = model.vocab();
  const PieceTrie& trie = model.trie();
  for (uint32_t pos = 0; pos < len; ++pos) {
    bool has_single = false;
    int32_t t = 0;
    for (size_t k = char_begin_[pos]; k < n; ++k) {
      t = trie.child(t, s[k]);
      if (t < 0) break;
      int32_t id = trie.value(t);
      if (id < 0 || char_at_byte[k + 1] < 0) continue;
      if (vocab.type(id) == SpmType::kUnused) continue;
      uint32_t length = static_cast<uint32_t>(char_at_byte[k + 1]) - pos;
      if (nodes_.size() >= kMaxNodes) return refuse(too_many);
      int32_t node = insert(pos, length);
      nodes_[node].id = id;
      nodes_[node].score = static_cast<float>(model.piece_score(id, length));
      if (length == 1) has_single = true;
    }
    if (!has_single) {
      if (nodes_.size() >= kMaxNodes) return refuse(too_many);
      int32_t node = insert(pos, 1);
      nodes_[node].id = vocab.unk_id();
      nodes_[node].score = model.unk_score();
    }
  }
  return true;
}

UnigramLattice::Path UnigramLattice::viterbi() {
  const uint32_t len = static_cast<uint32_t>(begin_nodes_.size()) - 1;
  for (uint32_t pos = 0; pos <= len; ++pos) {
    for (int32_t r : begin_nodes_[pos]) {
      Node& rn = nodes_[r];
      rn.prev = -1;
      float best = 0.0f;
      for (int32_t l : end_nodes_[pos]) {
        float score = nodes_[l].backtrace_score + rn.score;
        if (rn.prev < 0 || score > best) {
          best = score;
          rn.prev = l;
        }
      }
      rn.backtrace_score = best;
    }
  }
  Path path;
  for (int32_t i = nodes_[kEos].prev; i >= 0 && i != kBos; i = nodes_[i].prev) path.push_back(i);
  std::reverse(path.begin(), path.end());
  return path;
}

std::vector<std::pair<UnigramLattice::Path, float>> UnigramLattice::nbest(size_t nbest_size) {
  std::vector<std::pair<Path, float>> results;
  if (nbest_size < 1) return results;
  if (nbest_size == 1) {
    Path best = viterbi();
    results.emplace_back(std::move(best), nodes_[kEos].backtrace_score);
    return results;
  }
  std::vector<Hyp> hyps;
  const Lower lower{&hyps};
  Agenda agenda(lower);
  viterbi();
  hyps.push_back(Hyp{kEos, -1, nodes_[kEos].backtrace_score, 0.0f});
  agenda.push(0);
  while (!agenda.empty()) {
    int32_t top = agenda.top();
    agenda.pop();
    const Hyp h = hyps[top];
    if (h.node == kBos) {
      Path path;
      for (int32_t k = h.next; hyps[k].next >= 0; k = hyps[k].next) path.push_back(hyps[k].node);
      results.emplace_back(std::move(path), h.fx);
      if (results.size() == nbest_size) break;
      continue;
    }
    for (int32_t l : end_nodes_[nodes_[h.node].pos]) {
      const Node& ln = nodes_[l];
      hyps.push_back(Hyp{l, top, ln.backtrace_score + h.gx, ln.score + h.gx});
      agenda.push(static_cast<int32_t>(hyps.size() - 1));
    }
    bound_agenda(&agenda, lower, nbest_size);
  }
  return results;
}

std::vector<float> UnigramLattice::forward(float theta) const {
  std::vector<float> alpha(nodes_.size(), 0.0f);
  const size_t len = begin_nodes_.size() - 1;
  for (size_t pos = 0; pos <= len; ++pos) {
    for (int32_t r : begin_nodes_[pos]) {
      for (int32_t l : end_nodes_[pos]) {
        alpha[r] = log_sum_exp(alpha[r], theta * nodes_[l].score + alpha[l], l == end_nodes_[pos][0]);
      }
    }
  }
  return alpha;
}

UnigramLattice::Path UnigramLattice::sample(float theta, std::mt19937_64& rng) const {
  Path path;
  if (begin_nodes_.size() <= 1) return path;
  const std::vector<float> alpha = forward(theta);
  float z = alpha[kEos];
  int32_t node = kEos;
  std::vector<double> probs;
  while (true) {
    const std::vector<int32_t>& ends = end_nodes_[nodes_[node].pos];
    probs.clear();
    for (int32_t l : ends) probs.push_back(std::exp(static_cast<double>(alpha[l] + theta * nodes_[l].score - z)));
    std::discrete_distribution<size_t> pick(probs.begin(), probs.end());
    node = ends[pick(rng)];
    if (node == kBos) break;
    z = alpha[node];
    path.push_back(node);
  }
  std::reverse(path.begin(), path.end());
  return path;
}

namespace {

// A standard Gumbel draw, -log(-log(U + 1e-7)) with U uniform on [0, 1) in float, as
// sentencepiece draws it.
float gumbel(std::mt19937_64& rng) {
  std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
  return -std::log(-std::log(uniform(rng) + 1e-7f));
}

}  // namespace

std::vector<std::pair<UnigramLattice::Path, float>> UnigramLattice::sample_nbest(size_t nbest_size, float theta,
                                                                                 std::mt19937_64& rng) const {
  std::vector<std::pair<Path, float>> results;
  if (nbest_size < 1) return results;
  std::vector<Hyp> hyps;
  const Lower lower{&hyps};
  Agenda agenda(lower);
  const std::vector<float> alpha = forward(theta);
  hyps.push_back(Hyp{kEos, -1, gumbel(rng), 0.0f});  // the perturbed score of the whole lattice
  agenda.push(0);
  std::vector<float> probs, perturbed;
  while (!agenda.empty()) {
    const int32_t top = agenda.top();
    agenda.pop();
    const Hyp h = hyps[top];
    if (h.node == kBos) {
      Path path;
      for (int32_t k = h.next; hyps[k].next >= 0; k = hyps[k].next) path.push_back(hyps[k].node);
      results.emplace_back(std::move(path), h.fx);
      if (results.size() == nbest_size) break;
      continue;
    }
    const std::vector<int32_t>& ends = end_nodes_[nodes_[h.node].pos];
    const float z = alpha[h.node];
    probs.assign(ends.size(), 0.0f);
    perturbed.assign(ends.size(), 0.0f);
    float max_score = -1e8f;
    for (size_t i = 0; i < ends.size(); ++i) {
      const Node& ln = nodes_[ends[i]];
      probs[i] = h.gx + alpha[ends[i]] + theta * ln.score - z;
      perturbed[i] = probs[i] + gumbel(rng);
      max_score = std::max(max_score, perturbed[i]);
    }
    for (size_t i = 0; i < ends.size(); ++i) {
      // Truncate each child's Gumbel at the parent's value, in the numerically stable form
      // (Kool et al. 2019, appendix B.3).
      const float v = h.fx - perturbed[i] + std::log1p(-std::exp(perturbed[i] - max_score));
      const double adjusted = h.fx - std::max(0.0f, v) - std::log1p(std::exp(-std::fabs(v)));
      hyps.push_back(Hyp{ends[i], top, static_cast<float>(adjusted), probs[i]});
      agenda.push(static_cast<int32_t>(hyps.size() - 1));
    }
    bound_agenda(&agenda, lower, nbest_size);
  }
  return results;
}

float UnigramLattice::entropy(float theta) const {
  const std::vector<float> alpha = forward(theta);
  std::vector<float> h(nodes_.size(), 0.0f);
  const size_t len = begin_nodes_.size() - 1;
  for (size_t pos = 0; pos <= len; ++pos) {
    for (int32_t r : begin_nodes_[pos]) {
      for (int32_t l : end_nodes_[pos]) {
        const float log_p = theta * nodes_[l].score + alpha[l] - alpha[r];
        h[r] += std::exp(log_p) * (h[l] + log_p);
      }
    }
  }
  return -h[kEos];
}

}  // namespace tf::spm
