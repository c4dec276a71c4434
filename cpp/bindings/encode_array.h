// Encoding.encode_to_numpy's native side (encode_array.cc): one text to a uint32 array.
#pragma once

#include <vector>

#include "bindings/common.h"
#include "pipeline/encoding.h"

namespace tf::py {

// The ids of `text` as a uint32 numpy array, or (None, the special's bytes) if it holds a
// special of `disallowed`.  With `cuts`, the parts between them are encoded on `threads`.
nb::object encode_to_array(const Encoding& e, nb::handle text, const SpecialMatcher& allowed,
                           const SpecialMatcher* disallowed, Py_ssize_t chunk_chars, const std::vector<size_t>& cuts,
                           int threads);

}  // namespace tf::py
