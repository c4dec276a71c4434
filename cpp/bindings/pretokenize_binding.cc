// tokenforge._native._split: the piece ends a native split scanner produces for a text
// (encode_with_unstable splits with it; the scanner tests compare it with the regex).
#include <nanobind/stl/pair.h>
#include <nanobind/stl/vector.h>

#include "bindings/common.h"
#include "pretokenize/piece_splitter.h"

namespace tf::py {

void bind_pretokenize(nb::module_& m) {
  m.def(
      "_split",
      [](int pattern, nb::bytes text) {
        if (pattern < 0 || pattern > kLastSplitPattern) value_error("unknown split pattern " + std::to_string(pattern));
        const uint8_t* s = reinterpret_cast<const uint8_t*>(text.c_str());
        const uint8_t* end = s + text.size();
        std::vector<size_t> ends;
        size_t in_bulk = 0;
        with_scanner(static_cast<SplitPattern>(pattern), [&](auto next_piece) {
          scan::PieceSplitter<decltype(next_piece)> pieces(static_cast<SplitPattern>(pattern), s, end, next_piece);
          while (!pieces.done()) ends.push_back(static_cast<size_t>(pieces.next() - s));
          in_bulk = pieces.split_in_bulk();
          return 0;
        });
        return std::make_pair(ends, in_bulk);
      },
      nb::arg("pattern"), nb::arg("text"),
      "(end offsets of the pieces of `text` (bytes) under a native scanner, how many the ASCII splitter found).");
}

}  // namespace tf::py
