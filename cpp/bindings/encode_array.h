// Encoding.encode_to_numpy's native side (encode_array.cc): one text to a uint32 array.
#pragma once

#include <string>
#include <vector>

#include "bindings/common.h"
#include "pipeline/encoding.h"

namespace tf::py {

// The ids of `text` as a uint32 numpy array, or (None, the special's bytes) if it holds a
// special of `disallowed`.  With `cuts`, the parts between them are encoded on `threads`
// (encode_one_text, one_text.h; chunk_chars is then not used).
nb::object encode_to_array(const Encoding& e, nb::handle text, const SpecialMatcher& allowed,
                           const SpecialMatcher* disallowed, Py_ssize_t chunk_chars, const std::vector<size_t>& cuts,
                           int threads);

// A special of `disallowed` that starts before code unit `cut` of `sv` and ends after it, or "".
std::string special_across(const StrView& sv, size_t cut, const SpecialMatcher& disallowed);

// A numpy array that owns `data` (malloc'd; freed with it) of n ids.
nb::object uint32_array(uint32_t* data, size_t n);

}  // namespace tf::py
