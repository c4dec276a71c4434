// BertCharTable: BertNormalizer and BertPreTokenizer as one lookup per code point.
//
// Python builds the table (src/tokenforge/tokenizer/bert_chars.py, from unicodedata, the
// same data as the readable pipeline): a flag byte per code point and, for the characters
// the normalizer changes, their output.  Normalizing is then one lookup per character,
// each output character keeping its source character as its alignment; kReorder marks the
// characters where NFD's reordering would make `tokenizers` align differently.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tf::wordpiece {

// Flag bits, as bert_chars.py writes them.
enum BertFlag : uint8_t {
  kMapped = 1,    // the normalizer changes it: output in the map
  kReorder = 2,   // NFD may move a character it keeps: alignment by position (caller falls back)
  kSpace = 8,     // White_Space (the pre-tokenizer drops it)
  kPunct = 16,    // punctuation (the pre-tokenizer isolates it)
  kDropped = 32,  // clean_text removes it
  kCjk = 64,      // a CJK ideograph the normalizer only spaces out: ' ', itself, ' '
};

class BertCharTable {
 public:
  static constexpr uint32_t kLimit = 0x110000;

  // flags: kLimit bytes; mapped: code point -> its output code points; nfd: whether the
  // normalizer runs NFD (strip_accents), which makes kReorder matter.
  BertCharTable(std::string flags, const std::vector<std::pair<uint32_t, std::vector<uint32_t>>>& mapped, bool nfd);

  uint8_t flags(uint32_t cp) const { return cp < kLimit ? static_cast<uint8_t>(flags_[cp]) : 0; }
  bool nfd() const { return nfd_; }
  // The output of a kMapped code point: [first, first + count) of out().
  std::pair<uint32_t, uint32_t> mapping(uint32_t cp) const;
  const uint32_t* out() const { return out_.data(); }
  // ASCII: its single output (0 when dropped or when it maps to more than one character).
  uint8_t ascii_out(uint8_t c) const { return ascii_out_[c]; }

 private:
  std::string flags_;
  std::unordered_map<uint32_t, std::pair<uint32_t, uint32_t>> index_;
  std::vector<uint32_t> out_;
  uint8_t ascii_out_[128] = {};
  bool nfd_;
};

}  // namespace tf::wordpiece
