// WordTable: the training front end's word counts, word (bytes) -> count, compactly, with
// two bits per word saying what followed it in its sentences (kEndsSentence, kBeforeWord).
//
// The words' bytes lie back to back in one buffer (with their start offsets and counts in
// two arrays) and an open-addressing table of (32-bit hash, word index) finds them, so a
// word costs its bytes plus about 30 bytes, against about 100 for a std::unordered_map of
// std::string (a node, a heap string past 15 bytes, a bucket).  Words are visited in the
// order they were first added, which does not depend on the hash or the table's size.
// Linear probing over a power-of-two table at most 3/4 full; no erase (clear() frees all).
// Not thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tf::spm_train {

// What follows a word, OR-ed over its occurrences (the Unigram seeds' suffix-tree test needs
// it: spm_train builds its suffix array over whole sentences).  0: not recorded.
constexpr uint8_t kEndsSentence = 1;  // some occurrence is the last word of its sentence
constexpr uint8_t kBeforeWord = 2;    // some occurrence is followed by another word

class WordTable {
 public:
  // Adds `freq` to the count of `word` and ORs `ends` into its bits.
  void add(std::string_view word, int64_t freq, uint8_t ends = 0);
  size_t size() const { return counts_.size(); }
  std::string_view word(size_t i) const {
    return std::string_view(bytes_).substr(starts_[i], starts_[i + 1] - starts_[i]);
  }
  int64_t count(size_t i) const { return counts_[i]; }
  uint8_t ends(size_t i) const { return ends_[i]; }
  // Calls f(word, count) for every word, in the order they were first added.
  template <typename F>
  void for_each(F&& f) const {
    for (size_t i = 0; i < counts_.size(); ++i) f(word(i), counts_[i]);
  }
  // Frees everything.
  void clear();

 private:
  void grow();

  std::string bytes_;                 // every word's bytes, back to back
  std::vector<uint64_t> starts_{0};   // word i is bytes_[starts_[i], starts_[i + 1])
  std::vector<int64_t> counts_;
  std::vector<uint8_t> ends_;
  std::vector<uint64_t> slots_;       // hash << 32 | (index + 1); 0 is empty
  size_t mask_ = 0;
};

}  // namespace tf::spm_train
