// tokenforge._native.ByteLevelDocs: byte-level tokenizer.json files (tokenizer/native.py) encoded
// into documents (bindings/doc_lists.h) with their character offsets worked out on the worker
// threads, so that the calling thread only wraps each document and, when a list is read,
// fills it from arrays.
//
// Per text, on a pool thread (bindings/batch.h): the byte-level engine's ids (tf::Encoding,
// every special of `allowed` matched), then each token's character span from the id's byte
// length and the UTF-8 lead bytes it covers (from the character holding its first byte to
// the one after the character holding its last, as tokenizers reports them), and with
// `trim` the ByteLevel post-processor's offset trimming: a token's leading / trailing
// space-like characters (per id, `lead` / `trail`) moved out of its span, the first token's
// single leading space kept when `add_prefix_space`.  The pure-Python twin is
// processors.trim_offsets over tokens and offsets.
//
// A text holding a surrogate raises ValueError, as str.encode would fail on it (the first
// such text of the batch).  Left out: word ids (tokenizer/native.py makes them from the ids,
// only when read) and text the normalizer would change (the caller checks it first).
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bindings/batch.h"
#include "bindings/common.h"
#include "bindings/doc_lists.h"
#include "pipeline/encoding.h"
#include "pipeline/special_matcher.h"

namespace tf::py {

namespace {

using U32 = nb::ndarray<const uint32_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
using U8 = nb::ndarray<const uint8_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

// Per id: byte length (0: no token), leading / trailing space-like characters, token str.
struct ByteLevelTables {
  std::vector<uint32_t> lens;
  std::vector<uint8_t> lead, trail;
  nb::tuple tokens;
};

// How the character spans are finished.
struct Trim {
  bool on, add_prefix_space;
};

// The tokens of a chunk of texts: ids with their character spans.
struct SpanChunk {
  std::vector<uint32_t> ids, starts, ends;
};

struct BlFrame {
  DocFrame frame;
  nb::tuple tokens;  // the tables' (kept alive with the documents)
};

struct ByteLevelDoc {
  std::shared_ptr<const SpanChunk> c;
  size_t begin, end;
  std::shared_ptr<const BlFrame> frame;
  bool ids_only;
  // The offsets list (with ids_only, the ids list) when made while the pool still encodes
  // (see encode_docs), handed out once: the Encoding keeps it.
  nb::object ids_list, offsets_list;
  size_t size() const { return end - begin + frame->frame.around(); }
};

// How many of the n (<= 8) bytes at p begin a character (are no UTF-8 continuation byte),
// without a branch per byte; p + 8 must be readable.
inline uint32_t chars_begun8(const uint8_t* p, size_t n) {
  uint64_t x;
  std::memcpy(&x, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  x = __builtin_bswap64(x);
#endif
  const uint64_t cont = x & ~(x << 1) & 0x8080808080808080ull;  // 10xxxxxx: bit 7 set, bit 6 clear
  const uint64_t mask = n >= 8 ? ~0ull : (1ull << (8 * n)) - 1;
  return static_cast<uint32_t>(n) - static_cast<uint32_t>(__builtin_popcountll(cont & mask));
}

// Appends the character spans of ids [first, ids.size()) of the UTF-8 `text` to c.starts /
// c.ends; false with *error when the tokens' bytes do not add up to the text's.
bool add_spans(const ByteLevelTables& t, const Trim& trim, std::string_view text, size_t first, SpanChunk* c,
               std::string* error) {
  const uint8_t* data = reinterpret_cast<const uint8_t*>(text.data());
  const size_t size = text.size();
  const size_t n = c->ids.size();
  c->starts.resize(n);
  c->ends.resize(n);
  size_t pos = 0;
  uint32_t chars = 0;  // characters begun in [0, pos)
  for (size_t i = first; i < n; ++i) {
    const uint32_t id = c->ids[i];
    const size_t len = id < t.lens.size() ? t.lens[id] : 0;
    if (len == 0 || len > size - pos) {
      *error = "id " + std::to_string(id) + " has no token of known length, or the tokens outrun the text";
      return false;
    }
    uint32_t a = chars - (chars > 0 && (data[pos] & 0xC0) == 0x80 ? 1 : 0);
    if (len <= 8 && size - pos >= 8) {
      chars += chars_begun8(data + pos, len);
    } else {
      for (size_t k = pos; k < pos + len; ++k) chars += (data[k] & 0xC0) != 0x80;
    }
    pos += len;
    uint32_t b = chars;
    if (trim.on) {
      uint32_t lead = t.lead[id];
      const uint32_t trail = t.trail[id];
      if (lead > 0) {
        if (trim.add_prefix_space && lead == 1 && (i == first || a == 0)) lead = 0;
        a = std::min(a + lead, b);
      }
      if (trail > 0 && b >= trail) b = std::max(b - trail, a);
    }
    c->starts[i] = a;
    c->ends[i] = b;
  }
  if (pos != size) {
    *error = "the tokens hold " + std::to_string(pos) + " bytes, the text " + std::to_string(size);
    return false;
  }
  return true;
}

// Appends the ids of `text` (UTF-8, encoded by `enc` with the specials of `allowed`) to
// spans->ids and, unless ids_only, their character spans; false with *error as add_spans.
bool encode_into(const ByteLevelTables& t, const Encoding& enc, const SpecialMatcher& allowed, const Trim& how,
                 std::string_view text, bool ids_only, SpanChunk* spans, std::string* error) {
  const size_t first = spans->ids.size();
  return enc.encode(text, allowed, &spans->ids, error) &&
         (ids_only || add_spans(t, how, text, first, spans, error));
}

nb::object doc_offset_list(const ByteLevelDoc& d);

// On more than one thread, each document's offsets list (with ids_only, its ids list) is
// made in the build step, on the calling thread while the pool threads encode the next
// chunks: made later, when the Encoding's field is first read, it was a serial tail after
// the parallel encode that held two threads well short of twice one's speed.  The ids
// list of a document with offsets stays lazy (made in the build step too, it cost more
// than it saved), and on one thread every list does (nothing to overlap with).
nb::list encode_docs(const ByteLevelTables& t, const Encoding& enc, const SpecialMatcher& allowed, nb::list texts,
                     int threads, std::vector<uint32_t> prefix_ids, nb::list prefix_tokens,
                     std::vector<uint32_t> suffix_ids, nb::list suffix_tokens, bool trim, bool add_prefix_space,
                     bool ids_only) {
  auto frame = std::make_shared<const BlFrame>(
      BlFrame{DocFrame(std::move(prefix_ids), prefix_tokens, std::move(suffix_ids), suffix_tokens), t.tokens});
  const Trim how{trim, add_prefix_space};
  const nb::tuple items = snapshot(texts);
  const size_t n = items.size();
  const std::vector<StrView> views = str_views(items);
  const std::vector<size_t> starts = batch_chunks(views, threads);
  struct alignas(64) Chunk {  // own cache line: two threads fill neighbouring chunks
    std::shared_ptr<SpanChunk> spans;
    std::vector<size_t> ends;  // item k of the chunk is tokens [ends[k - 1], ends[k])
    bool failed = false;
    std::string error;
  };
  std::vector<Chunk> chunks(starts.size() - 1);
  const bool lists_now = has_pool_threads(chunks.size(), threads);
  ResultList out(n);
  NoGc no_gc;
  const bool ok = run_batch_overlapped(
      chunks.size(), threads,
      [&](size_t c) {
        Chunk& ch = chunks[c];
        thread_local Utf8Buffer buffer;
        auto spans = std::make_shared<SpanChunk>();
        size_t bytes = 0;
        for (size_t i = starts[c]; i < starts[c + 1]; ++i) bytes += approx_utf8_size(views[i]);
        spans->ids.reserve(bytes / 3 + 16);
        ch.ends.reserve(starts[c + 1] - starts[c]);
        for (size_t i = starts[c]; i < starts[c + 1]; ++i) {
          const std::string_view text = to_utf8(views[i], &buffer);
          if (const int64_t at = buffer.first_surrogate(); at >= 0) {
            ch.failed = true;
            ch.error = lone_surrogate_message(at);
            return;
          }
          if (!encode_into(t, enc, allowed, how, text, ids_only, spans.get(), &ch.error)) {
            ch.failed = true;
            return;
          }
          ch.ends.push_back(spans->ids.size());
        }
        ch.spans = std::move(spans);
      },
      [&](size_t c) {
        Chunk& ch = chunks[c];
        if (ch.failed) return true;  // raised below
        size_t begin = 0;
        for (size_t k = 0; k < ch.ends.size(); ++k) {
          try {
            ByteLevelDoc d{ch.spans, begin, ch.ends[k], frame, ids_only, {}, {}};
            if (lists_now && ids_only) {
              d.ids_list = held_back(doc_ids(frame->frame, ch.spans->ids.data() + begin, ch.ends[k] - begin));
            }
            if (lists_now && !ids_only) d.offsets_list = held_back(doc_offset_list(d));
            out.set(starts[c] + k, nb::cast(std::move(d)).release().ptr());
          } catch (nb::python_error& err) {
            err.restore();
            return false;
          }
          begin = ch.ends[k];
        }
        ch.spans.reset();  // the documents hold it now
        return true;
      });
  if (!ok) throw nb::python_error();
  for (const Chunk& ch : chunks) {
    if (ch.failed) value_error(ch.error);
  }
  return out.done();
}

struct BlFrameHandle {  // a frame made once (ByteLevelDocs.frame) for encode_doc
  std::shared_ptr<const BlFrame> frame;
};

// encode_docs of one text, without the batch's chunks and threads (Tokenizer.encode).
ByteLevelDoc encode_doc(const ByteLevelTables& t, const Encoding& enc, const SpecialMatcher& allowed, nb::str text,
                        const BlFrameHandle& frame, bool trim, bool add_prefix_space) {
  const StrView view = str_view(text);
  thread_local Utf8Buffer buffer;
  const std::string_view utf8 = to_utf8(view, &buffer);
  if (const int64_t at = buffer.first_surrogate(); at >= 0) value_error(lone_surrogate_message(at));
  auto spans = std::make_shared<SpanChunk>();
  std::string error;
  bool ok;
  {
    nb::gil_scoped_release release;
    spans->ids.reserve(utf8.size() / 3 + 4);
    ok = encode_into(t, enc, allowed, Trim{trim, add_prefix_space}, utf8, false, spans.get(), &error);
  }
  if (!ok) value_error(error);
  const size_t n = spans->ids.size();
  return ByteLevelDoc{std::move(spans), 0, n, frame.frame, false, {}, {}};
}

nb::object doc_token_list(const ByteLevelDoc& d) {
  const size_t n = d.end - d.begin;
  if (d.ids_only) return doc_tokens(d.frame->frame, n, [](size_t) { return PyUnicode_New(0, 0); });
  PyObject* strs = d.frame->tokens.ptr();
  const size_t known = static_cast<size_t>(PyTuple_GET_SIZE(strs));
  const uint32_t* ids = d.c->ids.data() + d.begin;
  return doc_tokens(d.frame->frame, n, [&](size_t i) -> PyObject* {
    PyObject* s = ids[i] < known ? PyTuple_GET_ITEM(strs, ids[i]) : Py_None;
    Py_INCREF(s);
    return s;
  });
}

nb::object doc_offset_list(const ByteLevelDoc& d) {
  const size_t n = d.end - d.begin;
  if (d.ids_only) return doc_offsets(d.frame->frame, nullptr, nullptr, 0, n);
  return doc_offsets(d.frame->frame, d.c->starts.data() + d.begin, d.c->ends.data() + d.begin, n);
}

// The offsets of a document whose text was normalized before it was encoded: each token's
// character span in the normalized text, (s, e), read back as (starts[s], ends[e - 1]) of the
// original text (starts/ends: native uint32 per normalized character).
nb::object doc_offset_list_through(const ByteLevelDoc& d, nb::bytes starts, nb::bytes ends) {
  const size_t n = d.end - d.begin;
  if (d.ids_only) return doc_offsets(d.frame->frame, nullptr, nullptr, 0, n);
  const size_t m = starts.size() / sizeof(uint32_t);
  if (starts.size() != ends.size() || starts.size() % sizeof(uint32_t) != 0)
    value_error("offsets_through: starts and ends must be uint32 arrays of one length");
  std::vector<uint32_t> s(m), e(m), os(n), oe(n);
  std::memcpy(s.data(), starts.c_str(), starts.size());
  std::memcpy(e.data(), ends.c_str(), ends.size());
  const uint32_t* a = d.c->starts.data() + d.begin;
  const uint32_t* b = d.c->ends.data() + d.begin;
  for (size_t j = 0; j < n; ++j) {
    if (a[j] >= b[j] || b[j] > m) value_error("offsets_through: a token outside the normalized text");
    os[j] = s[a[j]];
    oe[j] = e[b[j] - 1];
  }
  return doc_offsets(d.frame->frame, os.data(), oe.data(), n);
}

}  // namespace

void bind_byte_level_docs(nb::module_& m) {
  nb::class_<ByteLevelTables>(m, "ByteLevelDocs",
                              "Byte-level BPE encoded into documents with character offsets (tokenizer/native.py).")
      .def(
          "__init__",
          [](ByteLevelTables* self, U32 lens, U8 lead, U8 trail, nb::tuple tokens) {
            const size_t n = lens.shape(0);
            if (lead.shape(0) != n || trail.shape(0) != n) value_error("ByteLevelDocs: tables of different lengths");
            for (size_t i = 0; i < static_cast<size_t>(PyTuple_GET_SIZE(tokens.ptr())); ++i) {
              if (!PyUnicode_Check(PyTuple_GET_ITEM(tokens.ptr(), i))) throw nb::type_error("tokens must hold strs");
            }
            new (self) ByteLevelTables{std::vector<uint32_t>(lens.data(), lens.data() + n),
                                       std::vector<uint8_t>(lead.data(), lead.data() + n),
                                       std::vector<uint8_t>(trail.data(), trail.data() + n), tokens};
          },
          nb::arg("lens"), nb::arg("lead"), nb::arg("trail"), nb::arg("tokens"),
          "Per id: byte length (uint32, 0 for no token), leading and trailing space-like characters (uint8, "
          "for ByteLevel's offset trimming), token str (a tuple).")
      .def("encode_docs", &encode_docs, nb::arg("engine"), nb::arg("allowed"), nb::arg("texts"), nb::arg("threads"),
           nb::arg("prefix_ids"), nb::arg("prefix_tokens"), nb::arg("suffix_ids"), nb::arg("suffix_tokens"),
           nb::arg("trim"), nb::arg("add_prefix_space"), nb::arg("ids_only") = false,
           "A ByteLevelDoc for each text (no lone surrogates) between the given special tokens, encoded by `engine` "
           "with the specials of `allowed`, on native threads; with `trim`, offsets trimmed as ByteLevel's "
           "post-processor does; with ids_only, no offsets (encode_batch_fast).\n\nRaises:\n    ValueError: a byte "
           "the vocabulary cannot encode, or an id the tables do not know.")
      .def(
          "frame",
          [](const ByteLevelTables& t, std::vector<uint32_t> prefix_ids, nb::list prefix_tokens,
             std::vector<uint32_t> suffix_ids, nb::list suffix_tokens) {
            return BlFrameHandle{std::make_shared<const BlFrame>(
                BlFrame{DocFrame(std::move(prefix_ids), prefix_tokens, std::move(suffix_ids), suffix_tokens), t.tokens})};
          },
          nb::arg("prefix_ids"), nb::arg("prefix_tokens"), nb::arg("suffix_ids"), nb::arg("suffix_tokens"),
          "The special tokens before and after a text, made once for encode_doc.")
      .def("encode_doc", &encode_doc, nb::arg("engine"), nb::arg("allowed"), nb::arg("text"), nb::arg("frame"),
           nb::arg("trim"), nb::arg("add_prefix_space"),
           "encode_docs of one text in a frame made by `frame`, without the batch's threads.");

  nb::class_<BlFrameHandle>(m, "ByteLevelFrame", "The special tokens around a text, for ByteLevelDocs.encode_doc.");

  nb::class_<ByteLevelDoc>(m, "ByteLevelDoc", "One text of ByteLevelDocs.encode_docs; its lists built on request.")
      .def("__len__", &ByteLevelDoc::size)
      .def("ids", [](ByteLevelDoc& d) {
        if (d.ids_list.is_valid()) return hand_out(d.ids_list);
        return doc_ids(d.frame->frame, d.c->ids.data() + d.begin, d.end - d.begin);
      })
      .def("tokens", &doc_token_list)
      .def("offsets", [](ByteLevelDoc& d) { return d.offsets_list.is_valid() ? hand_out(d.offsets_list) : doc_offset_list(d); })
      .def("offsets_through", &doc_offset_list_through, nb::arg("starts"), nb::arg("ends"),
           "The offsets in the original text of a document whose text was normalized first: starts/ends "
           "give each normalized character's original span (native uint32 bytes).")
      .def("word_ids", [](const ByteLevelDoc& d) {
        return doc_words(d.frame->frame, nullptr, 0, d.end - d.begin);  // all None: word ids come from Python
      }, "Word ids all None (the caller computes the text's from its ids).")
      .def("text_ids", [](const ByteLevelDoc& d) { return to_list(d.c->ids.data() + d.begin, d.end - d.begin); },
           "The text's ids, without the frame.")
      .def("window", [](const ByteLevelDoc& d, size_t a, size_t b) {
        if (a > b || b > d.end - d.begin) value_error("ByteLevelDoc.window: tokens out of range");
        return ByteLevelDoc{d.c, d.begin + a, d.begin + b, d.frame, d.ids_only, {}, {}};
      }, nb::arg("a"), nb::arg("b"), kWindowDoc)
      .def_prop_ro("ids_only", [](const ByteLevelDoc& d) { return d.ids_only; })
      .def_prop_ro("prefix_len", [](const ByteLevelDoc& d) { return d.frame->frame.pre_ids.size(); });
}

}  // namespace tf::py
