// WhitespaceClasses: `tokenizers`' Whitespace pre-tokenizer (`\w+|[^\w\s]+` over the Rust regex
// crate's classes) as the kind of each character: whitespace (dropped), a word character, or
// another; a run of one kind is a piece.  The classes come from tokenforge's own tables
// (tokenforge.normalizers.hf_unicode_tables), as inclusive code point ranges.  Immutable once
// built: shared by the encoders that split with it (pipeline/bert_encoder.h,
// pipeline/hf_spm_encoder.h) and their threads.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "pretokenize/cut_class.h"

namespace tf {

class WhitespaceClasses {
 public:
  static constexpr int kBlank = 0, kWordChar = 1, kOther = 2;  // kind()'s values

  WhitespaceClasses(std::vector<CutClass::Range> word, std::vector<CutClass::Range> space)
      : word_(std::move(word), false), space_(std::move(space), false) {}

  int kind(uint32_t cp) const { return space_.contains(cp) ? kBlank : word_.contains(cp) ? kWordChar : kOther; }

 private:
  CutClass word_, space_;
};

}  // namespace tf
