// UnigramLattice: every segmentation of one sentence under a Unigram model, as a lattice
// of nodes (a piece at a character position), for the queries that need more than the
// best path:
//   nbest(n)      the n best segmentations by A* search from the end, with the exact
//                 Viterbi scores as the heuristic (sentencepiece's Lattice::NBest, same
//                 priority-queue order, so ties come out alike);
//   sample(theta) one segmentation drawn with probability proportional to
//                 exp(theta * score), by forward filtering / backward sampling (Kudo 2018);
//   entropy(theta) the entropy of that distribution, by a forward pass;
//   sample_nbest(n, theta) n segmentations drawn without replacement from that
//                 distribution: the same A* from the end, over Gumbel-perturbed scores
//                 truncated so a child never exceeds its parent (Kool et al. 2019, "Stochastic
//                 beams and where to find them"), as sentencepiece's NBest(sample=true); each
//                 comes with its perturbed score.
// Building is O(n * longest piece); nbest is O(n * k * log) per result on a typical
// lattice, with the agenda capped as sentencepiece does.
#pragma once

#include <cstdint>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "models/sentencepiece/unigram.h"

namespace tf::spm {

class UnigramLattice {
 public:
  struct Node {
    int32_t id;        // piece id (-1 for BOS/EOS)
    uint32_t pos;      // first character
    uint32_t length;   // in characters
    uint32_t begin;    // bytes of the normalized text
    uint32_t end;
    float score;
    float backtrace_score = 0.0f;
    int32_t prev = -1;
  };
  using Path = std::vector<int32_t>;  // node indices, left to right

  // Builds the lattice of `normalized` (sentencepiece's PopulateNodes).  Nodes and
  // characters are indexed with int32_t: a text over kMaxBytes, or a lattice that would
  // have over INT32_MAX nodes, is refused (false, *error set).
  static constexpr size_t kMaxBytes = 0x7FFFFFFF;
  bool build(const Unigram& model, std::string_view normalized, std::string* error);

  const Node& node(int32_t i) const { return nodes_[i]; }
  // The n best paths with their scores, best first (at most n).
  std::vector<std::pair<Path, float>> nbest(size_t n);
  Path viterbi();
  Path sample(float theta, std::mt19937_64& rng) const;
  float entropy(float theta) const;
  std::vector<std::pair<Path, float>> sample_nbest(size_t n, float theta, std::mt19937_64& rng) const;
  // log Z(theta), the log of the sum of exp(theta * score) over all paths.
  float log_partition(float theta) const { return begin_nodes_.size() <= 1 ? 0.0f : forward(theta)[kEos]; }

 private:
  std::vector<float> forward(float theta) const;
  int32_t insert(uint32_t pos, uint32_t length);

  static constexpr int32_t kBos = 0;
  static constexpr int32_t kEos = 1;
  std::vector<Node> nodes_;
  std::vector<uint32_t> char_begin_;  // character index -> byte offset (one past the end too)
  std::vector<std::vector<int32_t>> begin_nodes_;
  std::vector<std::vector<int32_t>> end_nodes_;
};

}  // namespace tf::spm
