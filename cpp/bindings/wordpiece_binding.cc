// Bindings of the native WordPiece (cpp/models/wordpiece/) and the BERT pipeline
// (cpp/pipeline/bert_encoder.h): `WordPieceModel` cuts single words (for any caller that
// pre-tokenizes itself, such as llama.cpp's WPM vocabularies), `BertEncoder` runs a whole
// BERT tokenizer.json pipeline up to the post-processor.  Batches run without the GIL.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "bindings/common.h"
#include "models/wordpiece/wordpiece.h"
#include "normalize/bert_chars.h"
#include "pipeline/bert_encoder.h"

namespace tf::py {
namespace {

using tf::wordpiece::BertCharTable;
using tf::wordpiece::BertEncoder;
using tf::wordpiece::BertResult;
using tf::wordpiece::SubwordSpan;
using tf::wordpiece::WordPiece;

struct WordPieceHandle {
  std::shared_ptr<const WordPiece> model;
};

struct BertHandle {
  std::unique_ptr<BertEncoder> encoder;
  nb::list token_refs;           // id -> token str (None for ids without one)
  std::vector<PyObject*> tokens;  // borrowed from token_refs
};

// Encodes the texts on up to `threads` threads (GIL released).
std::vector<BertResult> run_batch(const BertEncoder& encoder, nb::list texts, int threads) {
  nb::tuple items = snapshot(texts);
  const size_t n = items.size();
  std::vector<std::string_view> views(n);
  for (size_t i = 0; i < n; ++i) views[i] = utf8(items[i]);
  std::vector<BertResult> results(n);
  nb::gil_scoped_release release;
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1)) < n;) encoder.encode(views[i], results[i]);
  };
  const size_t t = std::min<size_t>(std::max(1, threads), std::max<size_t>(1, n / 4));
  std::vector<std::thread> pool;
  for (size_t k = 1; k < t; ++k) pool.emplace_back(work);
  work();
  for (std::thread& th : pool) th.join();
  return results;
}

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

// (ids, tokens, offsets, word ids) lists of one result with the template's special tokens
// before and after it (offsets (0, 0), word id None), or None for the Python pipeline.
nb::object lists_of(const BertHandle& h, const BertResult& r, const std::vector<uint32_t>& pre_ids,
                    const std::vector<PyObject*>& pre_toks, const std::vector<uint32_t>& suf_ids,
                    const std::vector<PyObject*>& suf_toks, PyObject* zero_span) {
  if (r.fallback) return nb::none();
  const size_t a = pre_ids.size(), m = r.ids.size(), n = a + m + suf_ids.size();
  std::vector<uint32_t> ids;
  ids.reserve(n);
  ids.insert(ids.end(), pre_ids.begin(), pre_ids.end());
  ids.insert(ids.end(), r.ids.begin(), r.ids.end());
  ids.insert(ids.end(), suf_ids.begin(), suf_ids.end());
  PyObject* id_list = new_id_list(ids.data(), n);
  if (id_list == nullptr) throw nb::python_error();
  nb::object id_obj = nb::steal(id_list);
  const size_t table = h.tokens.size();
  nb::object toks = build_list(n, [&](size_t i) -> PyObject* {
    PyObject* t = i < a ? pre_toks[i] : i >= a + m ? suf_toks[i - a - m] : (ids[i] < table ? h.tokens[ids[i]] : Py_None);
    Py_INCREF(t);
    return t;
  });
  nb::object offs = build_list(n, [&](size_t i) -> PyObject* {
    if (i < a || i >= a + m) {
      Py_INCREF(zero_span);
      return zero_span;
    }
    PyObject* x = cached_int(r.starts[i - a]);
    PyObject* y = cached_int(r.ends[i - a]);
    if (x == nullptr || y == nullptr) {
      Py_XDECREF(x);
      Py_XDECREF(y);
      return nullptr;
    }
    PyObject* t = PyTuple_New(2);
    if (t == nullptr) {
      Py_DECREF(x);
      Py_DECREF(y);
      return nullptr;
    }
    PyTuple_SET_ITEM(t, 0, x);
    PyTuple_SET_ITEM(t, 1, y);
    PyObject_GC_UnTrack(t);  // two ints: no cycle possible, so the collector need not visit it
    return t;
  });
  nb::object words = build_list(n, [&](size_t i) -> PyObject* {
    if (i < a || i >= a + m) {
      Py_INCREF(Py_None);
      return Py_None;
    }
    return cached_int(r.words[i - a]);
  });
  return nb::make_tuple(id_obj, toks, offs, words);
}

template <typename T>
nb::object array_of(const std::vector<T>& v) {
  T* data = static_cast<T*>(std::malloc(std::max<size_t>(v.size(), 1) * sizeof(T)));
  if (data == nullptr) throw std::bad_alloc();
  if (!v.empty()) std::memcpy(data, v.data(), v.size() * sizeof(T));
  nb::capsule owner(data, [](void* p) noexcept { std::free(p); });
  size_t shape[1] = {v.size()};
  return nb::cast(nb::ndarray<nb::numpy, T, nb::ndim<1>>(data, 1, shape, owner));
}

nb::object result_of(const BertResult& r) {
  if (r.fallback) return nb::none();
  return nb::make_tuple(array_of(r.ids), array_of(r.starts), array_of(r.ends), array_of(r.words));
}

}  // namespace

void bind_wordpiece(nb::module_& m) {
  nb::class_<WordPieceHandle>(m, "WordPieceModel",
                              "tf::wordpiece::WordPiece: greedy longest-match WordPiece over a vocab.")
      .def(
          "__init__",
          [](WordPieceHandle* self, std::vector<std::pair<std::string, int32_t>> vocab, int32_t unk_id,
             std::string prefix, size_t max_chars) {
            for (const auto& [tok, id] : vocab) {
              if (tok.empty()) throw nb::value_error("WordPieceModel: empty token in the vocab");
              if (id < 0) throw nb::value_error("WordPieceModel: negative id in the vocab");
            }
            std::sort(vocab.begin(), vocab.end());
            for (size_t i = 1; i < vocab.size(); ++i) {
              if (vocab[i].first == vocab[i - 1].first) throw nb::value_error("WordPieceModel: duplicate token");
            }
            new (self) WordPieceHandle{std::make_shared<WordPiece>(std::move(vocab), unk_id, prefix, max_chars)};
          },
          nb::arg("vocab"), nb::arg("unk_id"), nb::arg("prefix"), nb::arg("max_chars"),
          "vocab: (token, id) pairs; words over max_chars characters, or with no match, give unk_id.")
      .def(
          "tokenize",
          [](const WordPieceHandle& self, nb::str word) {
            std::string_view w = utf8(word);
            const auto* p = reinterpret_cast<const uint8_t*>(w.data());
            std::vector<uint32_t> char_of(w.size() + 1);
            uint32_t chars = 0;
            for (size_t i = 0; i < w.size(); ++i) {
              if ((p[i] & 0xC0) != 0x80 && i > 0) ++chars;
              char_of[i] = chars;
            }
            const uint32_t total = w.empty() ? 0 : chars + 1;
            char_of[w.size()] = total;
            std::vector<SubwordSpan> pieces;
            if (!w.empty()) self.model->tokenize(w, total, pieces);
            nb::list out;
            for (const SubwordSpan& pc : pieces) out.append(nb::make_tuple(pc.id, char_of[pc.start], char_of[pc.end]));
            return out;
          },
          nb::arg("word"), "(id, char start, char end) per piece of one word.")
      .def(
          "encode_words",
          [](const WordPieceHandle& self, nb::list words) {
            nb::tuple items = snapshot(words);
            std::vector<std::string_view> views(items.size());
            std::vector<size_t> chars(items.size());
            for (size_t i = 0; i < items.size(); ++i) {
              views[i] = utf8(items[i]);
              chars[i] = static_cast<size_t>(PyUnicode_GetLength(items[i].ptr()));
            }
            std::vector<SubwordSpan> pieces;
            {
              nb::gil_scoped_release release;
              for (size_t i = 0; i < views.size(); ++i) {
                if (!views[i].empty()) self.model->tokenize(views[i], chars[i], pieces);
              }
            }
            std::vector<uint32_t> ids(pieces.size());
            for (size_t i = 0; i < pieces.size(); ++i) ids[i] = static_cast<uint32_t>(pieces[i].id);
            PyObject* list = new_id_list(ids.data(), ids.size());
            if (list == nullptr) throw nb::python_error();
            return nb::steal(list);
          },
          nb::arg("words"), "The ids of the words, one after another (empty words give nothing).");

  nb::class_<BertHandle>(m, "BertEncoder",
                         "tf::wordpiece::BertEncoder: added tokens, BertNormalizer, BertPreTokenizer, WordPiece.")
      .def(
          "__init__",
          [](BertHandle* self, const WordPieceHandle& model, nb::bytes flags, nb::dict mapped, bool nfd,
             std::vector<std::pair<std::string, uint32_t>> added) {
            std::vector<std::pair<uint32_t, std::vector<uint32_t>>> maps;
            for (auto [k, v] : mapped) {
              const uint32_t cp = nb::cast<uint32_t>(k);
              nb::str s = nb::borrow<nb::str>(v);
              std::vector<uint32_t> cps;
              for (Py_ssize_t i = 0, n = PyUnicode_GetLength(s.ptr()); i < n; ++i) {
                cps.push_back(PyUnicode_ReadChar(s.ptr(), i));
              }
              maps.emplace_back(cp, std::move(cps));
            }
            std::string f(static_cast<const char*>(flags.c_str()), flags.size());
            if (f.size() != BertCharTable::kLimit) throw nb::value_error("BertEncoder: flags must hold 0x110000 bytes");
            auto table = std::make_shared<BertCharTable>(std::move(f), maps, nfd);
            new (self) BertHandle{std::make_unique<BertEncoder>(model.model, std::move(table), std::move(added))};
          },
          nb::arg("model"), nb::arg("flags"), nb::arg("mapped"), nb::arg("nfd"), nb::arg("added"),
          "Tables from tokenforge.tokenizer.bert_chars; added: (content, id) of raw-text added tokens.")
      .def(
          "encode",
          [](const BertHandle& self, nb::str text) {
            std::string_view t = utf8(text);
            BertResult r;
            {
              nb::gil_scoped_release release;
              self.encoder->encode(t, r);
            }
            return result_of(r);
          },
          nb::arg("text"), "(ids, starts, ends, words) as numpy arrays, or None: use the Python pipeline.")
      .def(
          "encode_batch",
          [](const BertHandle& self, nb::list texts, int num_threads, bool ids_only) {
            std::vector<BertResult> results = run_batch(*self.encoder, texts, num_threads);
            nb::list out;
            for (const BertResult& r : results) {
              if (ids_only) {
                if (r.fallback) {
                  out.append(nb::none());
                  continue;
                }
                PyObject* list = new_id_list(reinterpret_cast<const uint32_t*>(r.ids.data()), r.ids.size());
                if (list == nullptr) throw nb::python_error();
                out.append(nb::steal(list));
              } else {
                out.append(result_of(r));
              }
            }
            return out;
          },
          nb::arg("texts"), nb::arg("num_threads") = 1, nb::arg("ids_only") = false,
          "encode() of each text, on native threads (with ids_only, each text's ids list or None).")
      .def(
          "set_tokens",
          [](BertHandle& self, nb::list tokens) {
            self.token_refs = tokens;
            self.tokens.assign(tokens.size(), Py_None);
            for (size_t i = 0; i < tokens.size(); ++i) self.tokens[i] = tokens[i].ptr();
          },
          nb::arg("tokens"), "The token str of each id (a list indexed by id), for encode_lists.")
      .def(
          "encode_lists",
          [](const BertHandle& self, nb::list texts, int num_threads, std::vector<uint32_t> pre_ids, nb::list pre_tokens,
             std::vector<uint32_t> suf_ids, nb::list suf_tokens) {
            if (pre_ids.size() != pre_tokens.size() || suf_ids.size() != suf_tokens.size()) {
              throw nb::value_error("encode_lists: ids and tokens of different lengths");
            }
            std::vector<PyObject*> pre_toks, suf_toks;
            for (nb::handle t : pre_tokens) pre_toks.push_back(t.ptr());
            for (nb::handle t : suf_tokens) suf_toks.push_back(t.ptr());
            nb::object zero_span = nb::make_tuple(0, 0);
            std::vector<BertResult> results = run_batch(*self.encoder, texts, num_threads);
            nb::list out;
            for (const BertResult& r : results) {
              out.append(lists_of(self, r, pre_ids, pre_toks, suf_ids, suf_toks, zero_span.ptr()));
            }
            return out;
          },
          nb::arg("texts"), nb::arg("num_threads"), nb::arg("prefix_ids"), nb::arg("prefix_tokens"),
          nb::arg("suffix_ids"), nb::arg("suffix_tokens"),
          "(ids, tokens, offsets, word ids) lists of each text between the given special tokens, or None.");
}

}  // namespace tf::py
