// Binding of tf::SpecialMatcher as tokenforge._native.SpecialSet: the special tokens of an
// encoding, found in text with the GIL released.
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <string>
#include <utility>
#include <vector>

#include "bindings/common.h"
#include "pipeline/special_matcher.h"

namespace tf::py {

void bind_special_set(nb::module_& m) {
  using Pairs = std::vector<std::pair<std::string, uint32_t>>;
  nb::class_<SpecialMatcher>(m, "SpecialSet", "A set of special tokens to match in text (bytes -> id).")
      .def(nb::init<Pairs>(), nb::arg("specials"))
      .def("find", [](const SpecialMatcher& s, nb::handle text) -> nb::object {
        // The UTF-8 that CPython caches on the str, which encode() then reuses.
        const std::string_view v = utf8(text);
        SpecialMatcher::Match mt;
        {
          nb::gil_scoped_release release;
          mt = s.find(reinterpret_cast<const uint8_t*>(v.data()), v.size(), 0);
        }
        if (mt.found) return nb::make_tuple(mt.id, to_bytes(v.substr(mt.pos, mt.len)));
        return nb::none();
      }, nb::arg("text"), "The first special in text as (id, bytes), or None.");
}

}  // namespace tf::py
