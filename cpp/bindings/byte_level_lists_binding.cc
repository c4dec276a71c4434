// tokenforge._native._byte_level_lists: the Python lists of ids, tokens and character offsets of
// byte-level ids (tokenizer/native.py's Encodings), in one pass over the ids and the text.
// A token's offsets run from the character holding its first byte to the one after the
// character holding its last byte, as tokenizers reports them.  Building the tuples here
// spares numpy's intermediate arrays and lists.  Ids, tokens and offsets below the vocabulary
// size are the caller's objects (`numbers`, `tokens`: a tuple each, indexed by id; tuples of
// ints and strs leave the garbage collector's lists), so a token costs one new tuple.
#include <nanobind/ndarray.h>

#include <algorithm>
#include <string>
#include <vector>

#include "bindings/common.h"
#include "bindings/doc_lists.h"

namespace tf::py {

namespace {

using Ids = nb::ndarray<const int64_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

nb::tuple lists_of(const int64_t* id, size_t n, Ids lens, nb::tuple numbers, nb::tuple tokens, nb::bytes text) {
  const int64_t* len = lens.data();
  const int64_t vocab = static_cast<int64_t>(lens.shape(0));
  const int64_t known = static_cast<int64_t>(std::min(PyTuple_GET_SIZE(tokens.ptr()), PyTuple_GET_SIZE(numbers.ptr())));
  const uint8_t* data = reinterpret_cast<const uint8_t*>(text.c_str());
  const size_t size = text.size();
  size_t total = 0;
  for (size_t i = 0; i < n; ++i) {
    if (id[i] < 0 || id[i] >= vocab || id[i] >= known || len[id[i]] <= 0) {
      value_error("id " + std::to_string(id[i]) + " has no token of known length");
    }
    total += static_cast<size_t>(len[id[i]]);
  }
  if (total != size) value_error("the tokens hold " + std::to_string(total) + " bytes, the text " + std::to_string(size));
  nb::object id_list = nb::steal(PyList_New(static_cast<Py_ssize_t>(n)));
  nb::object toks = nb::steal(PyList_New(static_cast<Py_ssize_t>(n)));
  nb::object offs = nb::steal(PyList_New(static_cast<Py_ssize_t>(n)));
  if (!id_list.is_valid() || !toks.is_valid() || !offs.is_valid()) throw nb::python_error();
  size_t pos = 0;
  long chars = 0;           // characters begun in [0, pos)
  const long shared = static_cast<long>(PyTuple_GET_SIZE(numbers.ptr()));
  auto number_of = [&](long v) -> PyObject* {  // a new reference, or nullptr with an error set
    if (v < shared) {
      PyObject* o = PyTuple_GET_ITEM(numbers.ptr(), v);
      Py_INCREF(o);
      return o;
    }
    return PyLong_FromLong(v);
  };
  for (size_t i = 0; i < n; ++i) {
    long start = chars - ((data[pos] & 0xC0) == 0x80 ? 1 : 0);
    if (start < 0) start = 0;
    const size_t stop = pos + static_cast<size_t>(len[id[i]]);
    for (; pos < stop; ++pos) chars += (data[pos] & 0xC0) != 0x80;
    PyObject* a = number_of(start);
    // Untracked (as CPython's collector would leave it): never traversed by a garbage
    // collection that these allocations trigger.
    PyObject* pair = steal_pair(a, a != nullptr ? number_of(chars) : nullptr);
    if (pair == nullptr) throw nb::python_error();
    PyList_SET_ITEM(offs.ptr(), static_cast<Py_ssize_t>(i), pair);
    PyList_SET_ITEM(id_list.ptr(), static_cast<Py_ssize_t>(i), number_of(id[i]));
    PyObject* token = PyTuple_GET_ITEM(tokens.ptr(), static_cast<Py_ssize_t>(id[i]));
    Py_INCREF(token);
    PyList_SET_ITEM(toks.ptr(), static_cast<Py_ssize_t>(i), token);
  }
  return nb::make_tuple(id_list, toks, offs);
}

nb::tuple from_array(Ids ids, Ids lens, nb::tuple numbers, nb::tuple tokens, nb::bytes text) {
  return lists_of(ids.data(), ids.shape(0), lens, numbers, tokens, text);
}

// The ids of the native batch come as a list of ints, read here instead of through numpy
// (a new ids list is still built: the Encoding's own, which the caller's may not alias).
nb::tuple from_list(nb::list ids, Ids lens, nb::tuple numbers, nb::tuple tokens, nb::bytes text) {
  const size_t n = static_cast<size_t>(PyList_GET_SIZE(ids.ptr()));
  std::vector<int64_t> values(n);
  for (size_t i = 0; i < n; ++i) {
    values[i] = PyLong_AsLongLong(PyList_GET_ITEM(ids.ptr(), static_cast<Py_ssize_t>(i)));
    if (values[i] == -1 && PyErr_Occurred()) throw nb::python_error();
  }
  return lists_of(values.data(), n, lens, numbers, tokens, text);
}

}  // namespace

void bind_byte_level_lists(nb::module_& m) {
  m.def("_byte_level_lists", &from_list, nb::arg("ids"), nb::arg("lens"), nb::arg("numbers"), nb::arg("tokens"),
        nb::arg("text"));
  m.def("_byte_level_lists", &from_array, nb::arg("ids"), nb::arg("lens"), nb::arg("numbers"), nb::arg("tokens"),
        nb::arg("text"),
        "(ids, tokens, character offsets) as lists, of byte-level `ids` (a list, or an int64 array) over the UTF-8 `text`, given "
        "each id's byte length `lens` (int64), int object `numbers` and token string `tokens`.\n\nRaises:\n    ValueError: an id without a "
        "token, or token lengths that do not add up to the text's.");
}

}  // namespace tf::py
