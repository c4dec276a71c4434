// The native module `tokenforge._native`: one registration call per binding file.
#include <nanobind/nanobind.h>

#include <cstdlib>

#include "bindings/common.h"

namespace nb = nanobind;

namespace tf::py {

void bind_data(nb::module_& m);
void bind_encoding(nb::module_& m);
void bind_sentencepiece(nb::module_& m);
void bind_special_set(nb::module_& m);
void bind_piece_counter(nb::module_& m);
void bind_bpe_trainer(nb::module_& m);
void bind_pretokenize(nb::module_& m);
void bind_testing(nb::module_& m);
void bind_spm_train(nb::module_& m);
void bind_ubpe(nb::module_& m);
void bind_wordpiece(nb::module_& m);
void bind_hf_spm(nb::module_& m);
void bind_byte_level_lists(nb::module_& m);
void bind_byte_level_docs(nb::module_& m);
void bind_bpe_merges(nb::module_& m);
void bind_unicode_forms(nb::module_& m);

PyObject* make_cached_int(uint32_t v) {
  if (v >= kIntCacheSize) return PyLong_FromLong(static_cast<long>(v));
  PyObject* o = int_cache_slots[v];
  if (o == nullptr) {
    o = PyLong_FromLong(static_cast<long>(v));
    if (o == nullptr) return nullptr;
    int_cache_slots[v] = o;  // kept for the life of the process
  }
  Py_INCREF(o);
  return o;
}

std::vector<uint32_t> ids_from(nb::handle seq) {
  nb::object fast = nb::steal(PySequence_Fast(seq.ptr(), "token ids must be a sequence of ints"));
  if (!fast.is_valid()) throw nb::python_error();
  Py_ssize_t n = PySequence_Fast_GET_SIZE(fast.ptr());
  PyObject** items = PySequence_Fast_ITEMS(fast.ptr());
  std::vector<uint32_t> ids(static_cast<size_t>(n));
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* it = items[i];
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(it, &overflow);
    if (v == -1 && PyErr_Occurred()) throw nb::python_error();
    if (overflow != 0 || v < 0 || v >= 0xFFFFFFFFll) {
      nb::object repr = nb::steal(PyObject_Str(it));
      invalid_token(nb::borrow<nb::str>(repr).c_str());
    }
    ids[static_cast<size_t>(i)] = static_cast<uint32_t>(v);
  }
  return ids;
}

}  // namespace tf::py

NB_MODULE(_native, m) {
  m.doc() = "tokenforge's native core (C++); use the Python API in `tokenforge` instead.";
  // nanobind reports every instance still alive when its own state is torn down at exit as
  // "leaked", including objects that other modules' globals hold until after that (a test
  // module's encodings, Hypothesis' strategies, the registry's cache), which are no leaks:
  // the report depends on the order in which modules are cleared.  Real leaks are tested
  // where they can happen (tests/peer, a dropped encoding is freed; the sanitizer build).
  // TOKENFORGE_LEAK_WARNINGS=1 turns the report back on.
  const char* warn = std::getenv("TOKENFORGE_LEAK_WARNINGS");
  nb::set_leak_warnings(warn != nullptr && warn[0] == '1');
  tf::py::bind_special_set(m);
  tf::py::bind_encoding(m);
  tf::py::bind_sentencepiece(m);
  tf::py::bind_piece_counter(m);
  tf::py::bind_bpe_trainer(m);
  tf::py::bind_pretokenize(m);
  tf::py::bind_testing(m);
  tf::py::bind_spm_train(m);
  tf::py::bind_ubpe(m);
  tf::py::bind_wordpiece(m);
  tf::py::bind_data(m);
  tf::py::bind_hf_spm(m);
  tf::py::bind_byte_level_lists(m);
  tf::py::bind_byte_level_docs(m);
  tf::py::bind_bpe_merges(m);
  tf::py::bind_unicode_forms(m);
}
