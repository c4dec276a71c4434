// tokenforge._native._split: the piece ends a native split scanner produces for a text
// (encode_with_unstable splits with it; the scanner tests compare it with the regex), and
// _native.CutClass, the class that cuts a text before the scanner splits it (cut_class.h), and
// _native.WhitespaceClasses, the Whitespace pre-tokenizer's (whitespace_classes.h).
#include <nanobind/stl/pair.h>
#include <nanobind/stl/vector.h>

#include "bindings/common.h"
#include "bindings/cut_class_handle.h"
#include "pretokenize/piece_splitter.h"

namespace tf::py {

void bind_pretokenize(nb::module_& m) {
  nb::class_<CutClassHandle>(m, "CutClass", "Code points that cut a text before the split scanner (cut_class.h).")
      .def(
          "__init__",
          [](CutClassHandle* self, const std::vector<std::pair<uint32_t, uint32_t>>& ranges, bool runs) {
            check_ranges(ranges, "CutClass");
            new (self) CutClassHandle{std::make_shared<const CutClass>(ranges, runs)};
          },
          nb::arg("ranges"), nb::arg("runs"),
          "Inclusive (first, last) code point ranges; with `runs`, a run of them is one stretch, else each is.");
  nb::class_<WhitespaceClassesHandle>(m, "WhitespaceClasses",
                                      "The Whitespace pre-tokenizer's word and space classes (whitespace_classes.h).")
      .def(
          "__init__",
          [](WhitespaceClassesHandle* self, const std::vector<std::pair<uint32_t, uint32_t>>& word,
             const std::vector<std::pair<uint32_t, uint32_t>>& space) {
            check_ranges(word, "WhitespaceClasses");
            check_ranges(space, "WhitespaceClasses");
            new (self) WhitespaceClassesHandle{std::make_shared<const WhitespaceClasses>(word, space)};
          },
          nb::arg("word"), nb::arg("space"), "Inclusive (first, last) code point ranges of `\\w` and of `\\s`.");
  m.def(
      "_split",
      [](int pattern, nb::bytes text, const CutClassHandle* cut) {
        if (pattern < 0 || pattern > kLastSplitPattern) value_error("unknown split pattern " + std::to_string(pattern));
        const uint8_t* s = reinterpret_cast<const uint8_t*>(text.c_str());
        const uint8_t* end = s + text.size();
        std::vector<size_t> ends;
        size_t in_bulk = 0;
        with_scanner(static_cast<SplitPattern>(pattern), [&](auto next_piece) {
          for (const uint8_t* p = s; p < end;) {
            const uint8_t* q = cut != nullptr ? cut->cut->stretch_end(p, end) : end;
            scan::PieceSplitter<decltype(next_piece)> pieces(static_cast<SplitPattern>(pattern), p, q, next_piece);
            while (!pieces.done()) ends.push_back(static_cast<size_t>(pieces.next() - s));
            in_bulk += pieces.split_in_bulk();
            p = q;
          }
          return 0;
        });
        return std::make_pair(ends, in_bulk);
      },
      nb::arg("pattern"), nb::arg("text"), nb::arg("cut").none() = nb::none(),
      "(end offsets of the pieces of `text` (bytes) under a native scanner, how many the ASCII splitter found); "
      "with `cut`, each stretch of that CutClass split on its own.");
}

}  // namespace tf::py
