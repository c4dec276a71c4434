// encode_to_numpy: one text to a uint32 array, with a peak memory near the result's size,
// on one thread or on several.
//
// A str without cached UTF-8 is converted a chunk of `chunk_chars` characters at a time
// (no UTF-8 copy of the whole text is made, as tiktoken makes one) and each safe prefix
// encoded as it arrives.  Text with no place to cut (a run of spaces, words with no
// punctuation between them) would be encoded again with each chunk, quadratic in its
// length: once the uncut text exceeds kStalled chunks, the rest is converted at once.
// Disallowed specials are looked for in the same UTF-8, as tiktoken looks for them before
// encoding: (None, the special's bytes) is returned when one is found anywhere in the
// text, even after a piece that cannot be encoded.  Lone surrogates are repaired as
// tiktoken repairs them (see to_utf8).
//
// Several threads: the caller gives the cuts (tokenforge/_cuts.py, places where the parts'
// ids are the whole's).  Each part is read from the one str in place (no part strs, no
// UTF-8 of the whole text is made or cached on the str), converted and encoded as above
// into its own buffer, and the buffers are copied into the result one by one, each freed
// once copied.  A disallowed special across a cut is looked for in the few characters
// around it.  Which special is named when two overlap across a cut may differ from the
// one-thread answer (the first found in part order).
#include "bindings/encode_array.h"

#include <nanobind/ndarray.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "common/id_buffer.h"
#include "common/parallel.h"

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace tf::py {

namespace {

bool is_high_surrogate(const StrView& v, size_t i) {
  if (v.kind == PyUnicode_2BYTE_KIND) return (static_cast<const uint16_t*>(v.data)[i] & 0xFC00) == 0xD800;
  if (v.kind == PyUnicode_4BYTE_KIND) return (static_cast<const uint32_t*>(v.data)[i] & 0xFFFFFC00u) == 0xD800;
  return false;
}

// A part's ids, in pages of their own (mmap, grown by mremap) on Linux: freed, they go
// back to the system at once, where malloc'd blocks freed by worker threads stay in their
// arenas and the join below would then hold every part and the result at once.
class PartIds {
 public:
  PartIds() = default;
  PartIds(const PartIds&) = delete;
  PartIds& operator=(const PartIds&) = delete;
  ~PartIds() { reset(); }
  void append(const uint32_t* v, size_t n) {
    if (n == 0) return;
    if ((size_ + n) * sizeof(uint32_t) > bytes_) grow((size_ + n) * sizeof(uint32_t));
    std::memcpy(data_ + size_, v, n * sizeof(uint32_t));
    size_ += n;
  }
  size_t size() const { return size_; }
  const uint32_t* data() const { return data_; }
  void reset() {
    if (data_ != nullptr) {
#if defined(__linux__)
      munmap(data_, bytes_);
#else
      std::free(data_);
#endif
    }
    data_ = nullptr;
    size_ = bytes_ = 0;
  }

 private:
  void grow(size_t need) {
    constexpr size_t kPage = size_t{1} << 16;
    const size_t bytes = (std::max(need + need / 2, size_t{1} << 20) + kPage - 1) / kPage * kPage;
#if defined(__linux__)
    void* p = data_ == nullptr ? mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
                               : mremap(data_, bytes_, bytes, MREMAP_MAYMOVE);
    if (p == MAP_FAILED) throw std::bad_alloc();
#else
    void* p = std::realloc(data_, bytes);
    if (p == nullptr) throw std::bad_alloc();
#endif
    data_ = static_cast<uint32_t*>(p);
    bytes_ = bytes;
  }
  uint32_t* data_ = nullptr;
  size_t size_ = 0, bytes_ = 0;
};

// What encoding some text gave: its ids, or the error, or the disallowed special found.
// With `spill` set (a part of a long text), the ids are moved there a chunk at a time.
struct Encoded {
  IdBuffer ids;
  PartIds* spill = nullptr;
  bool ok = true;
  std::string error;
  std::string special;  // the disallowed special found, if any
  void flush() {
    if (spill == nullptr) return;
    spill->append(ids.data(), ids.size());
    ids.clear();
  }
};

constexpr size_t kStalled = 4, kMinStall = size_t{1} << 16;

// encode_units of ASCII text [begin, end) into a spill, a chunk at a time (its disallowed
// specials already looked for).
void encode_ascii_chunks(const Encoding& e, std::string_view text, const SpecialMatcher& allowed, size_t chunk,
                         Encoded* out) {
  size_t i = 0, stop = 0;
  while (out->ok && i < text.size()) {
    stop = std::min(text.size(), std::max(stop, i) + chunk);
    if (stop - i > kStalled * std::max(chunk, kMinStall)) stop = text.size();  // no cut in sight
    const std::string_view pending = text.substr(i, stop - i);
    if (stop == text.size()) {
      out->ok = e.encode_to_buffer(pending, allowed, &out->ids, &out->error);
      out->flush();
      return;
    }
    size_t consumed = 0;
    out->ok = e.encode_prefix(pending, allowed, &out->ids, &consumed, &out->error);
    out->flush();
    i += consumed;
  }
}

// Encodes the code units [begin, end) of `sv` into *out, a chunk at a time (see above).
void encode_units(const Encoding& e, const StrView& sv, size_t begin, size_t end, const SpecialMatcher& allowed,
                  const SpecialMatcher* disallowed, size_t chunk_chars, Encoded* out) {
  const size_t back = disallowed == nullptr ? 0 : std::max<size_t>(disallowed->max_length(), 1) - 1;
  auto holds_disallowed = [&](std::string_view v, size_t from) {
    if (disallowed == nullptr) return false;
    const SpecialMatcher::Match m = disallowed->find(reinterpret_cast<const uint8_t*>(v.data()), v.size(), from);
    if (m.found) out->special.assign(v.substr(m.pos, m.len));
    return m.found;
  };
  if (sv.ascii) {  // already UTF-8: no conversion
    const std::string_view text(static_cast<const char*>(sv.data) + begin, end - begin);
    if (holds_disallowed(text, 0)) return;
    if (out->spill != nullptr) return encode_ascii_chunks(e, text, allowed, std::max<size_t>(chunk_chars, 1), out);
    out->ok = e.encode_to_buffer(text, allowed, &out->ids, &out->error);
    return;
  }
  Utf8Buffer converted;
  std::string pending;
  for (size_t i = begin, step = std::max<size_t>(chunk_chars, 1); i < end;) {
    size_t stop = step < end - i ? i + step : end;
    // A surrogate pair stays in one chunk, to be joined into its character.
    while (stop < end && is_high_surrogate(sv, stop - 1)) ++stop;
    const std::string_view piece = to_utf8(units(sv, i, stop), &converted);
    const size_t before = pending.size();
    pending.append(piece);
    i = stop;
    if (holds_disallowed(pending, before > back ? before - back : 0)) return;
    if (out->ok && i == end) {
      out->ok = e.encode_to_buffer(pending, allowed, &out->ids, &out->error);
      out->flush();
      return;
    }
    size_t consumed = 0;
    if (out->ok) out->ok = e.encode_prefix(pending, allowed, &out->ids, &consumed, &out->error);
    out->flush();
    if (out->ok) {
      pending.erase(0, consumed);
      if (pending.size() > kStalled * std::max(piece.size(), kMinStall)) step = end - i;
    } else {  // a piece failed: only disallowed specials are still looked for
      pending.erase(0, pending.size() > back ? pending.size() - back : 0);
    }
  }
}

// A disallowed special that starts before code unit `cut` and ends after it, or "".
std::string special_across(const StrView& sv, size_t cut, const SpecialMatcher& disallowed) {
  const size_t back = std::max<size_t>(disallowed.max_length(), 1) - 1;  // >= the characters it spans
  if (back == 0) return {};
  size_t lo = cut > back ? cut - back : 0, hi = std::min(sv.length, cut + back);
  while (lo > 0 && is_high_surrogate(sv, lo - 1)) --lo;  // whole characters on both sides
  while (hi < sv.length && is_high_surrogate(sv, hi - 1)) ++hi;
  Utf8Buffer buffer;
  std::string window(to_utf8(units(sv, lo, cut), &buffer));
  const size_t left = window.size();
  window.append(to_utf8(units(sv, cut, hi), &buffer));
  const auto* p = reinterpret_cast<const uint8_t*>(window.data());
  for (SpecialMatcher::Match m = disallowed.find(p, window.size(), 0); m.found && m.pos < left;
       m = disallowed.find(p, window.size(), m.pos + 1)) {
    if (m.pos + m.len > left) return window.substr(m.pos, m.len);
  }
  return {};
}

nb::object to_array(uint32_t* data, size_t n) {
  size_t shape[1] = {n};
  nb::capsule owner(data, [](void* p) noexcept { std::free(p); });
  return nb::cast(nb::ndarray<nb::numpy, uint32_t, nb::ndim<1>>(data, 1, shape, owner));
}

// The parts between `cuts` on up to `threads` threads, then joined (see above).
nb::object encode_parts(const Encoding& e, nb::handle text, const SpecialMatcher& allowed,
                        const SpecialMatcher* disallowed, size_t chunk_chars, const std::vector<size_t>& cuts,
                        int threads) {
  const StrView sv = str_view(text);
  std::vector<size_t> bounds{0};
  for (size_t c : cuts) {
    if (c <= bounds.back() || c >= sv.length) value_error("cuts must increase inside the text");
    bounds.push_back(c);
  }
  bounds.push_back(sv.length);
  const size_t n = bounds.size() - 1;
  std::vector<Encoded> parts(n);
  std::vector<PartIds> ids(n);
  std::vector<std::string> across(n);  // the special across the cut after part k
  uint32_t* data = nullptr;
  size_t total = 0;
  bool out_of_memory = false;
  {
    nb::gil_scoped_release release;  // the str is alive and immutable: its units are read without the GIL
    std::atomic<bool> found{false}, oom{false};
    parallel_for(n, threads, [&](size_t k) {
      Encoded& part = parts[k];
      part.spill = &ids[k];
      try {
        if (disallowed != nullptr && k + 1 < n) across[k] = special_across(sv, bounds[k + 1], *disallowed);
        if (!across[k].empty()) found = true;
        encode_units(e, sv, bounds[k], bounds[k + 1], allowed, disallowed, chunk_chars, &part);
      } catch (const std::bad_alloc&) {
        oom = true;
      }
      if (!part.special.empty()) found = true;
      if (found || oom) ids[k].reset();  // the ids are not wanted any more
    });
    out_of_memory = oom;
    if (!found && !oom) {
      for (const PartIds& p : ids) total += p.size();
      data = static_cast<uint32_t*>(std::malloc(std::max<size_t>(total, 1) * sizeof(uint32_t)));
      if (data != nullptr) {
        size_t at = 0;
        for (PartIds& p : ids) {
          if (p.size() != 0) std::memcpy(data + at, p.data(), p.size() * sizeof(uint32_t));
          at += p.size();
          p.reset();  // copied: its pages go back before the next part is copied
        }
      }
    }
  }
  if (out_of_memory) throw std::bad_alloc();
  for (size_t k = 0; k < n; ++k) {
    if (!parts[k].special.empty()) return nb::make_tuple(nb::none(), to_bytes(parts[k].special));
    if (!across[k].empty()) return nb::make_tuple(nb::none(), to_bytes(across[k]));
  }
  for (const Encoded& part : parts) {
    if (!part.ok) {
      std::free(data);
      value_error(part.error);
    }
  }
  if (data == nullptr) throw std::bad_alloc();
  return to_array(data, total);
}

}  // namespace

nb::object encode_to_array(const Encoding& e, nb::handle text, const SpecialMatcher& allowed,
                           const SpecialMatcher* disallowed, Py_ssize_t chunk_chars, const std::vector<size_t>& cuts,
                           int threads) {
  if (!cuts.empty() && chunk_chars > 0) {
    return encode_parts(e, text, allowed, disallowed, static_cast<size_t>(chunk_chars), cuts, threads);
  }
  Encoded out;
  const StrView sv = str_view(text);
  std::string_view whole = cached_utf8(text);
  if (whole.data() == nullptr && chunk_chars <= 0) whole = utf8(text);  // raises on lone surrogates
  if (whole.data() != nullptr) {
    nb::gil_scoped_release release;
    StrView as_utf8;
    as_utf8.data = whole.data();
    as_utf8.length = whole.size();
    encode_units(e, as_utf8, 0, whole.size(), allowed, disallowed, 0, &out);
  } else {
    nb::gil_scoped_release release;
    encode_units(e, sv, 0, sv.length, allowed, disallowed, static_cast<size_t>(chunk_chars), &out);
  }
  if (!out.special.empty()) return nb::make_tuple(nb::none(), to_bytes(out.special));
  if (!out.ok) value_error(out.error);
  const size_t n = out.ids.size();
  return to_array(out.ids.release(), n);
}

}  // namespace tf::py
