// encode_one_text: one long str in parts on several threads (one_text.cc).
#pragma once

#include <vector>

#include "bindings/common.h"
#include "pipeline/encoding.h"

namespace tf::py {

enum class OneTextOutput { kList, kCount, kArray };

// The ids of `text` as one list, their number as an int, or a uint32 numpy array: the
// parts between `cuts` (increasing character offsets where the parts' ids are the
// whole's) are encoded on up to `threads` threads; specials of `allowed` are encoded as
// such (nullptr: none).  kArray only: if the text holds a special of `disallowed` (may be
// nullptr), (None, the first one's bytes) instead.  Raises ValueError on text the
// vocabulary cannot encode.
nb::object encode_one_text(const Encoding& enc, nb::handle text, const std::vector<size_t>& cuts,
                           const SpecialMatcher* allowed, const SpecialMatcher* disallowed, int threads,
                           OneTextOutput out);

}  // namespace tf::py
