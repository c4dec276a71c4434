// CutClass: a set of code points that cuts the text before the split scanner runs.
//
// tokenizer.json files of the StarCoder kind put a step ahead of ByteLevel's regex that
// isolates characters of one class: Digits (each digit a piece, or runs of digits) or
// Punctuation (each mark a piece, or runs of them).  The regex then runs on each piece of
// that step on its own, so a stretch's end is the end of the regex's input (`\s+(?!\S)`
// matches up to it).  Encoding cuts each segment into the stretches this class gives
// (stretch_end) and splits each with its scanner.
//
// The set comes from tokenizers' own tables (tokenforge.normalizers.hf_unicode_tables), as
// inclusive code point ranges; membership is a bit per code point below U+10000 and a
// binary search above.  Immutable once built: shared by threads.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace tf {

class CutClass {
 public:
  using Range = std::pair<uint32_t, uint32_t>;  // first, last code point

  // runs: a run of the class's characters is one stretch; else each of them is.
  CutClass(std::vector<Range> ranges, bool runs);

  // The end of the stretch that starts at p (p < end; valid UTF-8): a run of characters
  // outside the set, or one character of it (with `runs`, a run of them).
  const uint8_t* stretch_end(const uint8_t* p, const uint8_t* end) const;

  // Whether cp is in the set (WhitespaceClasses asks it of its two).
  bool contains(uint32_t cp) const;

 private:
  uint64_t ascii_[2] = {0, 0};
  std::vector<uint64_t> bmp_;   // a bit per code point below U+10000
  std::vector<Range> astral_;   // sorted ranges above
  bool runs_;
};

}  // namespace tf
