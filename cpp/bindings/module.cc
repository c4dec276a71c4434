// The native module `tokenforge._native`: one registration call per binding file.
#include <nanobind/nanobind.h>

#include <cstring>

#include "bindings/common.h"

namespace nb = nanobind;

namespace tf::py {

void bind_encoding(nb::module_& m);
void bind_scan(nb::module_& m);
void bind_sentencepiece(nb::module_& m);
void bind_training(nb::module_& m);

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

namespace {

// UTF-8 of n code units of one width.  Runs of ASCII are copied a word at a time (most
// text is mostly ASCII); a batch converts every non-ASCII document this way, so the per-
// character switch on the str's kind that PyUnicode_READ makes was a tenth of a batch.
template <typename Char>
void append_utf8(const Char* s, size_t n, std::string* out) {
  constexpr size_t kMaxPerUnit = sizeof(Char) == 1 ? 2 : sizeof(Char) == 2 ? 3 : 4;
  constexpr size_t kWord = 8 / sizeof(Char);  // code units per 64-bit load
  constexpr uint64_t kHigh = sizeof(Char) == 1   ? 0x8080808080808080ull
                             : sizeof(Char) == 2 ? 0xFF80FF80FF80FF80ull
                                                 : 0xFFFFFF80FFFFFF80ull;
  out->resize(n * kMaxPerUnit);
  char* w = &(*out)[0];
  char* const start = w;
  size_t i = 0;
  while (i < n) {
    if (i + kWord <= n) {
      uint64_t word;
      std::memcpy(&word, s + i, 8);
      if ((word & kHigh) == 0) {
        for (size_t k = 0; k < kWord; ++k) w[k] = static_cast<char>(s[i + k]);
        w += kWord;
        i += kWord;
        continue;
      }
    }
    uint32_t c = s[i++];
    if (c < 0x80) {
      *w++ = static_cast<char>(c);
      continue;
    }
    if (c < 0x800) {
      *w++ = static_cast<char>(0xC0 | (c >> 6));
      *w++ = static_cast<char>(0x80 | (c & 0x3F));
      continue;
    }
    if (c >= 0xD800 && c < 0xE000) {
      // A high surrogate and a low one make one character; any other surrogate is U+FFFD.
      if (c < 0xDC00 && i < n && s[i] >= 0xDC00 && s[i] < 0xE000) {
        c = 0x10000 + ((c - 0xD800) << 10) + (static_cast<uint32_t>(s[i]) - 0xDC00);
        ++i;
      } else {
        c = 0xFFFD;
      }
    }
    if (c < 0x10000) {
      *w++ = static_cast<char>(0xE0 | (c >> 12));
      *w++ = static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      *w++ = static_cast<char>(0x80 | (c & 0x3F));
    } else {
      *w++ = static_cast<char>(0xF0 | (c >> 18));
      *w++ = static_cast<char>(0x80 | ((c >> 12) & 0x3F));
      *w++ = static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      *w++ = static_cast<char>(0x80 | (c & 0x3F));
    }
  }
  out->resize(static_cast<size_t>(w - start));
}

}  // namespace

void to_utf8(const StrView& v, std::string* out) {
  out->clear();
  if (v.kind == PyUnicode_1BYTE_KIND) {
    append_utf8(static_cast<const uint8_t*>(v.data), v.length, out);
  } else if (v.kind == PyUnicode_2BYTE_KIND) {
    append_utf8(static_cast<const uint16_t*>(v.data), v.length, out);
  } else {
    append_utf8(static_cast<const uint32_t*>(v.data), v.length, out);
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
  tf::py::bind_scan(m);
  tf::py::bind_sentencepiece(m);
  tf::py::bind_training(m);
}
