// ViterbiUnigram: the Unigram model of HF `tokenizer.json` files (Kudo 2018), as
// `tokenizers`' models/unigram encodes: the best-scoring segmentation of a word into pieces.
//
// Positions advance a character at a time; every piece starting there (a walk of the piece
// trie) is a candidate ending later, kept only when strictly better than the path already
// ending there, so ties go to the earlier-found one.  A character with no one-character
// piece is covered by the unknown id at (lowest score - 10).  Consecutive unknown pieces
// are fused; each piece's id is then that of its text (the first id a text has), as
// `tokenizers` looks it up again (the trie holds that id, so only a fused run's text is
// looked up anew).  O(n * longest piece) per word, scores in double as
// `tokenizers` keeps them.  Not tf::spm::Unigram: sentencepiece's lattice scores in float
// and its ties may fall otherwise.
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
  // pieces: id -> (text, score); unk_id must be a piece.
  bool build(const std::vector<std::pair<std::string, double>>& pieces, int64_t unk_id, std::string* error);

  // Appends the pieces of `word` (valid UTF-8), offsets relative to its start plus `base`.
  void encode(std::string_view word, uint32_t base, std::vector<HfToken>* out) const;

  uint32_t unk_id() const { return unk_id_; }

 private:
  struct Node {
    double score;
    int64_t start;  // -1: no path ends here yet
    uint32_t id;
  };
  PieceTrie trie_;
  std::vector<double> scores_;  // id -> score
  uint32_t unk_id_ = 0;
  double unk_score_ = 0;
};

}  // namespace tf::hf
