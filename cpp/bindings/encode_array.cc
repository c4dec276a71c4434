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
// ids are the whole's), and the parts go the way of encode_ordinary's (one_text.cc, the
// parts read in place from the str, each converted whole); a disallowed special across a
// cut is looked for by special_across below.  Which special is named when two overlap
// across a cut may differ from the one-thread answer (the first found in part order).
#include "bindings/encode_array.h"

#include <nanobind/ndarray.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "bindings/one_text.h"
#include "common/id_buffer.h"

namespace tf::py {

namespace {

bool is_high_surrogate(const StrView& v, size_t i) {
  if (v.kind == PyUnicode_2BYTE_KIND) return (static_cast<const uint16_t*>(v.data)[i] & 0xFC00) == 0xD800;
  if (v.kind == PyUnicode_4BYTE_KIND) return (static_cast<const uint32_t*>(v.data)[i] & 0xFFFFFC00u) == 0xD800;
  return false;
}

// What encoding some text gave: its ids, or the error, or the disallowed special found.
struct Encoded {
  IdBuffer ids;
  bool ok = true;
  std::string error;
  std::string special;  // the disallowed special found, if any
};

constexpr size_t kStalled = 4, kMinStall = size_t{1} << 16;

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
      return;
    }
    size_t consumed = 0;
    if (out->ok) out->ok = e.encode_prefix(pending, allowed, &out->ids, &consumed, &out->error);
    if (out->ok) {
      pending.erase(0, consumed);
      if (pending.size() > kStalled * std::max(piece.size(), kMinStall)) step = end - i;
    } else {  // a piece failed: only disallowed specials are still looked for
      pending.erase(0, pending.size() > back ? pending.size() - back : 0);
    }
  }
}

}  // namespace

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

nb::object uint32_array(uint32_t* data, size_t n) {
  size_t shape[1] = {n};
  nb::capsule owner(data, [](void* p) noexcept { std::free(p); });
  return nb::cast(nb::ndarray<nb::numpy, uint32_t, nb::ndim<1>>(data, 1, shape, owner));
}


nb::object encode_to_array(const Encoding& e, nb::handle text, const SpecialMatcher& allowed,
                           const SpecialMatcher* disallowed, Py_ssize_t chunk_chars, const std::vector<size_t>& cuts,
                           int threads) {
  if (!cuts.empty()) return encode_one_text(e, text, cuts, &allowed, disallowed, threads, OneTextOutput::kArray);
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
  return uint32_array(out.ids.release(), n);
}

}  // namespace tf::py
