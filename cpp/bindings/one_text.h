// encode_one_text: one long str in parts on several threads (one_text.cc).
#pragma once

#include <vector>

#include "bindings/common.h"
#include "pipeline/encoding.h"

namespace tf::py {

// The ids of `text` as one list (or, with count_only, their number as an int): the parts
// between `cuts` (increasing character offsets where the parts' ids are the whole's) are
// encoded on up to `threads` threads; specials of `allowed` are encoded as such (nullptr:
// none; count_only needs it).  Raises ValueError on text the vocabulary cannot encode.
nb::object encode_one_text(const Encoding& enc, nb::handle text, const std::vector<size_t>& cuts,
                           const SpecialMatcher* allowed, int threads, bool count_only);

}  // namespace tf::py
