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
using tf::wordpiece::Piece;
using tf::wordpiece::WordPiece;

struct WordPieceHandle {
  std::shared_ptr<const WordPiece> model;
};

struct BertHandle {
  std::unique_ptr<BertEncoder> encoder;
};

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
            std::vector<Piece> pieces;
            if (!w.empty()) self.model->tokenize(w, total, pieces);
            nb::list out;
            for (const Piece& pc : pieces) out.append(nb::make_tuple(pc.id, char_of[pc.start], char_of[pc.end]));
            return out;
          },
          nb::arg("word"), "(id, char start, char end) per piece of one word.");

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
          [](const BertHandle& self, nb::list texts, int num_threads) {
            nb::tuple items = snapshot(texts);
            const size_t n = items.size();
            std::vector<std::string_view> views(n);
            for (size_t i = 0; i < n; ++i) views[i] = utf8(items[i]);
            std::vector<BertResult> results(n);
            {
              nb::gil_scoped_release release;
              std::atomic<size_t> next{0};
              auto work = [&] {
                for (size_t i; (i = next.fetch_add(1)) < n;) self.encoder->encode(views[i], results[i]);
              };
              const size_t threads = std::min<size_t>(std::max(1, num_threads), std::max<size_t>(1, n / 4));
              std::vector<std::thread> pool;
              for (size_t k = 1; k < threads; ++k) pool.emplace_back(work);
              work();
              for (std::thread& th : pool) th.join();
            }
            nb::list out;
            for (const BertResult& r : results) out.append(result_of(r));
            return out;
          },
          nb::arg("texts"), nb::arg("num_threads") = 1, "encode() of each text, on native threads.");
}

}  // namespace tf::py
