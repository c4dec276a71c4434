// Binding of tf::Encoding as tokenforge._native.Encoding.
// Converts arguments with the GIL held, releases it around every loop over text (a batch's
// calling thread takes it back between its chunks to make the lists of finished ones).
#include <nanobind/ndarray.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "bindings/batch.h"
#include "bindings/common.h"
#include "bindings/cut_class_handle.h"
#include "bindings/encode_array.h"
#include "bindings/one_text.h"
#include "pipeline/encoding.h"

#include <algorithm>
#include <cstring>
#include <string>

namespace tf::py {

namespace {

using Pairs = std::vector<std::pair<std::string, uint32_t>>;

Pairs ranks_from_dict(nb::dict d, bool keys_are_str) {
  Pairs out;
  out.reserve(d.size());
  for (auto [k, v] : d) {
    std::string_view key = keys_are_str ? utf8(k) : bytes_view(k);
    long long id = -1;
    if (!PyLong_Check(v.ptr()) || !nb::try_cast<long long>(v, id)) {  // not an int, or past 64 bits
      value_error("token id must be an int in [0, 2**32 - 1), got " + std::string(nb::repr(v).c_str()));
    }
    if (id < 0 || id >= 0xFFFFFFFFll) value_error("token id out of range: " + std::to_string(id));
    out.emplace_back(std::string(key), static_cast<uint32_t>(id));
  }
  return out;
}

void check(bool ok, const std::string& error) {
  if (!ok) value_error(error);
}

nb::object encode_one(const Encoding& enc, nb::handle text, const SpecialMatcher* allowed) {
  std::string_view view = utf8(text);
  std::vector<uint32_t> ids;
  std::string error;
  bool ok;
  {
    nb::gil_scoped_release release;
    ids.reserve(view.size() / 3 + 4);
    ok = allowed ? enc.encode(view, *allowed, &ids, &error) : enc.encode_ordinary(view, &ids, &error);
  }
  check(ok, error);
  return to_list(ids);
}

// One list of the items of `lists` (lists this module just made, referenced nowhere else),
// in order.  The item pointers move over and the old lists are emptied, so no reference
// count changes: joining in Python (`ids += part`) touched every int twice, once to add a
// reference and once, freeing the part, to drop it, a serial tail as long as a good share
// of the parallel encode.
nb::object join_parts(nb::handle lists) {
  const Py_ssize_t parts = PyList_GET_SIZE(lists.ptr());
  Py_ssize_t total = 0;
  for (Py_ssize_t k = 0; k < parts; ++k) total += PyList_GET_SIZE(PyList_GET_ITEM(lists.ptr(), k));
  PyObject* flat = PyList_New(total);
  if (flat == nullptr) throw nb::python_error();
  Py_ssize_t at = 0;
  for (Py_ssize_t k = 0; k < parts; ++k) {
    auto* part = reinterpret_cast<PyListObject*>(PyList_GET_ITEM(lists.ptr(), k));
    const Py_ssize_t n = Py_SIZE(part);
    if (n > 0) std::memcpy(reinterpret_cast<PyListObject*>(flat)->ob_item + at, part->ob_item, n * sizeof(PyObject*));
    Py_SET_SIZE(part, 0);  // its items now belong to flat
    at += n;
  }
  return nb::steal(flat);
}

// encode() or encode_ordinary() of every str, in byte-balanced chunks on the pool while
// the calling thread builds finished chunks' lists (see bindings/batch.h).  Only the
// views are taken with the GIL; each worker makes the UTF-8 of its texts, so that
// conversion runs in parallel too and no UTF-8 copy is left cached on the strs.
// Returns the list of id lists.  Items are checked in order, as tiktoken's encode_batch
// checks them: if some item holds a special of `disallowed` (nullptr: none is), and no
// earlier item failed, returns (item index, that special's bytes) instead, for the
// caller to raise its error; on an item that cannot be encoded (or, `strict`, holds a lone
// surrogate), raises its ValueError.
nb::object encode_many(const Encoding& enc, nb::list texts, const SpecialMatcher* allowed,
                       const SpecialMatcher* disallowed, int threads, bool strict = false) {
  const nb::tuple items = snapshot(texts);
  const size_t n = items.size();
  const std::vector<StrView> views = str_views(items);
  const std::vector<size_t> starts = batch_chunks(n, threads, [&](size_t i) { return approx_utf8_size(views[i]); });
  struct alignas(64) Chunk {  // own cache line: two threads fill neighbouring chunks
    std::vector<uint32_t> ids;
    std::vector<size_t> ends;  // item k of the chunk is ids[ends[k - 1], ends[k])
    bool failed = false;       // then ends.size() is the index of the bad item in the chunk
    bool disallowed = false;   // failed on a disallowed special, whose bytes are `error`
    std::string error;
  };
  std::vector<Chunk> chunks(starts.size() - 1);
  ResultList out(n);
  NoGc no_gc;
  const bool ok = run_batch_overlapped(
      chunks.size(), threads,
      [&](size_t c) {
        Chunk& ch = chunks[c];
        thread_local Utf8Buffer utf8_buffer;
        size_t bytes = 0;
        for (size_t i = starts[c]; i < starts[c + 1]; ++i) bytes += approx_utf8_size(views[i]);
        ch.ids.reserve(bytes / 3 + 16);
        ch.ends.reserve(starts[c + 1] - starts[c]);
        for (size_t i = starts[c]; i < starts[c + 1]; ++i) {
          const std::string_view text = to_utf8(views[i], &utf8_buffer);
          if (strict && utf8_buffer.first_surrogate() >= 0) {
            ch.failed = true;
            ch.error = lone_surrogate_message(utf8_buffer.first_surrogate());
            return;
          }
          if (disallowed != nullptr) {
            const SpecialMatcher::Match m = disallowed->find(reinterpret_cast<const uint8_t*>(text.data()), text.size(), 0);
            if (m.found) {
              ch.failed = ch.disallowed = true;
              ch.error.assign(text.substr(m.pos, m.len));
              return;
            }
          }
          const bool item_ok = allowed ? enc.encode(text, *allowed, &ch.ids, &ch.error)
                                       : enc.encode_ordinary(text, &ch.ids, &ch.error);
          if (!item_ok) {
            ch.failed = true;
            return;
          }
          ch.ends.push_back(ch.ids.size());
        }
        utf8_buffer.trim(size_t{16} << 20);
      },
      [&](size_t c) {
        Chunk& ch = chunks[c];
        if (ch.failed) return true;  // raised below
        size_t begin = 0;
        for (size_t k = 0; k < ch.ends.size(); ++k) {
          PyObject* list = new_id_list(ch.ids.data() + begin, ch.ends[k] - begin);
          if (list == nullptr) return false;
          out.set(starts[c] + k, list);
          begin = ch.ends[k];
        }
        std::vector<uint32_t>().swap(ch.ids);  // built: free it now
        return true;
      });
  if (!ok) throw nb::python_error();
  for (size_t c = 0; c < chunks.size(); ++c) {
    const Chunk& ch = chunks[c];
    if (ch.failed && ch.disallowed) return nb::make_tuple(starts[c] + ch.ends.size(), to_bytes(ch.error));
    check(!ch.failed, ch.error);
  }
  return out.done();
}

}  // namespace

void bind_encoding(nb::module_& m) {
  nb::class_<Encoding>(m, "Encoding", "tf::Encoding: specials, split scanner and byte-level BPE.")
      .def("__init__", [](Encoding* self, nb::dict ranks, nb::dict specials, int pattern) {
        Pairs r = ranks_from_dict(ranks, false);
        Pairs s = ranks_from_dict(specials, true);
        new (self) Encoding();
        InPlaceGuard<Encoding> guard(self);
        std::string error;
        bool ok;
        {
          nb::gil_scoped_release release;
          ok = self->build(std::move(r), std::move(s), pattern, &error);
        }
        check(ok, error);
        guard.done();
      }, nb::arg("mergeable_ranks"), nb::arg("special_tokens"), nb::arg("pattern"))
      .def_prop_ro("has_scanner", &Encoding::has_scanner)
      .def("set_cut", [](Encoding& e, const CutClassHandle& cut) { e.set_cut(cut.cut); }, nb::arg("cut"),
           "Cut every segment into the stretches of `cut` before the scanner splits each; call once, before "
           "the first encode.")
      .def_prop_ro("max_token_value", &Encoding::max_token_value)
      .def("encode_ordinary", [](const Encoding& e, nb::handle text) { return encode_one(e, text, nullptr); })
      .def("encode", [](const Encoding& e, nb::handle text, const SpecialMatcher& allowed) {
        return encode_one(e, text, &allowed);
      })
      .def("encode_ordinary_batch", [](const Encoding& e, nb::list texts, int threads, bool joined) {
        nb::object lists = encode_many(e, texts, nullptr, nullptr, threads);
        return joined ? join_parts(lists) : lists;
      }, nb::arg("texts"), nb::arg("threads"), nb::arg("joined") = false,
           "encode_ordinary() of each text on up to `threads` threads; with `joined`, all their ids in one list.")
      .def("encode_batch", [](const Encoding& e, nb::list texts, const SpecialMatcher& allowed,
                              const SpecialMatcher* disallowed, int threads, bool joined, bool strict) {
        nb::object result = encode_many(e, texts, &allowed, disallowed, threads, strict);
        return joined && nb::isinstance<nb::list>(result) ? join_parts(result) : result;
      }, nb::arg("texts"), nb::arg("allowed"), nb::arg("disallowed").none(), nb::arg("threads"), nb::arg("joined") = false,
           nb::arg("strict") = false,
           "encode() of each text on up to `threads` threads (with `joined`, all their ids in one list); if a text "
           "holds a special of `disallowed`, (index of the first such text, the special's bytes) instead.  Lone "
           "surrogates are repaired as tiktoken does, or with `strict` raise ValueError as str.encode fails.")
      .def("count", [](const Encoding& e, nb::handle text, const SpecialMatcher& allowed) {
        std::string_view view = utf8(text);
        size_t n = 0;
        std::string error;
        bool ok;
        {
          nb::gil_scoped_release release;
          ok = e.count(view, allowed, &n, &error);
        }
        check(ok, error);
        return n;
      })
      .def("encode_parts", [](const Encoding& e, nb::handle text, const std::vector<size_t>& cuts,
                              const SpecialMatcher* allowed, int threads) {
        return encode_one_text(e, text, cuts, allowed, nullptr, threads, OneTextOutput::kList);
      }, nb::arg("text"), nb::arg("cuts"), nb::arg("allowed").none(), nb::arg("threads"),
           "The ids of one text as one list, its parts between `cuts` (increasing character offsets where the "
           "parts' ids are the whole's) encoded on up to `threads` threads; specials of `allowed` (None: none) "
           "as such.")
      .def("count_parts", [](const Encoding& e, nb::handle text, const std::vector<size_t>& cuts,
                             const SpecialMatcher& allowed, int threads) {
        return encode_one_text(e, text, cuts, &allowed, nullptr, threads, OneTextOutput::kCount);
      }, nb::arg("text"), nb::arg("cuts"), nb::arg("allowed"), nb::arg("threads"),
           "The number of ids of one text, as `encode_parts` would give them.")
      .def("encode_to_numpy", &encode_to_array, nb::arg("text"), nb::arg("allowed"), nb::arg("disallowed").none() = nb::none(),
           nb::arg("chunk_chars") = Py_ssize_t{1} << 20, nb::arg("cuts") = std::vector<size_t>(), nb::arg("threads") = 1,
           "encode() as a uint32 array; if text holds a special of `disallowed`, (None, its bytes) instead. "
           "With `cuts` (increasing character offsets where the ids of the parts equal the whole's), the "
           "parts are encoded on up to `threads` threads.")
      .def("encode_pieces", [](const Encoding& e, nb::list pieces) {
        const nb::tuple items = snapshot(pieces);
        std::vector<std::string_view> views;
        views.reserve(items.size());
        for (nb::handle p : items) views.push_back(bytes_view(p));
        std::vector<uint32_t> ids;
        std::string error;
        bool ok;
        {
          nb::gil_scoped_release release;
          ok = e.encode_pieces(views, &ids, &error);
        }
        check(ok, error);
        return to_list(ids);
      })
      .def("decode_bytes", [](const Encoding& e, nb::handle tokens) {
        std::vector<uint32_t> ids = ids_from(tokens);
        std::string out;
        long bad;
        {
          nb::gil_scoped_release release;
          bad = e.decode(ids.data(), ids.size(), &out);
        }
        if (bad >= 0) invalid_token(std::to_string(ids[bad]));
        return to_bytes(out);
      })
      .def("token_bytes_list", [](const Encoding& e, nb::handle tokens) {
        const std::vector<uint32_t> ids = ids_from(tokens);
        nb::list out;
        for (uint32_t id : ids) {
          std::string_view b;
          if (!e.token_bytes(id, &b)) invalid_token(std::to_string(id));
          out.append(to_bytes(b));
        }
        return out;
      }, nb::arg("tokens"), "The bytes of each token.")
      .def("decode_offsets", [](const Encoding& e, nb::handle tokens) {
        // Per token, the index of the character its first byte belongs to: the characters
        // before it, less one if it starts inside a character (a continuation byte), as
        // tiktoken's decode_with_offsets counts them.
        // Offsets past 2^32 characters (a text of over 4 GiB) are kept in 64 bits.
        const std::vector<uint32_t> ids = ids_from(tokens);
        std::string text;
        std::vector<size_t> offsets(ids.size());
        size_t chars = 0;
        for (size_t i = 0; i < ids.size(); ++i) {
          std::string_view b;
          if (!e.token_bytes(ids[i], &b)) invalid_token(std::to_string(ids[i]));
          const bool inside = !b.empty() && (static_cast<uint8_t>(b[0]) & 0xC0) == 0x80;
          offsets[i] = chars - (inside && chars > 0);
          for (char c : b) chars += (static_cast<uint8_t>(c) & 0xC0) != 0x80;
          text.append(b);
        }
        if (chars > 0xFFFFFFFFu) return nb::make_tuple(to_bytes(text), nb::cast(offsets));
        const std::vector<uint32_t> narrow(offsets.begin(), offsets.end());
        return nb::make_tuple(to_bytes(text), to_list(narrow));
      }, nb::arg("tokens"), "(the bytes of the tokens, the character offset of each token).")
      .def("token_bytes", [](const Encoding& e, uint32_t id) -> nb::object {
        std::string_view b;
        if (!e.token_bytes(id, &b)) return nb::none();
        return to_bytes(b);
      })
      .def("find_token", [](const Encoding& e, nb::bytes b) -> nb::object {
        uint32_t id = e.model().vocab().find(bytes_view(b));
        if (id == byte_level::kNoToken) return nb::none();
        return nb::int_(id);
      })
      .def("token_byte_values", [](const Encoding& e) {
        const byte_level::TokenTable& v = e.model().vocab();
        std::vector<std::string_view> tokens;
        for (uint32_t id = 0; id < v.id_bound(); ++id) {
          if (v.has(id)) tokens.push_back(v.bytes(id));
        }
        std::sort(tokens.begin(), tokens.end());  // bytewise, as tiktoken returns them
        nb::list out;
        for (std::string_view t : tokens) out.append(to_bytes(t));
        return out;
      }, "The bytes of every mergeable token, sorted bytewise.");
}

}  // namespace tf::py
