// Conversions shared by the binding files: Python str/bytes in, lists and errors out.
// Everything here runs with the GIL held.
#pragma once

#include <nanobind/nanobind.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tf::py {

namespace nb = nanobind;

// UTF-8 view of a str, valid while the str lives.  Lone surrogates raise the
// UnicodeEncodeError Python gives, so callers in Python can repair the text.
inline std::string_view utf8(nb::handle s) {
  Py_ssize_t n = 0;
  const char* p = PyUnicode_AsUTF8AndSize(s.ptr(), &n);
  if (p == nullptr) throw nb::python_error();
  return std::string_view(p, static_cast<size_t>(n));
}

// The items of a list, in a tuple that holds a reference to each.  Batch functions read
// their items' memory with the GIL released, when another Python thread may take items
// out of the list and free them; the tuple keeps them alive (one incref per item).
// Not PyList_AsTuple: it reads the list's item array before allocating the tuple, and the
// allocation may run a garbage collection whose callbacks or finalizers (or a thread they
// let run) empty the list and free that array.  Here the items are copied after the
// allocation, with no Python code in between; a list resized meanwhile is read again.
inline nb::tuple snapshot(nb::list items) {
  PyObject* list = items.ptr();
  while (true) {
    const Py_ssize_t n = PyList_GET_SIZE(list);
    PyObject* t = PyTuple_New(n);
    if (t == nullptr) throw nb::python_error();
    if (PyList_GET_SIZE(list) != n) {
      Py_DECREF(t);
      continue;
    }
    for (Py_ssize_t i = 0; i < n; ++i) {
      PyObject* item = PyList_GET_ITEM(list, i);
      Py_INCREF(item);
      PyTuple_SET_ITEM(t, i, item);
    }
    return nb::steal<nb::tuple>(t);
  }
}

// Builds many small lists without the cyclic GC running over them (lists of ints cannot
// form cycles, and each gen-0 collection would visit every int of the young lists, about
// a tenth of a batch's time); restores the collector's previous state.
class NoGc {
 public:
  NoGc() : was_enabled_(PyGC_Disable()) {}
  ~NoGc() {
    if (was_enabled_) PyGC_Enable();
  }
  NoGc(const NoGc&) = delete;
  NoGc& operator=(const NoGc&) = delete;

 private:
  int was_enabled_;
};

// utf8() of every str of `texts` (valid while the tuple lives; see snapshot()).
inline std::vector<std::string_view> utf8_views(nb::tuple texts) {
  std::vector<std::string_view> views;
  views.reserve(texts.size());
  for (nb::handle t : texts) views.push_back(utf8(t));
  return views;
}

// A str's characters as CPython stores them (1, 2 or 4 bytes each).  Strs are immutable,
// so the view may be read without the GIL while the str is kept alive.
struct StrView {
  int kind = PyUnicode_1BYTE_KIND;
  const void* data = nullptr;
  size_t length = 0;
  bool ascii = true;  // then data is already UTF-8
};

inline StrView str_view(nb::handle s) {
  if (!PyUnicode_Check(s.ptr())) throw nb::type_error("expected a str");
#if PY_VERSION_HEX < 0x030C0000
  if (PyUnicode_READY(s.ptr()) != 0) throw nb::python_error();  // legacy strs (3.11 and older)
#endif
  StrView v;
  v.kind = PyUnicode_KIND(s.ptr());
  v.data = PyUnicode_DATA(s.ptr());
  v.length = static_cast<size_t>(PyUnicode_GET_LENGTH(s.ptr()));
  v.ascii = PyUnicode_IS_ASCII(s.ptr());
  return v;
}

// The views of a batch's strs (kept alive by `items`).
inline std::vector<StrView> str_views(const nb::tuple& items) {
  std::vector<StrView> views;
  views.reserve(items.size());
  for (nb::handle t : items) views.push_back(str_view(t));
  return views;
}

// The code units [from, to) of a str.
inline StrView units(const StrView& sv, size_t from, size_t to) {
  StrView part = sv;
  part.data = static_cast<const char*>(sv.data) + from * static_cast<size_t>(sv.kind);
  part.length = to - from;
  return part;
}

// The UTF-8 CPython has cached on a str (its own data when ASCII), or an empty view.
inline std::string_view cached_utf8(nb::handle text) {
  PyObject* o = text.ptr();
  if (PyUnicode_IS_COMPACT_ASCII(o)) return std::string_view(static_cast<const char*>(PyUnicode_DATA(o)),
                                                             static_cast<size_t>(PyUnicode_GET_LENGTH(o)));
  const auto* c = reinterpret_cast<const PyCompactUnicodeObject*>(o);
  if (c->utf8 == nullptr) return {};
  return std::string_view(c->utf8, static_cast<size_t>(c->utf8_length));
}

// About the UTF-8 length of a str, to balance chunks (exact for ASCII).
inline size_t approx_utf8_size(const StrView& v) {
  if (v.ascii) return v.length;
  return v.length * (v.kind == PyUnicode_1BYTE_KIND ? 1 : v.kind == PyUnicode_2BYTE_KIND ? 2 : 3);
}

// A reusable buffer for to_utf8: grows, never shrinks, and is not zeroed (std::string's
// resize zeroed every document's worst-case size, a few % of a batch).
class Utf8Buffer {
 public:
  char* reserve(size_t n) {
    if (n > capacity_) {
      data_.reset(new char[n]);
      capacity_ = n;
    }
    return data_.get();
  }
  // Frees the buffer if it grew past `bytes` (one huge document must not pin its worst
  // case in every thread for the life of the process).
  void trim(size_t bytes) {
    if (capacity_ > bytes) {
      data_.reset();
      capacity_ = 0;
    }
  }
  // The index of the first surrogate code unit of the str to_utf8 converted last, or -1.
  // Python's str.encode("utf-8") fails there (a str holds no pairs: two surrogates in a
  // row are two lone ones to it), so callers that must raise as it does ask this instead
  // of scanning the str again.
  int64_t first_surrogate() const { return first_surrogate_; }

 private:
  friend std::string_view to_utf8(const StrView& v, Utf8Buffer* buffer);
  std::unique_ptr<char[]> data_;
  size_t capacity_ = 0;
  int64_t first_surrogate_ = -1;
};

// The UTF-8 of a StrView, without the GIL: an ASCII str's own characters, else *buffer
// (valid until its next use).
// Surrogates are repaired as tiktoken repairs them (a UTF-16 round trip with
// errors="replace"): a high surrogate followed by a low one becomes the character they
// encode, any other surrogate U+FFFD.
std::string_view to_utf8(const StrView& v, Utf8Buffer* buffer);

// The ValueError text for a str whose UTF-8 cannot be made (Utf8Buffer::first_surrogate).
inline std::string lone_surrogate_message(int64_t at) {
  return "text holds a lone surrogate at character " + std::to_string(at);
}

inline std::string_view bytes_view(nb::handle b) {
  char* p = nullptr;
  Py_ssize_t n = 0;
  if (PyBytes_AsStringAndSize(b.ptr(), &p, &n) != 0) throw nb::python_error();
  return std::string_view(p, static_cast<size_t>(n));
}

// Python ints for token ids, made once and shared: building a list of ids then costs an
// incref per element instead of an allocation (and freeing it, a decref).  Ids below
// kIntCacheSize are cached for the life of the process (at most 256 Ki objects).
constexpr uint32_t kIntCacheSize = 1u << 18;
// The made ints, nullptr until first asked for (static storage: pages are touched as used).
inline PyObject* int_cache_slots[kIntCacheSize] = {};
PyObject* make_cached_int(uint32_t v);  // cached_int's slow path
// Inline: a list of ids costs a load and an incref per id, without a call.
inline PyObject* cached_int(uint32_t v) {  // new reference, nullptr on error (GIL held)
  if (v < kIntCacheSize) {
    if (PyObject* o = int_cache_slots[v]) {
      Py_INCREF(o);
      return o;
    }
  }
  return make_cached_int(v);
}

// The Python list of ids[0, n), or nullptr with a Python error set.  The item array is
// filled before it becomes the list's: PyList_New would zero it first (calloc), which
// for a large text is a memset of megabytes that the fill then overwrites.
inline PyObject* new_id_list(const uint32_t* ids, size_t n) {
  if (n == 0 || n > static_cast<size_t>(PY_SSIZE_T_MAX) / sizeof(PyObject*)) return PyList_New(static_cast<Py_ssize_t>(n));
  PyObject** items = static_cast<PyObject**>(PyMem_Malloc(n * sizeof(PyObject*)));
  if (items == nullptr) return PyErr_NoMemory();
  // Two passes: first every id's cached int (independent loads of the slot table, many in
  // flight), then the increfs.  In one pass each int waited on its slot's load, two
  // dependent misses for a rare id.
  for (size_t i = 0; i < n; ++i) items[i] = ids[i] < kIntCacheSize ? int_cache_slots[ids[i]] : nullptr;
  for (size_t i = 0; i < n; ++i) {
    PyObject* v = items[i];
    if (v != nullptr) {
      Py_INCREF(v);
      continue;
    }
    v = make_cached_int(ids[i]);  // not made yet, or beyond the cache
    if (v == nullptr) {
      for (size_t j = 0; j < i; ++j) Py_DECREF(items[j]);  // the later ones hold no reference yet
      PyMem_Free(items);
      return nullptr;
    }
    items[i] = v;
  }
#if defined(Py_GIL_DISABLED) || PY_VERSION_HEX >= 0x030F0000
  // A free-threaded build keeps a list's items in its own kind of block (and a CPython we
  // have not seen may too): only the public calls there.
  PyObject* list = PyList_New(static_cast<Py_ssize_t>(n));
  if (list == nullptr) {
    for (size_t j = 0; j < n; ++j) Py_DECREF(items[j]);
    PyMem_Free(items);
    return nullptr;
  }
  for (size_t i = 0; i < n; ++i) PyList_SET_ITEM(list, static_cast<Py_ssize_t>(i), items[i]);
  PyMem_Free(items);
  return list;
#else
  PyObject* list = PyList_New(0);
  if (list == nullptr) {
    for (size_t j = 0; j < n; ++j) Py_DECREF(items[j]);
    PyMem_Free(items);
    return nullptr;
  }
  PyListObject* l = reinterpret_cast<PyListObject*>(list);
  PyMem_Free(l->ob_item);  // NULL for an empty list; freed anyway should that change
  l->ob_item = items;
  l->allocated = static_cast<Py_ssize_t>(n);
  Py_SET_SIZE(l, static_cast<Py_ssize_t>(n));
  return list;
#endif
}

inline nb::object to_list(const uint32_t* ids, size_t n) {
  PyObject* list = new_id_list(ids, n);
  if (list == nullptr) throw nb::python_error();
  return nb::steal(list);
}

inline nb::object to_list(const std::vector<uint32_t>& ids) { return to_list(ids.data(), ids.size()); }

inline nb::bytes to_bytes(std::string_view s) { return nb::bytes(s.data(), s.size()); }

// A sequence of ints as token ids; raises KeyError naming an id that cannot be one.
std::vector<uint32_t> ids_from(nb::handle seq);

[[noreturn]] inline void value_error(const std::string& msg) { throw nb::value_error(msg.c_str()); }

// For an __init__ that constructs its object in place and may raise afterwards: nanobind
// runs the destructor only of instances whose __init__ returned, so what the constructor
// and a failed build allocated would leak.  Destroys *self on the way out unless done()
// was called.
template <typename T>
class InPlaceGuard {
 public:
  explicit InPlaceGuard(T* self) : self_(self) {}
  ~InPlaceGuard() {
    if (self_ != nullptr) self_->~T();
  }
  InPlaceGuard(const InPlaceGuard&) = delete;
  InPlaceGuard& operator=(const InPlaceGuard&) = delete;
  void done() { self_ = nullptr; }

 private:
  T* self_;
};

// The KeyError that decoding raises for an id that is no token (`token`: the id as text).
[[noreturn]] inline void invalid_token(const std::string& token) {
  const std::string msg = "Invalid token for decoding: " + token;
  PyErr_SetObject(PyExc_KeyError, nb::str(msg.c_str()).ptr());
  throw nb::python_error();
}

}  // namespace tf::py
