// WordTable: the training front end's word counts, word (bytes) -> count, compactly, with
// what followed each word in its sentences (WordEnds).
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

// What follows a word, over its occurrences (the Unigram seeds' suffix-tree test needs it:
// spm_train builds its suffix array over the bytes of whole sentences): flags, and in the
// low byte the first byte of a word that followed it.  0: not recorded.
using WordEnds = uint16_t;
constexpr WordEnds kEndsSentence = 0x100;  // some occurrence is the last word of its sentence
constexpr WordEnds kBeforeWord = 0x200;    // some occurrence is followed by a word (low byte: its first byte)
constexpr WordEnds kSeveralNext = 0x400;   // the following words start with different bytes

// The ends of a word seen with ends a and with ends b.
inline WordEnds merge_ends(WordEnds a, WordEnds b) {
  WordEnds r = (a | b) & (kEndsSentence | kBeforeWord | kSeveralNext);
  if ((a & kBeforeWord) && (b & kBeforeWord) && (a & 0xFF) != (b & 0xFF)) r |= kSeveralNext;
  return r | (((a & kBeforeWord) ? a : b) & 0xFF);
}

class WordTable {
 public:
  // Adds `freq` to the count of `word` and merges `ends` into its ends.
  void add(std::string_view word, int64_t freq, WordEnds ends = 0);
  size_t size() const { return counts_.size(); }
  std::string_view word(size_t i) const {
    return std::string_view(bytes_).substr(starts_[i], starts_[i + 1] - starts_[i]);
  }
  int64_t count(size_t i) const { return counts_[i]; }
  WordEnds ends(size_t i) const { return ends_[i]; }
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
  std::vector<WordEnds> ends_;
  std::vector<uint64_t> slots_;       // hash << 32 | (index + 1); 0 is empty
  size_t mask_ = 0;
};

}  // namespace tf::spm_train
