// CutClassHandle: a CutClass as Python holds it (_native.CutClass), shared with the
// Encodings it is set on (Encoding.set_cut); WhitespaceClassesHandle likewise for
// _native.WhitespaceClasses, shared with the encoders that split with it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "bindings/common.h"
#include "pretokenize/cut_class.h"
#include "pretokenize/whitespace_classes.h"

namespace tf::py {

struct CutClassHandle {
  std::shared_ptr<const CutClass> cut;
};

struct WhitespaceClassesHandle {
  std::shared_ptr<const WhitespaceClasses> classes;
};

// Raises ValueError (naming `who`) unless every range is in order and within Unicode.
inline void check_ranges(const std::vector<CutClass::Range>& ranges, const char* who) {
  for (const auto& r : ranges) {
    if (r.first > r.second || r.second > 0x10FFFF) value_error(std::string(who) + ": a range out of order or past U+10FFFF");
  }
}

}  // namespace tf::py
