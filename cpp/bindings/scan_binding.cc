// Test hooks of the split scanners, as tokenforge._native._split / _ascii_split_level:
// the piece ends the encoder's splitter produces for a text, and the switch that forces
// the ASCII splitter's SSE path or the scalar scanner alone, so tests reach every path.
// And _trie_merge_level, the same switch for the trie merge's AVX2 build.
#include <nanobind/stl/pair.h>
#include <nanobind/stl/vector.h>

#include "bindings/common.h"
#include "models/byte_level/merge/trie_chunk_merge.h"
#include "pretokenize/piece_splitter.h"

namespace tf::py {

void bind_scan(nb::module_& m) {
  m.def(
      "_split",
      [](int pattern, nb::bytes text) {
        if (pattern < 0 || pattern > 3) value_error("unknown split pattern " + std::to_string(pattern));
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
  m.def(
      "_ascii_split_level",
      [](int level) {
        if (level < 0) return static_cast<int>(scan::ascii_split_level());
        return static_cast<int>(scan::set_ascii_split_level(static_cast<scan::SplitLevel>(level)));
      },
      nb::arg("level") = -1,
      "The ASCII splitter's level (0 off, 1 SSE, 2 AVX-512); with level >= 0 sets it (clamped to what the CPU "
      "runs) and returns the previous one.");
  m.def(
      "_trie_merge_level",
      [](int level) { return level < 0 ? byte_level::trie_merge_level() : byte_level::set_trie_merge_level(level); },
      nb::arg("level") = -1,
      "The trie merge's build (0 baseline, 1 AVX2 and BMI2); with level >= 0 sets it (clamped to what the CPU "
      "runs) and returns the previous one.");
}

}  // namespace tf::py
