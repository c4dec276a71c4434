// Binding of tf::train::PieceCounter as tokenforge._native.PieceCounter.  Converts arguments with the GIL held and releases it around all counting,
// so a Python thread can poll the progress counters meanwhile.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <atomic>

#include "bindings/common.h"
#include "training/byte_level/piece_counter.h"

namespace tf::py {

using namespace tf::train;  // this file binds that area

namespace {

[[noreturn]] void os_error(const std::string& msg) {
  PyErr_SetString(PyExc_OSError, msg.c_str());
  throw nb::python_error();
}

}  // namespace

void bind_piece_counter(nb::module_& m) {
  nb::class_<PieceCounter>(m, "PieceCounter")
      .def("__init__",
           [](PieceCounter* self, int pattern, int threads, uint64_t block_bytes) {
             if (pattern < 0 || pattern > kLastSplitPattern) value_error("unknown split pattern id " + std::to_string(pattern));
             new (self) PieceCounter(static_cast<SplitPattern>(pattern), threads, block_bytes);
           },
           nb::arg("pattern"), nb::arg("threads"), nb::arg("block_bytes") = uint64_t{4} << 20)
      .def("add_files",
           [](PieceCounter& c, const std::vector<std::string>& paths, bool replace_invalid, bool by_line) {
             std::string error;
             bool ok, is_os = false;
             {
               nb::gil_scoped_release release;
               ok = c.add_files(paths, replace_invalid, by_line, &error, &is_os);
             }
             if (!ok) {
               if (is_os) os_error(error);
               value_error(error);
             }
           },
           nb::arg("paths"), nb::arg("replace_invalid"), nb::arg("by_line") = false)
      .def("set_specials", &PieceCounter::set_specials, nb::arg("specials"),
           "Special tokens: they cut the text and are not counted.  Set before adding input.")
      .def("add_texts",
           [](PieceCounter& c, nb::list texts) {
             nb::tuple items = snapshot(texts);
             std::vector<std::string_view> views = utf8_views(items);
             nb::gil_scoped_release release;
             c.add_texts(views);
           },
           nb::arg("texts"))
      .def("add_pieces",
           [](PieceCounter& c, nb::list pieces) {
             nb::tuple items = snapshot(pieces);
             std::vector<std::string_view> views = utf8_views(items);
             nb::gil_scoped_release release;
             c.add_pieces(views);
           },
           nb::arg("pieces"))
      .def_prop_ro("bytes_done", &PieceCounter::bytes_done)
      .def("counts",
           [](PieceCounter& c) {
             nb::dict out;
             c.merged().for_each([&](const uint8_t* p, size_t n, uint64_t count) {
               out[to_bytes(std::string_view(reinterpret_cast<const char*>(p), n))] = count;
             });
             return out;
           },
           "All pieces counted so far as a dict bytes -> count (for tests and small inputs).");
}

}  // namespace tf::py
