// Binding of tf::hf::SpmStyleEncoder: SentencePiece-style tokenizer.json pipelines
// (tokenforge/tokenizer/native_spm.py builds it).  Each encoded text comes back as the
// lists an Encoding holds: (ids, tokens, offsets, word ids); batches run on native
// threads with the GIL released (bindings/batch.h).
#include <nanobind/nanobind.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bindings/batch.h"
#include "bindings/common.h"
#include "pipeline/hf_spm_encoder.h"

namespace nb = nanobind;

namespace tf::py {

namespace {

using hf::HfEncoded;
using hf::SpmStyleEncoder;

struct HfSpm {
  SpmStyleEncoder encoder;
  nb::list token_strs;  // id -> the token's str (what Encoding.tokens shows)
  size_t n_strs;
};

// A list of n cached ints read through get(i); nullptr with a Python error set.
template <typename Get>
PyObject* int_list(size_t n, Get get) {
  PyObject* list = PyList_New(static_cast<Py_ssize_t>(n));
  if (list == nullptr) return nullptr;
  for (size_t i = 0; i < n; ++i) {
    PyObject* v = get(i);
    if (v == nullptr) {
      Py_DECREF(list);
      return nullptr;
    }
    PyList_SET_ITEM(list, static_cast<Py_ssize_t>(i), v);
  }
  return list;
}

// (ids, tokens, offsets, word ids) of tokens [begin, end) of e; nullptr with an error set.
PyObject* encoding_tuple(const HfSpm& h, const HfEncoded& e, size_t begin, size_t end) {
  const size_t n = end - begin;
  PyObject* strs = h.token_strs.ptr();
  PyObject* ids = new_id_list(e.ids.data() + begin, n);
  // Tokens reported as their own text: e.surface_at from the first at or after `begin`.
  size_t sk = std::lower_bound(e.surface_at.begin(), e.surface_at.end(), static_cast<uint32_t>(begin)) -
              e.surface_at.begin();
  PyObject* toks = ids ? int_list(n, [&](size_t i) -> PyObject* {
    if (sk < e.surface_at.size() && e.surface_at[sk] == begin + i) {
      const size_t a = sk ? e.surface_end[sk - 1] : 0, b = e.surface_end[sk];
      ++sk;
      return PyUnicode_DecodeUTF8(e.surface.data() + a, static_cast<Py_ssize_t>(b - a), "strict");
    }
    const uint32_t id = e.ids[begin + i];
    PyObject* s = id < h.n_strs ? PyList_GET_ITEM(strs, id) : Py_None;
    Py_INCREF(s);
    return s;
  }) : nullptr;
  PyObject* offs = toks ? int_list(n, [&](size_t i) -> PyObject* {
    PyObject* a = cached_int(e.starts[begin + i]);
    if (a == nullptr) return nullptr;
    PyObject* b = cached_int(e.ends[begin + i]);
    if (b == nullptr) {
      Py_DECREF(a);
      return nullptr;
    }
    PyObject* t = PyTuple_New(2);
    if (t == nullptr) {
      Py_DECREF(a);
      Py_DECREF(b);
      return nullptr;
    }
    PyTuple_SET_ITEM(t, 0, a);
    PyTuple_SET_ITEM(t, 1, b);
    // Two ints cannot form a cycle: untracked, the garbage collector does not walk the
    // hundreds of thousands of offsets a batch keeps alive (CPython untracks such tuples
    // itself, but only when a collection first meets them).
    PyObject_GC_UnTrack(t);
    return t;
  }) : nullptr;
  PyObject* words = offs ? new_id_list(e.words.data() + begin, n) : nullptr;
  if (words == nullptr) {
    Py_XDECREF(ids);
    Py_XDECREF(toks);
    Py_XDECREF(offs);
    return nullptr;
  }
  PyObject* t = PyTuple_Pack(4, ids, toks, offs, words);
  Py_DECREF(ids);
  Py_DECREF(toks);
  Py_DECREF(offs);
  Py_DECREF(words);
  return t;
}

// Every text of `texts` encoded on `threads` threads; each item built by make(e, begin, end).
template <typename Make>
nb::list encode_many(const HfSpm& h, nb::list texts, int threads, bool ids_only, Make make) {
  const nb::tuple items = snapshot(texts);
  const size_t n = items.size();
  const std::vector<StrView> views = str_views(items);
  const std::vector<size_t> starts = batch_chunks(n, threads, [&](size_t i) { return approx_utf8_size(views[i]); });
  struct alignas(64) Chunk {  // own cache line: two threads fill neighbouring chunks
    HfEncoded e;
    std::vector<size_t> ends;  // item k of the chunk is tokens [ends[k - 1], ends[k])
    std::vector<uint8_t> ok;   // item k was encoded (else it is None: the caller's pipeline)
  };
  std::vector<Chunk> chunks(starts.size() - 1);
  ResultList out(n);
  NoGc no_gc;
  const bool ok = run_batch_overlapped(
      chunks.size(), threads,
      [&](size_t c) {
        Chunk& ch = chunks[c];
        thread_local Utf8Buffer buffer;
        for (size_t i = starts[c]; i < starts[c + 1]; ++i) {
          const std::string_view text = to_utf8(views[i], &buffer);
          const size_t before = ch.e.ids.size();
          const size_t surface = ch.e.surface_at.size();
          const bool ok = h.encoder.encode(text, &ch.e, ids_only);
          if (!ok) {  // drop what it appended
            ch.e.ids.resize(before);
            if (!ids_only) {
              ch.e.starts.resize(before);
              ch.e.ends.resize(before);
              ch.e.words.resize(before);
              ch.e.surface_at.resize(surface);
              ch.e.surface_end.resize(surface);
              ch.e.surface.resize(surface ? ch.e.surface_end.back() : 0);
            }
          }
          ch.ok.push_back(ok);
          ch.ends.push_back(ch.e.ids.size());
        }
      },
      [&](size_t c) {
        Chunk& ch = chunks[c];
        size_t begin = 0;
        for (size_t k = 0; k < ch.ends.size(); ++k) {
          PyObject* item = ch.ok[k] ? make(ch.e, begin, ch.ends[k]) : Py_NewRef(Py_None);
          if (item == nullptr) return false;
          out.set(starts[c] + k, item);
          begin = ch.ends[k];
        }
        ch.e = HfEncoded();  // built: free it now
        return true;
      });
  if (!ok) throw nb::python_error();
  return out.done();
}

}  // namespace

void bind_hf_spm(nb::module_& m) {
  nb::class_<HfSpm>(m, "SpmStyleEncoder",
                    "A SentencePiece-style tokenizer.json pipeline in C++ (tokenforge.tokenizer.native_spm).")
      .def(
          "__init__",
          [](HfSpm* self, const std::vector<std::string>& vocab, nb::bytes merges, int64_t unk_id, bool fuse_unk,
             bool byte_fallback, std::vector<std::pair<std::string, double>> unigram, bool is_unigram,
             nb::bytes charsmap, bool prepend, bool replace_spaces, int metaspace_prepend, bool split,
             bool collapse_spaces, bool strip_edges, std::vector<std::pair<std::string, uint32_t>> added, nb::list token_strs) {
            std::string error;
            std::unique_ptr<hf::MergeRankBpe> bpe;
            std::unique_ptr<hf::ViterbiUnigram> uni;
            if (is_unigram) {
              uni = std::make_unique<hf::ViterbiUnigram>();
              if (!uni->build(unigram, unk_id, &error)) value_error(error);
            } else {
              const size_t nm = merges.size() / 12;
              if (merges.size() % 12 != 0) value_error("merges must be uint32 triples");
              std::vector<hf::MergeRankBpe::Merge> ms(nm);
              std::memcpy(ms.data(), merges.c_str(), nm * 12);
              bpe = std::make_unique<hf::MergeRankBpe>();
              if (!bpe->build(vocab, ms, unk_id, fuse_unk, byte_fallback, &error)) value_error(error);
            }
            std::unique_ptr<hf::CharsmapShortest> cm;
            if (charsmap.size() > 0) {
              cm = std::make_unique<hf::CharsmapShortest>();
              if (!cm->init(std::string_view(charsmap.c_str(), charsmap.size()), &error)) value_error(error);
            }
            hf::SpaceMarking marking{prepend, replace_spaces, metaspace_prepend, split, collapse_spaces, strip_edges};
            for (nb::handle s : token_strs) {
              if (!PyUnicode_Check(s.ptr())) throw nb::type_error("token_strs must hold strs");
            }
            new (self) HfSpm{SpmStyleEncoder(std::move(bpe), std::move(uni), std::move(cm), marking, std::move(added)),
                             token_strs, token_strs.size()};
          },
          nb::arg("vocab"), nb::arg("merges"), nb::arg("unk_id"), nb::arg("fuse_unk"), nb::arg("byte_fallback"),
          nb::arg("unigram"), nb::arg("is_unigram"), nb::arg("charsmap"), nb::arg("prepend"),
          nb::arg("replace_spaces"), nb::arg("metaspace_prepend"), nb::arg("split"), nb::arg("collapse_spaces"),
          nb::arg("strip_edges"),           nb::arg("added"), nb::arg("token_strs"),
          "BPE (vocab: id -> token text, '' for none; merges: (left, right, merged) uint32 triples in rank "
          "order) or, with is_unigram, Unigram (unigram: id -> (piece, score)); charsmap: a Precompiled blob "
          "or b''; added: (content, id) matched in the raw text; token_strs: id -> the str reported as the token.")
      .def(
          "encode",
          [](const HfSpm& h, nb::str text) -> nb::object {
            const std::string_view view = utf8(text);
            thread_local HfEncoded e;
            e.clear();
            bool ok;
            {
              nb::gil_scoped_release release;
              ok = h.encoder.encode(view, &e, false);
            }
            if (!ok) return nb::none();
            PyObject* t = encoding_tuple(h, e, 0, e.ids.size());
            if (t == nullptr) throw nb::python_error();
            return nb::steal(t);
          },
          nb::arg("text"),
          "(ids, tokens, offsets, word ids) of one text (valid UTF-8: no lone surrogates), or None for text "
          "the charsmap step leaves to the readable pipeline.")
      .def(
          "encode_batch",
          [](const HfSpm& h, nb::list texts, int threads) {
            return encode_many(h, texts, threads, false, [&](const HfEncoded& e, size_t a, size_t b) {
              return encoding_tuple(h, e, a, b);
            });
          },
          nb::arg("texts"), nb::arg("threads"), "encode() of every text, on native threads.")
      .def(
          "encode_ids_batch",
          [](const HfSpm& h, nb::list texts, int threads) {
            return encode_many(h, texts, threads, true, [](const HfEncoded& e, size_t a, size_t b) {
              return new_id_list(e.ids.data() + a, b - a);
            });
          },
          nb::arg("texts"), nb::arg("threads"), "The ids of every text, on native threads.");
}

}  // namespace tf::py
