// tokenforge._native._testing: hooks for the tests, not an API.  `ascii_split_level` and
// `trie_merge_level` force the ASCII splitter's SSE path or the scalar scanner, and the
// trie merge's baseline or AVX2 build, so tests reach every path; the constants are the
// thresholds the long-piece tests must cross; `set_hf_text_limit` lowers the 32-bit offset
// limit of the tokenizer.json encoders (common/offset_limit.h); `grapheme_starts` shows
// common/unicode/grapheme.h's segmentation.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <string>
#include <vector>

#include "bindings/common.h"
#include "common/offset_limit.h"
#include "common/unicode/grapheme.h"
#include "common/unicode/unicode.h"
#include "models/byte_level/merge/long_piece_tables.h"
#include "models/byte_level/merge/trie_chunk_merge.h"
#include "pretokenize/ascii_splitter.h"

namespace tf::py {

void bind_testing(nb::module_& parent) {
  nb::module_ m = parent.def_submodule("_testing", "Test hooks of the native core (not an API).");
  m.attr("LONG_TABLES_BUILD_AFTER") = byte_level::LongPieceTables::kBuildAfter;
  m.attr("RUNS_BEFORE_BACKTRACK") = byte_level::LongPieceTables::kRunsBeforeBacktrack;
  m.def(
      "ascii_split_level",
      [](int level) {
        if (level < 0) return static_cast<int>(scan::ascii_split_level());
        return static_cast<int>(scan::set_ascii_split_level(static_cast<scan::SplitLevel>(level)));
      },
      nb::arg("level") = -1,
      "The ASCII splitter's level (0 off, 1 SSE, 2 AVX-512); with level >= 0 sets it (clamped to what the CPU "
      "runs) and returns the previous one.");
  m.def(
      "trie_merge_level",
      [](int level) { return level < 0 ? byte_level::trie_merge_level() : byte_level::set_trie_merge_level(level); },
      nb::arg("level") = -1,
      "The trie merge's build (0 baseline, 1 AVX2 and BMI2); with level >= 0 sets it (clamped to what the CPU "
      "runs) and returns the previous one.");
  m.attr("MAX_OFFSET_BYTES") = kMaxOffsetBytes;
  m.def("set_hf_text_limit", &set_hf_text_limit, nb::arg("bytes"),
        "Lowers the bytes a text, a normalized stretch or word, or a word count may reach in the tokenizer.json "
        "encoders (SpmStyleEncoder, BertEncoder) below MAX_OFFSET_BYTES, so tests reach their refusals; 0 "
        "restores it.  Returns the previous limit.");
  m.def(
      "grapheme_starts",
      [](const std::string& text) {
        // The character index at which each grapheme starts.
        std::vector<uint32_t> starts;
        const uint8_t* p = reinterpret_cast<const uint8_t*>(text.data());
        const uint8_t* end = p + text.size();
        GraphemeRun run(kGraphemeOther);
        for (uint32_t i = 0; p < end; ++i) {
          int len = 1;
          const GraphemeClass c = grapheme_class(*p < 0x80 ? *p : decode_utf8(p, end, &len));
          if (i == 0 || !run.joins(c)) {
            starts.push_back(i);
            run = GraphemeRun(c);
          }
          p += len;
        }
        return starts;
      },
      nb::arg("text"), "The index of the first character of each grapheme of text (UAX #29, grapheme.h's rules).");
}

}  // namespace tf::py
