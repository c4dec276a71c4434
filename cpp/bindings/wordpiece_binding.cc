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

#include "bindings/batch.h"
#include "bindings/common.h"
#include "bindings/cut_class_handle.h"
#include "bindings/doc_lists.h"
#include "models/wordpiece/word_bpe.h"
#include "models/wordpiece/wordpiece.h"
#include "normalize/bert_chars.h"
#include "pipeline/bert_encoder.h"

namespace tf::py {
namespace {

using tf::wordpiece::BertCharTable;
using tf::wordpiece::BertEncoder;
using tf::wordpiece::BertResult;
using tf::wordpiece::SubwordSpan;
using tf::wordpiece::WordBpe;
using tf::wordpiece::WordModel;
using tf::wordpiece::WordPiece;

struct WordPieceHandle {  // a WordPiece, or (WordPieceModel.bpe) a BPE of words
  std::shared_ptr<const WordModel> model;
};

// The id -> token table, made once per set_tokens: the list holds the references, the
// vector borrows them (read by index when a document's tokens are built).
struct BertTokens {
  nb::tuple refs;  // id -> token str (None for ids without one); a copy, so later changes to the list cannot free what ptrs borrow
  std::vector<PyObject*> ptrs;
};

// The template's special tokens around a sequence and the token table, shared by the
// documents of one call (BertDoc).
struct BertWrap {
  DocFrame frame;
  std::shared_ptr<const BertTokens> tokens;
};

struct BertHandle {
  std::unique_ptr<BertEncoder> encoder;
  std::shared_ptr<const BertTokens> tokens = std::make_shared<BertTokens>();
};

// One encoded text: its arrays, turned into Python lists only when asked (each list once:
// the Python Encoding keeps what it got).
// With ids_only (encode_batch_fast, as tokenizers' without offsets) the text's tokens read
// as "", its offsets (0, 0) and its word ids None.
struct BertDoc {
  BertResult r;
  std::shared_ptr<const BertWrap> wrap;
  bool ids_only = false;
  // The offsets list (with ids_only, the ids list) when encode_docs made it while the pool
  // still encoded, handed out once: the Encoding keeps it.
  nb::object early;
  size_t size() const { return r.ids.size() + wrap->frame.around(); }
};

// Encodes the texts on up to `threads` threads (GIL released).
std::vector<BertResult> run_batch(const BertEncoder& encoder, nb::list texts, int threads) {
  nb::tuple items = snapshot(texts);
  const size_t n = items.size();
  std::vector<std::string_view> views(n);
  for (size_t i = 0; i < n; ++i) views[i] = utf8(items[i]);
  std::vector<BertResult> results(n);
  {
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
  }
  for (const BertResult& r : results) {  // a text too long for 32-bit offsets, on any thread
    if (!r.error.empty()) value_error(r.error);
  }
  return results;
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

// (ids, starts, ends, words) as numpy arrays, or None for the Python pipeline.
nb::object result_of(const BertResult& r) {
  if (r.fallback) return nb::none();
  return nb::make_tuple(array_of(r.ids), array_of(r.starts), array_of(r.ends), array_of(r.words));
}

const uint32_t* ids_of(const BertResult& r) { return reinterpret_cast<const uint32_t*>(r.ids.data()); }

nb::object bert_doc_ids(const BertDoc& d) { return doc_ids(d.wrap->frame, ids_of(d.r), d.r.ids.size()); }

nb::object bert_doc_offsets(const BertDoc& d) {
  if (d.ids_only) return doc_offsets(d.wrap->frame, nullptr, nullptr, 0, d.r.ids.size());
  return doc_offsets(d.wrap->frame, d.r.starts.data(), d.r.ends.data(), d.r.ids.size());
}

// BertDocs of every text (None where the Python pipeline must run), encoded in
// byte-balanced chunks on the pool while the calling thread wraps finished ones
// (bindings/batch.h).  On two threads or more each document's offsets list (with ids_only,
// its ids list) is made then too, overlapping the pool's encoding, instead of in a serial
// tail when the Encoding is first read.  Raises UnicodeEncodeError on a lone surrogate and
// ValueError on a text past the 32-bit offsets (the first such text's error).
nb::list encode_docs(const BertHandle& self, nb::list texts, int threads, std::vector<uint32_t> pre_ids,
                     nb::list pre_tokens, std::vector<uint32_t> suf_ids, nb::list suf_tokens, bool ids_only) {
  auto wrap = std::make_shared<BertWrap>(
      BertWrap{DocFrame(std::move(pre_ids), pre_tokens, std::move(suf_ids), suf_tokens), self.tokens});
  const nb::tuple items = snapshot(texts);
  const size_t n = items.size();
  std::vector<std::string_view> views(n);
  for (size_t i = 0; i < n; ++i) views[i] = utf8(items[i]);
  const std::vector<size_t> starts = batch_chunks(views, threads);
  const size_t chunks = starts.size() - 1;
  const bool early = has_pool_threads(chunks, threads);
  std::vector<BertResult> results(n);
  ResultList out(n);
  NoGc no_gc;
  const bool ok = run_batch_overlapped(
      chunks, threads,
      [&](size_t c) {
        for (size_t i = starts[c]; i < starts[c + 1]; ++i) self.encoder->encode(views[i], results[i]);
      },
      [&](size_t c) {
        for (size_t i = starts[c]; i < starts[c + 1]; ++i) {
          if (!results[i].error.empty()) {  // a text too long for 32-bit offsets
            PyErr_SetString(PyExc_ValueError, results[i].error.c_str());
            return false;
          }
          if (results[i].fallback) {
            out.set(i, Py_NewRef(Py_None));
            continue;
          }
          try {
            BertDoc d{std::move(results[i]), wrap, ids_only, {}};
            if (early) d.early = held_back(ids_only ? bert_doc_ids(d) : bert_doc_offsets(d));
            out.set(i, nb::cast(std::move(d)).release().ptr());
          } catch (nb::python_error& err) {
            err.restore();
            return false;
          }
        }
        return true;
      });
  if (!ok) throw nb::python_error();
  return out.done();
}

struct BertFrameHandle {  // a frame made once (BertEncoder.frame) for encode_doc
  std::shared_ptr<const BertWrap> wrap;
};

// encode_docs of one text, without the batch's chunks and threads (Tokenizer.encode); None
// for the Python pipeline.
nb::object encode_doc(const BertHandle& self, nb::str text, const BertFrameHandle& frame) {
  const std::string_view view = utf8(text);
  BertResult r;
  {
    nb::gil_scoped_release release;
    self.encoder->encode(view, r);
  }
  if (!r.error.empty()) value_error(r.error);
  if (r.fallback) return nb::none();
  return nb::cast(BertDoc{std::move(r), frame.wrap, false, {}});
}

nb::object bert_doc_tokens(const BertDoc& d) {
  const BertWrap& w = *d.wrap;
  if (d.ids_only) return doc_tokens(w.frame, d.r.ids.size(), [](size_t) { return PyUnicode_New(0, 0); });
  const std::vector<PyObject*>& table_ptrs = w.tokens->ptrs;
  const size_t table = table_ptrs.size();
  return doc_tokens(w.frame, d.r.ids.size(), [&](size_t i) {
    const auto id = static_cast<uint32_t>(d.r.ids[i]);
    PyObject* t = id < table ? table_ptrs[id] : Py_None;
    Py_INCREF(t);
    return t;
  });
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
      .def_static(
          "bpe",
          [](std::vector<std::pair<std::string, int32_t>> vocab, nb::bytes merges, int32_t unk_id, bool fuse_unk,
             std::string prefix, std::string suffix) {
            for (const auto& [tok, id] : vocab) {
              if (tok.empty()) throw nb::value_error("WordPieceModel.bpe: empty token in the vocab");
              if (id < 0) throw nb::value_error("WordPieceModel.bpe: negative id in the vocab");
            }
            if (merges.size() % 12 != 0) throw nb::value_error("WordPieceModel.bpe: merges must be uint32 triples");
            std::vector<WordBpe::Merge> ms(merges.size() / 12);
            if (!ms.empty()) std::memcpy(ms.data(), merges.c_str(), merges.size());
            return WordPieceHandle{std::make_shared<WordBpe>(vocab, ms, unk_id, fuse_unk, std::move(prefix),
                                                             std::move(suffix))};
          },
          nb::arg("vocab"), nb::arg("merges"), nb::arg("unk_id"), nb::arg("fuse_unk"), nb::arg("prefix"),
          nb::arg("suffix"),
          "A BPE of words (word_bpe.h) in this model's place: merges as (left, right, merged) uint32 triples in "
          "rank order; unk_id -1 for none; prefix/suffix: the continuing-subword prefix and end-of-word suffix.")
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
             std::vector<std::pair<std::string, uint32_t>> added, const WhitespaceClassesHandle* whitespace) {
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
            new (self) BertHandle{std::make_unique<BertEncoder>(model.model, std::move(table), std::move(added),
                                                                whitespace != nullptr ? whitespace->classes : nullptr)};
          },
          nb::arg("model"), nb::arg("flags"), nb::arg("mapped"), nb::arg("nfd"), nb::arg("added"),
          nb::arg("whitespace").none() = nb::none(),
          "Tables from tokenforge.tokenizer.bert_chars; added: (content, id) of raw-text added tokens; with "
          "`whitespace` (a WhitespaceClasses), Whitespace's split instead of BertPreTokenizer's.")
      .def(
          "encode",
          [](const BertHandle& self, nb::str text) {
            std::string_view t = utf8(text);
            BertResult r;
            {
              nb::gil_scoped_release release;
              self.encoder->encode(t, r);
            }
            if (!r.error.empty()) value_error(r.error);
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
            auto table = std::make_shared<BertTokens>();
            PyObject* copy = PySequence_Tuple(tokens.ptr());
            if (copy == nullptr) throw nb::python_error();
            table->refs = nb::steal<nb::tuple>(copy);
            table->ptrs.reserve(table->refs.size());
            for (nb::handle t : table->refs) table->ptrs.push_back(t.ptr());
            self.tokens = std::move(table);  // documents of earlier calls keep the old table
          },
          nb::arg("tokens"), "The token str of each id (a list indexed by id), for encode_docs.")
      .def("encode_docs", &encode_docs, nb::arg("texts"), nb::arg("num_threads"), nb::arg("prefix_ids"),
           nb::arg("prefix_tokens"), nb::arg("suffix_ids"), nb::arg("suffix_tokens"), nb::arg("ids_only") = false,
           "A BertDoc for each text between the given special tokens, or None (the Python pipeline); with "
           "ids_only, no offsets (encode_batch_fast).")
      .def(
          "frame",
          [](const BertHandle& self, std::vector<uint32_t> pre_ids, nb::list pre_tokens, std::vector<uint32_t> suf_ids,
             nb::list suf_tokens) {
            return BertFrameHandle{std::make_shared<const BertWrap>(
                BertWrap{DocFrame(std::move(pre_ids), pre_tokens, std::move(suf_ids), suf_tokens), self.tokens})};
          },
          nb::arg("prefix_ids"), nb::arg("prefix_tokens"), nb::arg("suffix_ids"), nb::arg("suffix_tokens"),
          "The special tokens before and after a text, made once for encode_doc (with the token table of now).")
      .def("encode_doc", &encode_doc, nb::arg("text"), nb::arg("frame"),
           "encode_docs of one text in a frame made by `frame`, without the batch's threads: a BertDoc, or None.");

  nb::class_<BertFrameHandle>(m, "BertFrame", "The special tokens around a text, for BertEncoder.encode_doc.");

  nb::class_<BertDoc>(m, "BertDoc", "One text encoded by BertEncoder.encode_docs; its lists built on request.")
      .def("__len__", &BertDoc::size)
      .def("ids", [](BertDoc& d) { return d.ids_only && d.early.is_valid() ? hand_out(d.early) : bert_doc_ids(d); })
      .def("tokens", &bert_doc_tokens)
      .def("offsets", [](BertDoc& d) { return !d.ids_only && d.early.is_valid() ? hand_out(d.early) : bert_doc_offsets(d); })
      .def("word_ids", [](const BertDoc& d) {
        if (d.ids_only) return doc_words(d.wrap->frame, nullptr, 0, d.r.ids.size());
        return doc_words(d.wrap->frame, d.r.words.data(), d.r.ids.size());
      })
      .def("window", [](const BertDoc& d, size_t a, size_t b) {
        if (a > b || b > d.r.ids.size()) value_error("BertDoc.window: tokens out of range");
        BertDoc w{BertResult{}, d.wrap, d.ids_only, {}};
        auto part = [&](const auto& v, auto& to) {
          if (v.size() == d.r.ids.size()) to.assign(v.begin() + a, v.begin() + b);
        };
        part(d.r.ids, w.r.ids);
        part(d.r.starts, w.r.starts);
        part(d.r.ends, w.r.ends);
        part(d.r.words, w.r.words);
        return w;
      }, nb::arg("a"), nb::arg("b"), kWindowDoc);
}

}  // namespace tf::py
