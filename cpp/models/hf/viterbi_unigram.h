// ViterbiUnigram: the Unigram model of HF `tokenizer.json` files (Kudo 2018), as
// `tokenizers`' models/unigram encodes: the best-scoring segmentation of a word into pieces.
//
// Positions advance a character at a time; every piece starting there (a walk of the piece
// trie) is a candidate ending later, kept only when strictly better than the path already
// ending there, so ties go to the earlier-found one.  A character with no one-character
// piece is covered by the unknown id at (lowest score - 10).  Consecutive unknown pieces
// are fused; each piece's id is then that of its text (the first id a text has), as
// `tokenizers` looks it up again (the trie holds that id, so only a fused run's text is
// looked up anew).  O(n * longest piece) per word, scores added in double as
// `tokenizers` adds them (read from the trie's float payload when every score is a float
// exactly, as in files converted from sentencepiece: the same doubles, one cache line
// less).  Not tf::spm::Unigram: sentencepiece's lattice scores in float and its ties may
// fall otherwise.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/piece_trie.h"
#include "models/hf/merge_rank_bpe.h"

namespace tf::hf {

class ViterbiUnigram {
 public:
  // The best path ending at a position: its score, where its last piece starts, that piece.
  struct Node {
    double score;
    uint32_t start;  // kNoPath: no path ends here yet
    uint32_t id;
  };
  // pieces: id -> (text, score); unk_id must be a piece.
  bool build(const std::vector<std::pair<std::string, double>>& pieces, int64_t unk_id, std::string* error);

  // The lattice's storage, reused from word to word by one thread (the caller's).
  struct Lattice {
    std::vector<Node> best;
  };

  // Appends the pieces of `word` (valid UTF-8), offsets relative to its start plus `base`.
  void encode(std::string_view word, uint32_t base, std::vector<HfToken>* out, Lattice& lattice) const;

  uint32_t unk_id() const { return unk_id_; }

 private:
  static constexpr uint32_t kNoPath = 0xFFFFFFFFu;  // a word is shorter (offsets are 32-bit)
  // The lattice's forward pass into best[0, n]; with kPayload the scores are read from the
  // trie's units (the float beside each value: every score is a float exactly).
  template <bool kPayload>
  void forward(const uint8_t* s, size_t n, Node* best) const;

  PieceTrie trie_;
  std::vector<double> scores_;  // id -> score
  bool float_scores_ = false;   // every score is exactly a float: the trie carries them
  uint32_t unk_id_ = 0;
  double unk_score_ = 0;
};

}  // namespace tf::hf
