// Binding of tf::Encoding and tf::SpecialMatcher as tokenforge._native.Encoding / SpecialSet.
// Converts arguments with the GIL held, releases it around every loop over text (a batch's
// calling thread takes it back between its chunks to make the lists of finished ones).
#include <nanobind/ndarray.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "bindings/batch.h"
#include "bindings/common.h"
#include "encoding/encoding.h"

#include <algorithm>
#include <string>

namespace tf::py {

namespace {

using Pairs = std::vector<std::pair<std::string, uint32_t>>;

Pairs ranks_from_dict(nb::dict d, bool keys_are_str) {
  Pairs out;
  out.reserve(d.size());
  for (auto [k, v] : d) {
    std::string_view key = keys_are_str ? utf8(k) : bytes_view(k);
    long long id = nb::cast<long long>(v);
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

// About the UTF-8 length of a str, to balance chunks (exact for ASCII).
size_t approx_utf8_size(const StrView& v) {
  if (v.ascii) return v.length;
  return v.length * (v.kind == PyUnicode_1BYTE_KIND ? 1 : v.kind == PyUnicode_2BYTE_KIND ? 2 : 3);
}

// encode() or encode_ordinary() of every str, in byte-balanced chunks on the pool while
// the calling thread builds finished chunks' lists (see bindings/batch.h).  Only the
// views are taken with the GIL; each worker makes the UTF-8 of its texts, so that
// conversion runs in parallel too and no UTF-8 copy is left cached on the strs.
// Returns the list of id lists.  Items are checked in order, as tiktoken's encode_batch
// checks them: if some item holds a special of `disallowed` (nullptr: none is), and no
// earlier item failed, returns (item index, that special's bytes) instead, for the
// caller to raise its error; on an item that cannot be encoded, raises its ValueError.
nb::object encode_many(const Encoding& enc, nb::list texts, const SpecialMatcher* allowed,
                       const SpecialMatcher* disallowed, int threads) {
  const nb::tuple items = snapshot(texts);
  const size_t n = items.size();
  std::vector<StrView> views;
  views.reserve(n);
  for (nb::handle t : items) views.push_back(str_view(t));
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
          std::string_view text;
          if (views[i].ascii) {
            text = std::string_view(static_cast<const char*>(views[i].data), views[i].length);
          } else {
            text = to_utf8(views[i], &utf8_buffer);
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
  nb::class_<SpecialMatcher>(m, "SpecialSet", "A set of special tokens to match in text (bytes -> id).")
      .def(nb::init<Pairs>(), nb::arg("specials"))
      .def("find", [](const SpecialMatcher& s, nb::handle text) -> nb::object {
        // A non-ASCII str is searched a chunk at a time (overlapping by the longest special)
        // so that no UTF-8 copy of the whole text is made.
        constexpr Py_ssize_t kChunk = Py_ssize_t{1} << 20;
        Py_ssize_t length = PyUnicode_GET_LENGTH(text.ptr());
        bool whole = PyUnicode_IS_COMPACT_ASCII(text.ptr()) || length <= kChunk;
        Py_ssize_t overlap = static_cast<Py_ssize_t>(s.max_length());
        for (Py_ssize_t i = 0; i < length || i == 0; i += kChunk) {
          nb::object chunk = whole ? nb::borrow(text)
                                   : nb::steal(PyUnicode_Substring(text.ptr(), i, std::min(length, i + kChunk + overlap)));
          if (!chunk.is_valid()) throw nb::python_error();
          std::string_view v = utf8(chunk);
          SpecialMatcher::Match mt;
          {
            nb::gil_scoped_release release;
            mt = s.find(reinterpret_cast<const uint8_t*>(v.data()), v.size(), 0);
          }
          if (mt.found) return nb::make_tuple(mt.id, to_bytes(v.substr(mt.pos, mt.len)));
          if (whole) break;
        }
        return nb::none();
      }, nb::arg("text"), "The first special in text as (id, bytes), or None.");

  nb::class_<Encoding>(m, "Encoding", "tf::Encoding: specials, split scanner and byte-level BPE.")
      .def("__init__", [](Encoding* self, nb::dict ranks, nb::dict specials, int pattern) {
        Pairs r = ranks_from_dict(ranks, false);
        Pairs s = ranks_from_dict(specials, true);
        new (self) Encoding();
        std::string error;
        bool ok;
        {
          nb::gil_scoped_release release;
          ok = self->build(std::move(r), std::move(s), pattern, &error);
        }
        check(ok, error);
      }, nb::arg("mergeable_ranks"), nb::arg("special_tokens"), nb::arg("pattern"))
      .def_prop_ro("has_scanner", &Encoding::has_scanner)
      .def_prop_ro("max_token_value", &Encoding::max_token_value)
      .def("encode_ordinary", [](const Encoding& e, nb::handle text) { return encode_one(e, text, nullptr); })
      .def("encode", [](const Encoding& e, nb::handle text, const SpecialMatcher& allowed) {
        return encode_one(e, text, &allowed);
      })
      .def("encode_ordinary_batch", [](const Encoding& e, nb::list texts, int threads) {
        return encode_many(e, texts, nullptr, nullptr, threads);
      })
      .def("encode_batch", [](const Encoding& e, nb::list texts, const SpecialMatcher& allowed,
                              const SpecialMatcher* disallowed, int threads) {
        return encode_many(e, texts, &allowed, disallowed, threads);
      }, nb::arg("texts"), nb::arg("allowed"), nb::arg("disallowed").none(), nb::arg("threads"),
           "encode() of each text on up to `threads` threads; if a text holds a special of "
           "`disallowed`, (index of the first such text, the special's bytes) instead.")
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
      .def("encode_to_numpy", [](const Encoding& e, nb::handle text, const SpecialMatcher& allowed,
                                 Py_ssize_t chunk_chars) {
        IdBuffer buffer;
        std::string error;
        bool ok = true;
        if (PyUnicode_IS_COMPACT_ASCII(text.ptr()) || chunk_chars <= 0) {
          std::string_view view = utf8(text);  // ASCII: the str's own bytes, no copy
          nb::gil_scoped_release release;
          ok = e.encode_to_buffer(view, allowed, &buffer, &error);
        } else {
          // Convert to UTF-8 a chunk at a time instead of caching a UTF-8 copy of the whole
          // str, and encode each safe prefix as it arrives: peak memory ~ the result's size.
          // Text with no place to cut (a run of spaces, words with no punctuation between
          // them) would be encoded again with each chunk, quadratic in its length: once
          // the uncut text exceeds kStalled chunks, the rest is converted at once (a
          // UTF-8 copy of it, as tiktoken makes of the whole text).
          constexpr size_t kStalled = 4, kMinStall = size_t{1} << 16;
          const Py_ssize_t length = PyUnicode_GET_LENGTH(text.ptr());
          std::string pending;
          for (Py_ssize_t i = 0, step = chunk_chars; ok;) {
            const Py_ssize_t stop = step < length - i ? i + step : length;
            nb::object chunk = nb::steal(PyUnicode_Substring(text.ptr(), i, stop));
            if (!chunk.is_valid()) throw nb::python_error();
            const std::string_view piece = utf8(chunk);
            pending.append(piece);
            const size_t added = piece.size();
            chunk.reset();
            i = stop;
            nb::gil_scoped_release release;
            if (i == length) {
              ok = e.encode_to_buffer(pending, allowed, &buffer, &error);
              break;
            }
            size_t consumed = 0;
            ok = e.encode_prefix(pending, allowed, &buffer, &consumed, &error);
            pending.erase(0, consumed);
            if (pending.size() > kStalled * std::max(added, kMinStall)) step = length - i;
          }
        }
        check(ok, error);
        size_t shape[1] = {buffer.size()};
        uint32_t* data = buffer.release();
        nb::capsule owner(data, [](void* p) noexcept { std::free(p); });
        return nb::ndarray<nb::numpy, uint32_t, nb::ndim<1>>(data, 1, shape, owner);
      }, nb::arg("text"), nb::arg("allowed"), nb::arg("chunk_chars") = Py_ssize_t{1} << 20)
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
        if (bad >= 0) {
          std::string msg = "Invalid token for decoding: " + std::to_string(ids[bad]);
          PyErr_SetObject(PyExc_KeyError, nb::str(msg.c_str()).ptr());
          throw nb::python_error();
        }
        return to_bytes(out);
      })
      .def("token_bytes", [](const Encoding& e, uint32_t id) -> nb::object {
        std::string_view b;
        if (!e.token_bytes(id, &b)) return nb::none();
        return to_bytes(b);
      })
      .def("find_token", [](const Encoding& e, nb::bytes b) -> nb::object {
        uint32_t id = e.model().vocab().find(bytes_view(b));
        if (id == kNoToken) return nb::none();
        return nb::int_(id);
      })
      .def("token_byte_values", [](const Encoding& e) {
        const TokenTable& v = e.model().vocab();
        nb::list out;
        for (uint32_t id = 0; id < v.id_bound(); ++id) {
          if (v.has(id)) out.append(to_bytes(v.bytes(id)));
        }
        return out;
      });
}

}  // namespace tf::py
