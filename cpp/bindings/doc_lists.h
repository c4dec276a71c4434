// The lists of one encoded text framed by a single-sequence template's special tokens
// (tokenizer/doc_encoding.py's DocEncoding reads them): ids, tokens, character offsets and
// word ids of [prefix specials] + the text's tokens + [suffix specials], each built only
// when asked.  Used by the native BERT (wordpiece_binding.cc) and SentencePiece-style
// (hf_spm_binding.cc) documents.  Special tokens get offsets (0, 0) and word id None, as
// tokenizers' post-processor gives them.  Offsets are tuples of shared int objects, left
// out of the garbage collector (two ints hold no cycle); those of short tokens near the
// start of a text are shared tuples (offset_pair).
#pragma once

#include <nanobind/nanobind.h>

#include <cstdint>
#include <vector>

#include "bindings/common.h"

namespace tf::py {

// The special tokens around the text, shared by the documents of one call.  The lists own
// the references; the vectors borrow them.
struct DocFrame {
  std::vector<uint32_t> pre_ids, suf_ids;
  nb::list pre_refs, suf_refs;
  std::vector<PyObject*> pre_toks, suf_toks;
  nb::object zero_span;  // (0, 0)

  // Raises ValueError when ids and tokens differ in length.
  DocFrame(std::vector<uint32_t> prefix_ids, nb::list prefix_tokens, std::vector<uint32_t> suffix_ids,
           nb::list suffix_tokens)
      : pre_ids(std::move(prefix_ids)), suf_ids(std::move(suffix_ids)), pre_refs(prefix_tokens),
        suf_refs(suffix_tokens), zero_span(nb::make_tuple(0, 0)) {
    if (pre_ids.size() != pre_refs.size() || suf_ids.size() != suf_refs.size()) {
      throw nb::value_error("encode_docs: ids and tokens of different lengths");
    }
    for (nb::handle t : pre_refs) pre_toks.push_back(t.ptr());
    for (nb::handle t : suf_refs) suf_toks.push_back(t.ptr());
  }
  size_t around() const { return pre_ids.size() + suf_ids.size(); }
};

// The docstring of each document type's `window`.
inline constexpr const char* kWindowDoc =
    "The text's tokens [a, b) in the document's frame, as a document of its own (offsets and word ids "
    "still those of the whole text): a truncation window, its lists made only if read.";

// A new list of n items from make(i) (each a new reference), or a Python error.
template <typename Make>
nb::object build_list(size_t n, Make&& make) {
  PyObject* list = PyList_New(static_cast<Py_ssize_t>(n));
  if (list == nullptr) throw nb::python_error();
  nb::object owner = nb::steal(list);
  for (size_t i = 0; i < n; ++i) {
    PyObject* v = make(i);
    if (v == nullptr) throw nb::python_error();
    PyList_SET_ITEM(list, static_cast<Py_ssize_t>(i), v);
  }
  return owner;
}

// The new tuple (x, y), untracked (two ints hold no cycle), stealing both references;
// nullptr with an error set when x or y is nullptr (the other is released) or on no memory.
inline PyObject* steal_pair(PyObject* x, PyObject* y) {
  PyObject* t = x != nullptr && y != nullptr ? PyTuple_New(2) : nullptr;
  if (t == nullptr) {
    Py_XDECREF(x);
    Py_XDECREF(y);
    return nullptr;
  }
  PyTuple_SET_ITEM(t, 0, x);
  PyTuple_SET_ITEM(t, 1, y);
  PyObject_GC_UnTrack(t);
  return t;
}

// The new tuple (a, b) of cached ints, untracked; nullptr with an error set.
inline PyObject* new_pair(uint32_t a, uint32_t b) {
  PyObject* x = cached_int(a);
  return steal_pair(x, x != nullptr ? cached_int(b) : nullptr);
}

// Offsets (a, a + len) with a < kPairStarts and len < kPairLens are shared tuples, made on
// first use and kept for the life of the process (at most 128 Ki tuples), as the ints of
// cached_int: a tuple is immutable, so sharing is invisible but for `is`, and a token's
// offsets then cost an incref instead of a tuple made, later freed, and counted towards the
// garbage collector's next collection.
constexpr uint32_t kPairStarts = 1u << 13, kPairLens = 16;
inline PyObject* pair_cache_slots[kPairStarts * kPairLens] = {};

// The tuple (a, b) (a new reference), or nullptr with an error set (GIL held).
inline PyObject* offset_pair(uint32_t a, uint32_t b) {
  const uint32_t len = b - a;
  if (a >= kPairStarts || len >= kPairLens) return new_pair(a, b);
  PyObject*& slot = pair_cache_slots[a * kPairLens + len];
  if (slot == nullptr && (slot = new_pair(a, b)) == nullptr) return nullptr;
  Py_INCREF(slot);
  return slot;
}

// Starts loading the shared tuple offset_pair(a, b) would return, if made: the tuples are
// scattered objects, and the incref of each is otherwise a cache miss of its own.
inline void prefetch_offset_pair(uint32_t a, uint32_t b) {
  const uint32_t len = b - a;
  if (a >= kPairStarts || len >= kPairLens) return;
  if (PyObject* t = pair_cache_slots[a * kPairLens + len]) __builtin_prefetch(t, 1);
}

// A list made ahead of need (a batch's documents on two threads make theirs while the pool
// still encodes) is kept out of the garbage collector until handed to Python code: made
// while collection is off (NoGc), the lists would all be young at once, and the first
// collection after the batch would walk every one of their items, a serial tail of its
// own.  Untracked, a list only the document holds can be in no cycle; handed out, it is
// tracked again like any list.
inline nb::object held_back(nb::object list) {
  PyObject_GC_UnTrack(list.ptr());
  return list;
}

// The held-back list, tracked again, moved out of `held` (left empty).
inline nb::object hand_out(nb::object& held) {
  if (!PyObject_GC_IsTracked(held.ptr())) PyObject_GC_Track(held.ptr());
  return std::move(held);
}

// The ids of the framed text: frame + ids[0, n).
inline nb::object doc_ids(const DocFrame& f, const uint32_t* ids, size_t n) {
  std::vector<uint32_t> all;
  all.reserve(n + f.around());
  all.insert(all.end(), f.pre_ids.begin(), f.pre_ids.end());
  all.insert(all.end(), ids, ids + n);
  all.insert(all.end(), f.suf_ids.begin(), f.suf_ids.end());
  return to_list(all.data(), all.size());
}

// The tokens: token(i) (a new reference or nullptr) for the text's i-th token.
template <typename Token>
nb::object doc_tokens(const DocFrame& f, size_t n, Token&& token) {
  const size_t a = f.pre_ids.size();
  return build_list(n + f.around(), [&](size_t i) -> PyObject* {
    if (i >= a && i < a + n) return token(i - a);
    PyObject* t = i < a ? f.pre_toks[i] : f.suf_toks[i - a - n];
    Py_INCREF(t);
    return t;
  });
}

// The offsets; the text's tokens from starts/ends, past `n` (up to n + blank) (0, 0).
inline nb::object doc_offsets(const DocFrame& f, const uint32_t* starts, const uint32_t* ends, size_t n,
                              size_t blank = 0) {
  const size_t a = f.pre_ids.size();
  constexpr size_t kAhead = 8;  // tuples prefetched ahead of the one appended
  for (size_t j = 0; j < n && j < kAhead; ++j) prefetch_offset_pair(starts[j], ends[j]);
  return build_list(n + blank + f.around(), [&](size_t i) -> PyObject* {
    if (i >= a && i < a + n) {
      const size_t j = i - a;
      if (j + kAhead < n) prefetch_offset_pair(starts[j + kAhead], ends[j + kAhead]);
      return offset_pair(starts[j], ends[j]);
    }
    Py_INCREF(f.zero_span.ptr());
    return f.zero_span.ptr();
  });
}

// The word ids; the text's tokens from words, past `n` (up to n + blank) None.
inline nb::object doc_words(const DocFrame& f, const uint32_t* words, size_t n, size_t blank = 0) {
  const size_t a = f.pre_ids.size();
  return build_list(n + blank + f.around(), [&](size_t i) -> PyObject* {
    if (i >= a && i < a + n) return cached_int(words[i - a]);
    Py_INCREF(Py_None);
    return Py_None;
  });
}

}  // namespace tf::py
