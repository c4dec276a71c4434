// The native module `tokenforge._native`: one registration call per binding file.
#include <nanobind/nanobind.h>

#include "bindings/common.h"

namespace nb = nanobind;

namespace tf::py {

void bind_encoding(nb::module_& m);
void bind_sentencepiece(nb::module_& m);
void bind_training(nb::module_& m);

PyObject* cached_int(uint32_t v) {
  static PyObject** cache = new PyObject*[kIntCacheSize]();  // never freed: lives as long as the process
  if (v >= kIntCacheSize) return PyLong_FromLong(static_cast<long>(v));
  PyObject* o = cache[v];
  if (o == nullptr) {
    o = PyLong_FromLong(static_cast<long>(v));
    if (o == nullptr) return nullptr;
    cache[v] = o;
  }
  Py_INCREF(o);
  return o;
}

void to_utf8(const StrView& v, std::string* out) {
  out->clear();
  out->reserve(v.length * (v.kind == PyUnicode_1BYTE_KIND ? 2 : 3));
  auto at = [&](size_t i) -> uint32_t { return PyUnicode_READ(v.kind, v.data, i); };
  for (size_t i = 0; i < v.length; ++i) {
    uint32_t c = at(i);
    if (c >= 0xD800 && c < 0xE000) {
      if (c < 0xDC00 && i + 1 < v.length && at(i + 1) >= 0xDC00 && at(i + 1) < 0xE000) {
        c = 0x10000 + ((c - 0xD800) << 10) + (at(i + 1) - 0xDC00);
        ++i;
      } else {
        c = 0xFFFD;
      }
    }
    if (c < 0x80) {
      out->push_back(static_cast<char>(c));
    } else if (c < 0x800) {
      out->push_back(static_cast<char>(0xC0 | (c >> 6)));
      out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
    } else if (c < 0x10000) {
      out->push_back(static_cast<char>(0xE0 | (c >> 12)));
      out->push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
    } else {
      out->push_back(static_cast<char>(0xF0 | (c >> 18)));
      out->push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
    }
  }
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
      std::string msg = "Invalid token for decoding: " + std::string(nb::borrow<nb::str>(repr).c_str());
      PyErr_SetObject(PyExc_KeyError, nb::str(msg.c_str()).ptr());
      throw nb::python_error();
    }
    ids[static_cast<size_t>(i)] = static_cast<uint32_t>(v);
  }
  return ids;
}

}  // namespace tf::py

NB_MODULE(_native, m) {
  m.doc() = "tokenforge's native core (C++); use the Python API in `tokenforge` instead.";
  tf::py::bind_encoding(m);
  tf::py::bind_sentencepiece(m);
  tf::py::bind_training(m);
}
