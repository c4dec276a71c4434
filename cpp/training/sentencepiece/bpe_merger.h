// BpeMerger: sentencepiece's BPE training loop (bpe_model_trainer.cc), piece for piece.
//
// Words are code-point sequences with counts.  Every adjacent pair of symbols that
// PieceRules accepts becomes a candidate whose frequency is the summed count of the words
// it occurs in, overlapping occurrences included ("aaa" holds "aa" twice).  Each step
// takes the candidate with the highest frequency, ties to fewer characters, then to the
// smaller UTF-8 string; a candidate whose string was learned already (reached by another
// path, "aa"+"a" vs "a"+"aa") is dropped without merging.  Merging rewrites the word left
// to right and recounts only the neighbours of the merged positions.
//
// Bookkeeping: the words' symbols lie back to back in one array (a merged-away position
// holds -1), so a position is one 32-bit index.  Per candidate: its exact frequency,
// updated as merges make and break its occurrences, and the positions of the left symbol
// of each occurrence made, checked lazily (an occurrence whose symbols changed is skipped
// when merging: a position's symbol only ever changes to a newer one, so a left symbol
// still in place still has the same right neighbour); an indexed max-heap of the
// candidates with a frequency, each updated in place when its frequency changes (the
// ranking is a total order, so the heap's top is the one sentencepiece takes).  The merge
// loop is bound by memory latency, so the hot data is kept compact: heap entries carry the
// piece length, heap positions live apart from the symbols, the pair table keeps keys and
// values side by side, a small per-merge cache answers repeated pair lookups (a merge's
// neighbours repeat), and the symbols at the merged positions are prefetched.
// O(total positions touched * log heap) over the whole training; memory: 4 bytes per
// character of the distinct words plus 4 per occurrence made, and the candidates.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "training/sentencepiece/bpe_storage.h"
#include "training/sentencepiece/piece_rules.h"

namespace tf::spm_train {

class BpeMerger {
 public:
  explicit BpeMerger(const PieceRules& rules) : rules_(rules) {}

  // Room for `words` words of `chars` code points in total (saves regrowing).
  void reserve(size_t words, size_t chars);
  // Adds a word (code points; kUnknownMark for characters outside the alphabet); false
  // (nothing added) once the words would hold 2^32 - 1 code points or more.
  bool add_word(const char32_t* chars, size_t n, int64_t count);
  // Learns up to `pieces` pieces (fewer if candidates run out); `done` counts them.
  void train(size_t pieces, std::atomic<uint32_t>* done);
  // The learned pieces in order, as UTF-8.
  const std::vector<std::string>& pieces() const { return learned_; }
  size_t num_words() const { return counts_.size(); }

 private:
  struct Symbol {
    int64_t freq = 0;
    int32_t left = -1, right = -1;  // the pair it was made of (-1, -1 for a character)
    uint32_t chars_begin = 0;       // in chars_
    uint16_t chars_size = 0;        // pieces are at most 512 characters
    bool unknown = false, active = true, pending = false;
    BpePositions positions;  // in syms_: the left symbol of an occurrence
  };

  int32_t char_symbol(char32_t c);
  int32_t pair_symbol(int32_t left, int32_t right);  // -1 if not a valid piece
  int32_t find_pair_symbol(int32_t left, int32_t right);  // pair_symbol without the memo
  void add_pair(uint32_t word, uint32_t left, uint32_t right);
  void remove_pair(uint32_t word, uint32_t left, uint32_t right, int32_t best);
  void accept(int32_t best);
  void index_word_starts();  // fills word_starts_ once the words are in
  size_t word_of(uint32_t pos) const;  // the word holding syms_[pos]
  uint32_t next_index(uint32_t i, uint32_t end) const;    // the next live position before end, or kNone
  uint32_t prev_index(uint32_t i, uint32_t begin) const;  // the previous live position from begin, or kNone
  struct HeapEntry {
    int64_t freq;  // the symbol's frequency when last placed: changes reach the heap one at a time
    int32_t symbol;
    uint16_t chars_size;  // the symbol's, kept here so most comparisons need not look it up
  };
  void touch(int32_t id);  // queues the symbol's heap update (after the merge)
  bool ranks_below(const HeapEntry& a, const HeapEntry& b) const;
  void heap_place(size_t i, const HeapEntry& e);
  void sift_up(size_t i);
  void sift_down(size_t i);
  void heap_update(int32_t id);  // puts, moves or removes id after its frequency changed
  void heap_remove(int32_t id);
  std::string to_utf8(const Symbol& s) const;
  int compare_chars(const Symbol& a, const Symbol& b) const;

  PieceRules rules_;
  BpeChunks<Symbol> symbols_;
  std::vector<char32_t> chars_;  // all symbols' code points
  static constexpr char32_t kDirectChars = 0x10000;
  std::vector<int32_t> direct_ids_;                 // BMP code point -> symbol, -1 if none yet
  std::unordered_map<char32_t, int32_t> char_ids_;  // the other code points
  PairIdTable pair_ids_;  // (left, right) -> symbol (-1: not a valid piece); an inactive one is replaced
  int32_t unknown_id_ = -2;  // the unknown mark's symbol, once made
  static constexpr uint32_t kNone = 0xFFFFFFFFu;
  std::vector<int32_t> syms_;        // every word's symbols, -1 once merged away
  std::vector<uint32_t> starts_{0};  // word w is syms_[starts_[w], starts_[w + 1])
  std::vector<int64_t> counts_;
  struct WordStarts {
    uint64_t bits = 0;  // bit i: a word starts at position 64 * index + i
    uint32_t rank = 0;  // the words starting before this entry's positions
  };
  std::vector<WordStarts> word_starts_;  // position -> word in one read (a rank over the word starts)
  struct MemoEntry {
    uint64_t key = ~uint64_t{0};
    uint32_t generation = 0;
    int32_t id = -1;
  };
  static constexpr unsigned kMemoBits = 11;
  std::vector<MemoEntry> memo_ = std::vector<MemoEntry>(size_t{1} << kMemoBits);  // pair_symbol's recent answers
  uint32_t generation_ = 1;  // changes whenever a pair's answer may change
  std::vector<HeapEntry> heap_;  // the best first
  std::vector<int32_t> heap_pos_;  // symbol -> its index in heap_, or -1 (apart from the symbols: compact)
  std::vector<int32_t> pending_;
  std::vector<std::string> learned_;
  std::vector<char32_t> scratch_;
  std::vector<uint32_t> taken_;
};

}  // namespace tf::spm_train
