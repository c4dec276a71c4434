// One long str encoded (or counted) in parts on several threads, as one list of ids.
//
// The caller (core.py) gives the cuts: character offsets where the parts' ids, joined, are
// the whole text's (tokenforge/_cuts.py).  The parts are read from the one str in place,
// with no part strs made: an ASCII str's own characters, else the UTF-8 CPython has cached
// on it (then each part's end in it is found as the part is taken, by counting its
// characters there), else each part is converted by the thread that encodes it.
//
// Every thread takes the next part in order (under a lock, which also finds the part's
// bytes); the calling thread also builds the result list, in part order, straight into
// one item array (sized from the first part's ids per byte, with a margin; grown if need
// be), each part as soon as it and those before it are encoded.  So no part list is made
// and then joined (a copy of the whole item array, with the first touch of its pages,
// after all the encoding), and the work left after the last part is encoded is the
// building of that part alone.  On one thread (one usable CPU) the list is built after
// all the parts, as the whole text's encode builds it: building between parts pushed the
// encoder's tables out of the caches, to be fetched again for the next part.
//
// The same parts can go to a uint32 array instead (encode_to_numpy): the calling thread
// copies each part's ids into one growing buffer, no GIL needed.  That path also looks
// for disallowed specials, in each part's UTF-8 before it is encoded and across each cut
// (special_across, encode_array.cc); once one is found the parts after it are skipped,
// and the first in part order is named.
//
// What it leaves out: disallowed specials of the list and count outputs (core.py looks
// for them before calling), many texts (encoding_binding.cc's batches).
#include "bindings/one_text.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <thread>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "bindings/encode_array.h"
#include "common/parallel.h"

namespace tf::py {

namespace {

// The UTF-8 lead bytes (those not 10xxxxxx, one a character) among the 64 at p.
#if defined(__SSE2__)
inline size_t leads64(const uint8_t* p) {
  const __m128i cont = _mm_set1_epi8(-64);  // continuation bytes are below it, as int8
  uint64_t mask = 0;
  for (int i = 0; i < 4; ++i) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * i));
    mask |= static_cast<uint64_t>(static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmplt_epi8(v, cont)))) << (16 * i);
  }
  return 64 - static_cast<size_t>(__builtin_popcountll(mask));
}
#else
inline size_t leads64(const uint8_t* p) {
  size_t leads = 0;
  for (size_t i = 0; i < 64; ++i) leads += (p[i] & 0xC0) != 0x80;
  return leads;
}
#endif

// Where the parts' UTF-8 comes from (see the file comment).
class Source {
 public:
  Source(nb::handle text, const std::vector<size_t>& cuts) : sv_(str_view(text)) {
    bounds_.push_back(0);
    for (size_t c : cuts) {
      if (c <= bounds_.back() || c >= sv_.length) throw nb::value_error("cuts must increase inside the text");
      bounds_.push_back(c);
    }
    bounds_.push_back(sv_.length);
    whole_ = cached_utf8(text);
    if (PyUnicode_IS_COMPACT_ASCII(text.ptr())) byte_bounds_ = bounds_;
  }
  size_t parts() const { return bounds_.size() - 1; }
  const StrView& view() const { return sv_; }
  size_t bound(size_t k) const { return bounds_[k]; }  // character offset
  size_t approx_bytes() const { return whole_.data() != nullptr ? whole_.size() : approx_utf8_size(sv_); }

  // The UTF-8 of part k in the str's cached UTF-8, or an empty view (no data) if it is to
  // be converted (part()).  Parts are asked for in order, 0, 1, ..., one call at a time
  // (no GIL needed): each call finds the part's end by counting the characters of its
  // UTF-8 from the end of the one before.  Summing the UTF-8 lengths of all the parts'
  // code units first read the whole str (four bytes a character for one emoji), a pass
  // over memory before any part was encoded, the one cost the parts had on one thread
  // over the whole text's encode (benchmarks/README.md); this way each part's bytes are
  // read just before the thread that asked encodes them.
  std::string_view next_in_place(size_t k) {
    if (whole_.data() == nullptr) return {};
    if (byte_bounds_.empty()) byte_bounds_.push_back(0);
    if (byte_bounds_.size() == k + 1) {  // find the end of part k (else it is known: ASCII)
      const auto* p = reinterpret_cast<const uint8_t*>(whole_.data());
      const size_t n = whole_.size(), target = bounds_[k + 1];
      size_t at = byte_bounds_.back(), seen = bounds_[k];
      for (size_t m; at + 64 <= n && seen + (m = leads64(p + at)) <= target; at += 64) seen += m;
      for (; at < n; ++at) {
        if ((p[at] & 0xC0) == 0x80) continue;
        if (seen == target) break;
        ++seen;
      }
      if (seen != target || (k + 1 == parts() && at != n)) {  // not the str's UTF-8: convert from here on
        whole_ = {};
        return {};
      }
      byte_bounds_.push_back(at);
    }
    return whole_.substr(byte_bounds_[k], byte_bounds_[k + 1] - byte_bounds_[k]);
  }

  // The UTF-8 of part k converted from its code units (valid until *buffer's next use).
  std::string_view convert(size_t k, Utf8Buffer* buffer) const {
    return to_utf8(units(sv_, bounds_[k], bounds_[k + 1]), buffer);
  }

 private:
  StrView sv_;
  std::vector<size_t> bounds_, byte_bounds_;
  std::string_view whole_;  // the whole text's UTF-8, when it is at hand
};

struct alignas(64) Part {  // own cache line: two threads fill neighbouring parts
  std::string_view in_place;  // its UTF-8 in the str's (Source::next_in_place), else no data
  std::vector<uint32_t> ids;
  size_t count = 0;
  size_t bytes = 0;  // of its UTF-8
  bool ok = true;
  std::string error;
  std::string special;  // a disallowed special found in it or across the cut after it
};

// The parts' id buffers, kept by the calling thread between calls with their capacity:
// memory freed after one call and allocated anew by the next came back as fresh pages,
// touched for the first time (a page fault each) by whichever thread encoded a part.
// Up to kKeepBytes are kept.
class PartBuffers {
 public:
  static constexpr size_t kKeepBytes = size_t{16} << 20;
  void lend(std::vector<Part>* parts) {
    for (size_t k = 0; k < parts->size() && !kept_.empty(); ++k) {
      (*parts)[k].ids.swap(kept_.back());
      (*parts)[k].ids.clear();
      kept_.pop_back();
    }
  }
  void take_back(std::vector<Part>* parts) {
    size_t bytes = 0;
    for (const auto& v : kept_) bytes += v.capacity() * sizeof(uint32_t);
    for (Part& p : *parts) {
      const size_t b = p.ids.capacity() * sizeof(uint32_t);
      if (b == 0 || bytes + b > kKeepBytes) continue;
      bytes += b;
      kept_.push_back(std::move(p.ids));
    }
  }

 private:
  std::vector<std::vector<uint32_t>> kept_;
};

// Part k encoded (or counted) into parts[k]; catches running out of memory.  With
// `disallowed`, a part holding one (or with one across the cut after it) is not encoded.
void run_part(const Encoding& enc, const Source& src, const SpecialMatcher* allowed,
              const SpecialMatcher* disallowed, OneTextOutput out, size_t k, Part* part) {
  static const SpecialMatcher kNone;
  thread_local Utf8Buffer buffer;
  try {
    const std::string_view text = part->in_place.data() != nullptr ? part->in_place : src.convert(k, &buffer);
    part->bytes = text.size();
    if (disallowed != nullptr) {
      const SpecialMatcher::Match m = disallowed->find(reinterpret_cast<const uint8_t*>(text.data()), text.size(), 0);
      if (m.found) {
        part->special.assign(text.substr(m.pos, m.len));
      } else if (k + 1 < src.parts()) {
        part->special = special_across(src.view(), src.bound(k + 1), *disallowed);
      }
      if (!part->special.empty()) return;
    }
    if (out == OneTextOutput::kCount) {
      part->ok = enc.count(text, allowed != nullptr ? *allowed : kNone, &part->count, &part->error);
    } else {
      part->ids.reserve(text.size() / 3 + 16);
      part->ok = allowed != nullptr ? enc.encode(text, *allowed, &part->ids, &part->error)
                                    : enc.encode_ordinary(text, &part->ids, &part->error);
    }
  } catch (const std::bad_alloc&) {
    part->ok = false;
    part->error = "out of memory";
  }
  buffer.trim(size_t{16} << 20);
}

// The ids of the parts as one malloc'd uint32 array, appended in order (no GIL needed).
class IdArray {
 public:
  ~IdArray() { std::free(data_); }
  bool append(const uint32_t* ids, size_t n) {
    if (size_ + n > cap_ && !grow(size_ + n)) return false;
    if (n != 0) std::memcpy(data_ + size_, ids, n * sizeof(uint32_t));
    size_ += n;
    return true;
  }
  bool reserve(size_t n) { return n <= cap_ || grow(n); }
  // The numpy array of the ids (the buffer moves over).
  nb::object to_numpy() {
    if (cap_ > size_ + size_ / 8 && size_ != 0) {  // give back the unused tail
      if (auto* p = static_cast<uint32_t*>(std::realloc(data_, size_ * sizeof(uint32_t)))) data_ = p;
    }
    if (data_ == nullptr && (data_ = static_cast<uint32_t*>(std::malloc(sizeof(uint32_t)))) == nullptr) {
      throw std::bad_alloc();
    }
    uint32_t* data = data_;
    data_ = nullptr;
    return uint32_array(data, size_);
  }

 private:
  bool grow(size_t need) {
    const size_t cap = std::max(need, cap_ + cap_ / 2);
    auto* p = static_cast<uint32_t*>(std::realloc(data_, cap * sizeof(uint32_t)));
    if (p == nullptr) return false;
    data_ = p;
    cap_ = cap;
    return true;
  }
  uint32_t* data_ = nullptr;
  size_t size_ = 0, cap_ = 0;
};

// The result's item array: new references, appended in order by the calling thread (GIL held).
class Items {
 public:
  ~Items() {
    for (size_t i = 0; i < size_; ++i) Py_DECREF(items_[i]);
    PyMem_Free(items_);
  }
  // Appends a reference to the int of each id; false with a Python error set.
  bool append(const uint32_t* ids, size_t n) {
    if (size_ + n > cap_ && !grow(size_ + n)) return false;
    PyObject** out = items_ + size_;
    for (size_t i = 0; i < n; ++i) out[i] = ids[i] < kIntCacheSize ? int_cache_slots[ids[i]] : nullptr;
    for (size_t i = 0; i < n; ++i) {
      if (out[i] != nullptr) {
        Py_INCREF(out[i]);
      } else if ((out[i] = make_cached_int(ids[i])) == nullptr) {
        size_ += i;  // those hold references; the rest are dropped
        return false;
      }
    }
    size_ += n;
    return true;
  }
  bool reserve(size_t n) { return n <= cap_ || grow(n); }
  // The list of the items (they move over); nullptr with a Python error set.
  PyObject* to_list() {
#if defined(Py_GIL_DISABLED) || PY_VERSION_HEX >= 0x030F0000
    PyObject* list = PyList_New(static_cast<Py_ssize_t>(size_));
    if (list == nullptr) return nullptr;
    for (size_t i = 0; i < size_; ++i) PyList_SET_ITEM(list, static_cast<Py_ssize_t>(i), items_[i]);
    size_ = 0;
    return list;
#else
    PyObject* list = PyList_New(0);
    if (list == nullptr || size_ == 0) return list;
    if (cap_ > size_ + size_ / 8) {  // give back the unused tail
      if (auto* p = static_cast<PyObject**>(PyMem_Realloc(items_, size_ * sizeof(PyObject*)))) {
        items_ = p;
        cap_ = size_;
      }
    }
    auto* l = reinterpret_cast<PyListObject*>(list);
    PyMem_Free(l->ob_item);
    l->ob_item = items_;
    l->allocated = static_cast<Py_ssize_t>(cap_);
    Py_SET_SIZE(l, static_cast<Py_ssize_t>(size_));
    items_ = nullptr;
    size_ = cap_ = 0;
    return list;
#endif
  }

 private:
  bool grow(size_t need) {
    const size_t cap = std::max(need, cap_ + cap_ / 2);
    if (cap > static_cast<size_t>(PY_SSIZE_T_MAX) / sizeof(PyObject*)) {
      PyErr_NoMemory();
      return false;
    }
    auto* p = static_cast<PyObject**>(PyMem_Realloc(items_, cap * sizeof(PyObject*)));
    if (p == nullptr) {
      PyErr_NoMemory();
      return false;
    }
    items_ = p;
    cap_ = cap;
    return true;
  }
  PyObject** items_ = nullptr;
  size_t size_ = 0, cap_ = 0;
};

}  // namespace

nb::object encode_one_text(const Encoding& enc, nb::handle text, const std::vector<size_t>& cuts,
                           const SpecialMatcher* allowed, const SpecialMatcher* disallowed, int threads,
                           OneTextOutput out) {
  Source src(text, cuts);
  const size_t n = src.parts();
  const bool count_only = out == OneTextOutput::kCount, to_list = out == OneTextOutput::kList;
  if (out != OneTextOutput::kArray) disallowed = nullptr;
  std::vector<Part> parts(n);
  thread_local PartBuffers buffers;
  if (!count_only) buffers.lend(&parts);
  std::unique_ptr<std::atomic<bool>[]> done(new std::atomic<bool>[n]);
  for (size_t k = 0; k < n; ++k) done[k].store(false, std::memory_order_relaxed);
  size_t next = 0;  // the next part to take (under take_mutex)
  std::mutex take_mutex;
  // The next part in order, its UTF-8 found in the str's; n when there is none left.
  auto take = [&]() {
    std::lock_guard<std::mutex> lock(take_mutex);
    if (next == n) return n;
    parts[next].in_place = src.next_in_place(next);
    return next++;
  };
  std::atomic<bool> found{false};  // a disallowed special was found: encode no further part
  Items items;
  IdArray array;
  size_t built = 0;       // parts [0, built) are in `items` / `array` (or the build stopped)
  bool stopped = false;   // a part failed, or building raised: build no further
  bool raised = false;    // building a list raised (a Python error is set)
  bool no_memory = false;  // growing the array failed
  const std::thread::id caller = std::this_thread::get_id();
  const size_t t = std::min({static_cast<size_t>(std::max(1, threads)), n, usable_cpus()});
  // The finished parts next in order, built (GIL held for a list).
  auto build_ready = [&]() {
    for (; !stopped && built < n && done[built].load(std::memory_order_acquire); ++built) {
      Part& p = parts[built];
      if (!p.ok || !p.special.empty()) {
        stopped = true;
        break;
      }
      if (built == 0) {
        // Room for the whole text at the first part's ids per byte, and a margin: growing
        // the array later may copy it (a realloc that cannot extend the block in place).
        const double per_byte = static_cast<double>(p.ids.size() + 1) / static_cast<double>(p.bytes + 1);
        const size_t want = static_cast<size_t>(per_byte * 1.15 * static_cast<double>(src.approx_bytes())) + 4096;
        if (!(to_list ? items.reserve(want) : array.reserve(want))) {
          stopped = true;
          (to_list ? raised : no_memory) = true;
          break;
        }
      }
      if (!(to_list ? items.append(p.ids.data(), p.ids.size()) : array.append(p.ids.data(), p.ids.size()))) {
        stopped = true;
        (to_list ? raised : no_memory) = true;
        break;
      }
      if (!to_list) p.ids.clear();  // copied (its capacity is kept for the next call)
    }
  };
  auto encode = [&](size_t k) {
    if (!found.load(std::memory_order_relaxed)) {
      run_part(enc, src, allowed, disallowed, out, k, &parts[k]);
      if (!parts[k].special.empty()) found.store(true, std::memory_order_relaxed);
    } else {
      parts[k].ok = false;  // after a disallowed special: not wanted
    }
    done[k].store(true, std::memory_order_release);
  };
  {
    nb::gil_scoped_release release;
    parallel_for(t, static_cast<int>(t), [&](size_t) {
      size_t k;
      if (count_only || std::this_thread::get_id() != caller) {
        while ((k = take()) < n) encode(k);
        return;
      }
      while (true) {
        if (t > 1 && !stopped && built < n && done[built].load(std::memory_order_acquire)) {
          if (to_list) {
            nb::gil_scoped_acquire gil;
            build_ready();
          } else {
            build_ready();
          }
        } else if ((k = take()) < n) {
          encode(k);
        } else if (stopped || built == n || t == 1) {
          return;
        } else {
          std::this_thread::yield();  // the last parts, on other threads
        }
      }
    });
    // Every part is encoded by now (the caller may have run no worker at all).
    if (!to_list) build_ready();
  }
  if (to_list) build_ready();
  if (!count_only) buffers.take_back(&parts);
  if (raised) throw nb::python_error();
  for (const Part& p : parts) {  // the first special in part order, even after an error
    if (!p.special.empty()) return nb::make_tuple(nb::none(), to_bytes(p.special));
  }
  for (const Part& p : parts) {
    if (!p.ok) throw nb::value_error(p.error.c_str());
  }
  if (no_memory) throw std::bad_alloc();
  if (count_only) {
    size_t total = 0;
    for (const Part& p : parts) total += p.count;
    return nb::int_(total);
  }
  if (!to_list) return array.to_numpy();
  PyObject* list = items.to_list();
  if (list == nullptr) throw nb::python_error();
  return nb::steal(list);
}

}  // namespace tf::py
