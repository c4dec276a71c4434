// UnigramTrainer: sentencepiece's Unigram training (Kudo 2018, "Subword Regularization"),
// written for speed and memory, not bit-identical to spm_train.
//
// 1. Seeds: substrings of the counted words, found level by level (a string of length L
//    is counted only if its first L-1 characters were kept; a level keeps strings seen at
//    least twice, counts weighted by word counts) and followed by two different things
//    (as in spm_train 0.2.3's suffix array over the UTF-8 bytes of whole sentences: first
//    bytes that differ; at a word's end, the end of its sentence or the next word's "▁"),
//    ranked by count * length; the top seed_size valid pieces plus every alphabet
//    character.  Scores start as log shares.
// 2. Rounds of EM: num_sub_iterations times, the forward-backward algorithm over each
//    word's lattice gives expected counts (E), pieces under 0.5 expected uses go (characters
//    too: the lattice's unknown edge covers them, scored as spm_train's lattice scores an
//    unknown, the lowest score minus 10), and scores become digamma(count) - digamma(total)
//    (M, the Bayesian update spm uses).
// 3. Pruning, while there are more than 1.1 * vocab pieces: each piece's loss is the drop
//    in likelihood if its Viterbi uses went to its best split into other pieces; the
//    shrinking_factor share with the largest loss stays (at least 1.1 * vocab); a piece
//    whose best split beats itself goes, a character stays if Viterbi uses it.  A split
//    through the unknown edge (a character the EM dropped) counts the unknown as a piece
//    with no uses of its own (such pieces had been kept unconditionally, which filled the
//    vocabulary with pieces around rare characters on inputs with large alphabets).
// 4. The alphabet (a character the EM dropped scores the lowest score plus 1e-4 per
//    character before it, as spm_train), then the best-scoring pieces up to the vocabulary size.
//
// The readable reference, the oracle of the property tests: src/tokenforge/spm_train/unigram_reference.py.
// Pieces are found in a word by walking a trie of the pieces (UnigramPieceIndex) from each
// position.  The code is in three files: unigram_seeds.cc (1), unigram_lattice.cc (the
// per-word lattices of 2 and 3) and unigram_trainer.cc (the rounds, 3's choice, 4).
//
// Threads: seeding, E-steps, Viterbi passes and the pruning's per-piece splits split the
// words (or pieces, or parts of the hash space) over threads; expected counts are summed in
// fixed point (2^-24 units, rounded per word), so the result is the same for any number of
// threads.
// Memory: the words (code points back to back); while seeding, 9 bytes per code point of
// the words plus one bounded map per thread and at most 1.5 * seed_size candidates; then
// the pieces, their trie, and per thread one lattice and one count per piece.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "training/sentencepiece/piece_rules.h"
#include "training/sentencepiece/unigram_piece_index.h"

namespace tf::spm_train {

// Expected counts are summed in units of 1 / kUnigramCountScale (fixed point).
constexpr double kUnigramCountScale = 16777216.0;

struct UnigramOptions {
  size_t vocab_size = 8000;  // pieces to learn (meta pieces excluded)
  size_t seed_size = 1000000;
  double shrinking_factor = 0.75;
  int sub_iterations = 2;
  int threads = 1;
};

struct UnigramProgress {
  std::atomic<uint32_t> round{0};
  std::atomic<uint64_t> size{0};
  std::atomic<double> objective{0.0};
};

class UnigramTrainer {
 public:
  explicit UnigramTrainer(const PieceRules& rules) : rules_(rules) { starts_.push_back(0); }
  // Adds a counted word; `ends`: what followed it (WordEnds of word_table.h; 0: unknown).
  void add_word(const std::vector<char32_t>& chars, int64_t count, uint16_t ends);
  // The kept characters with their counts (always pieces of the result).
  void set_alphabet(const std::vector<std::pair<char32_t, int64_t>>& chars) { alphabet_ = chars; }
  void train(const UnigramOptions& options, UnigramProgress* progress);
  // (piece as UTF-8, score), best first.
  const std::vector<std::pair<std::string, float>>& result() const { return result_; }

 private:
  struct Piece {
    std::vector<char32_t> chars;
    double score;
  };
  struct Edge {
    uint32_t start, end;
    int32_t piece;  // -1: the unknown character
  };
  // One thread's buffers for lattices.
  struct Scratch {
    std::vector<Edge> edges;
    std::vector<double> alpha, beta;
    std::vector<int32_t> back;
  };
  size_t word_count() const { return counts_.size(); }
  const char32_t* word(size_t w) const { return chars_.data() + starts_[w]; }
  size_t word_size(size_t w) const { return static_cast<size_t>(starts_[w + 1] - starts_[w]); }
  // Runs fn(begin, end, part) over [0, n) cut into threads_ parts.
  void run_parts(size_t n, const std::function<void(size_t, size_t, int)>& fn) const;

  void make_seeds(const UnigramOptions& o);
  void index_pieces();
  void edges_of(const char32_t* chars, size_t n, std::vector<Edge>* edges) const;
  double edge_score(const Edge& e) const { return e.piece < 0 ? unk_score_ : pieces_[e.piece].score; }
  double edge_prob(const Edge& e) const { return e.piece < 0 ? unk_prob_ : probs_[e.piece]; }
  // E-step over words [begin, end): adds expected counts (fixed point), returns sum count * log Z.
  double expect(size_t begin, size_t end, std::vector<int64_t>* counts) const;
  // The same for one word of n characters whose edges are in s->edges, in log space (for
  // lattices whose total would underflow a double).
  double expect_log(size_t n, double freq, Scratch* s, std::vector<int64_t>* counts) const;
  // Viterbi pass over words [begin, end): adds count per piece used.
  void viterbi_counts(size_t begin, size_t end, std::vector<double>* counts) const;
  // The best path (piece ids, -1 for the unknown edge) over chars, without the edge of piece
  // skip_whole spanning them all; false if it uses the unknown edge.
  bool viterbi(const char32_t* chars, size_t n, int32_t skip_whole, Scratch* s, std::vector<int32_t>* path,
               double* score) const;
  void em_step(const UnigramOptions& o, UnigramProgress* progress);
  void prune(const UnigramOptions& o, size_t desired);
  void finish(const UnigramOptions& o);

  PieceRules rules_;
  std::vector<char32_t> chars_;   // every word's code points, back to back
  std::vector<uint64_t> starts_;  // word w is chars_[starts_[w], starts_[w + 1])
  std::vector<int64_t> counts_;
  std::vector<uint16_t> ends_;    // per word: what followed it in its sentences (WordEnds)
  std::vector<std::pair<char32_t, int64_t>> alphabet_;
  std::vector<Piece> pieces_;
  std::vector<double> probs_;  // exp(score) per piece
  UnigramPieceIndex index_;    // the current pieces
  double unk_score_ = -100.0;
  double unk_prob_ = 0.0;
  int threads_ = 1;
  std::vector<std::pair<std::string, float>> result_;
};

}  // namespace tf::spm_train
