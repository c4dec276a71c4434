// Binding of tf::SentencePieceProcessor as tokenforge._native.SentencePieceProcessor.
// Arguments are converted with the GIL held; every loop over text runs with it released.
// The Python façade (tokenforge.sentencepiece.processor) owns the API and the policy.
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include "bindings/common.h"
#include "bindings/batch.h"
#include "pipeline/sentencepiece_processor.h"
#include "pipeline/spm_text_wire.h"
#include "models/sentencepiece/spm_vocab_wire.h"
#include "common/byte_hash.h"
#include "common/parallel.h"

namespace tf::py {

using namespace tf::spm;  // this file binds that area

namespace {

using Proc = SentencePieceProcessor;

// str -> UTF-8, bytes -> as is.
std::string_view text_view(nb::handle h) {
  if (PyBytes_Check(h.ptr())) return bytes_view(h);
  if (!PyUnicode_Check(h.ptr())) throw nb::type_error("input must be str or bytes");
  return utf8(h);
}

// The texts of a batch call as views into strs a snapshot keeps alive (see snapshot()),
// cut into byte-balanced chunks for the pool (see batch.h), and the result list
// their items fill with PyList_SET_ITEM.
struct BatchTexts {
  nb::tuple items;
  std::vector<std::string_view> views;
  std::vector<size_t> starts;  // chunk c holds texts [starts[c], starts[c + 1])
  ResultList out;

  BatchTexts(nb::list texts, int threads) : items(snapshot(texts)), out(items.size()) {
    views.reserve(items.size());
    for (nb::handle t : items) views.push_back(text_view(t));
    starts = batch_chunks(views, threads);
  }
  size_t chunks() const { return starts.size() - 1; }
};

nb::str to_str(std::string_view s) {
  PyObject* o = PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "surrogateescape");
  if (o == nullptr) throw nb::python_error();
  return nb::steal<nb::str>(o);
}

template <typename T, typename Id>
nb::object ids_list_of(const std::vector<T>& items, Id id_of) {
  PyObject* list = PyList_New(static_cast<Py_ssize_t>(items.size()));
  if (list == nullptr) throw nb::python_error();
  for (size_t i = 0; i < items.size(); ++i) {
    PyObject* v = cached_int(static_cast<uint32_t>(id_of(items[i])));  // ids are >= 0
    if (v == nullptr) {
      Py_DECREF(list);
      throw nb::python_error();
    }
    PyList_SET_ITEM(list, i, v);
  }
  return nb::steal(list);
}

// A new list of ids[0, n), or nullptr with a Python error set.  The ids are >= 0, so
// their unsigned view holds the same values (signed and unsigned may alias).
PyObject* ids_list_raw(const int32_t* ids, size_t n) {
  return new_id_list(reinterpret_cast<const uint32_t*>(ids), n);
}

nb::object ids_list(const std::vector<SpmPiece>& pieces) {
  return ids_list_of(pieces, [](const SpmPiece& p) { return p.id; });
}

nb::object ids_list(const std::vector<int32_t>& ids) {
  return ids_list_of(ids, [](int32_t id) { return id; });
}

// The text of each output piece: the vocabulary piece, or for <unk> the normalized text.
std::string_view piece_text(const Proc& p, const SpmPiece& piece, std::string_view normalized) {
  if (p.vocab().is_unknown(piece.id)) return normalized.substr(piece.begin, piece.end - piece.begin);
  return p.vocab().piece(piece.id);
}

nb::list pieces_list(const Proc& p, const std::vector<SpmPiece>& pieces, std::string_view normalized) {
  nb::list out;
  for (const SpmPiece& piece : pieces) out.append(to_str(piece_text(p, piece, normalized)));
  return out;
}

SpmSampling sampling_of(bool enable, int nbest_size, float alpha, uint64_t seed) {
  SpmSampling s;
  s.enabled = enable;
  s.nbest_size = nbest_size;
  s.alpha = alpha;
  s.seed = seed;
  return s;
}

// [(ids or pieces, score)] for several segmentations of one text (n-best, sampling).
nb::list scored_list(const Proc& p, const std::vector<std::vector<SpmPiece>>& results,
                     const std::vector<float>& scores, std::string_view normalized, bool as_pieces) {
  nb::list out;
  for (size_t i = 0; i < results.size(); ++i) {
    nb::object seg = as_pieces ? nb::object(pieces_list(p, results[i], normalized)) : ids_list(results[i]);
    out.append(nb::make_tuple(seg, scores[i]));
  }
  return out;
}

// [(id, piece, begin, end, partial)]: each piece with the byte span of the input it covers;
// a partial byte piece (all but the last of a character's) has begin == end.
nb::list offsets_list(const Proc& p, const std::vector<SpmPiece>& pieces, std::string_view normalized,
                      const std::vector<uint32_t>& n2o) {
  nb::list out;
  for (const SpmPiece& piece : pieces) {
    uint32_t b = n2o[piece.begin], en = piece.partial ? b : n2o[piece.end];
    out.append(nb::make_tuple(piece.id, to_str(piece_text(p, piece, normalized)), b, en, piece.partial));
  }
  return out;
}

nb::list scored_offsets(const Proc& p, const std::vector<std::vector<SpmPiece>>& results,
                        const std::vector<float>& scores, std::string_view normalized,
                        const std::vector<uint32_t>& n2o) {
  nb::list out;
  for (size_t i = 0; i < results.size(); ++i) out.append(nb::make_tuple(offsets_list(p, results[i], normalized, n2o),
                                                                        scores[i]));
  return out;
}

// The normalized-to-input byte map of `text` (the segmentations of nbest and sampling are
// over the same normalized text).
void norm_to_orig(const Proc& p, std::string_view text, std::vector<uint32_t>* n2o) {
  std::string normalized, error;
  p.normalize(text, &normalized, n2o, &error);  // cannot fail: the segmentation of text succeeded
}

// [(piece, id, surface or None, begin, end)] (bytes for the texts): the fields of
// sentencepiece's SentencePieceText pieces, with byte spans of `text`, or with `unicode`
// character spans as 0.2.1's ConvertToUnicodeSpans makes them (each lead byte starts a
// character and claims its UTF-8 length).
nb::list proto_pieces(const Proc& p, std::string_view text, const std::vector<SpmPiece>& pieces,
                      std::string_view normalized, const std::vector<uint32_t>& n2o, bool unicode) {
  std::vector<uint32_t> at;
  if (unicode) {
    static constexpr uint8_t kLen[16] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4};
    at.assign(text.size() + 1, 0);
    size_t pos = 0;
    uint32_t chars = 0;
    while (pos < text.size()) {
      size_t len = kLen[static_cast<uint8_t>(text[pos]) >> 4];
      for (size_t i = pos; i < pos + len && i < text.size(); ++i) at[i] = chars;
      ++chars;
      pos += len;
    }
    at[text.size()] = chars;
  }
  nb::list out;
  for (const SpmPiece& piece : pieces) {
    uint32_t b = n2o[piece.begin], e = piece.partial ? b : n2o[piece.end];
    nb::object surface = piece.partial ? nb::none() : nb::object(to_bytes(text.substr(b, e - b)));
    out.append(nb::make_tuple(to_bytes(piece_text(p, piece, normalized)), piece.id, surface,
                              unicode ? at[b] : b, unicode ? at[e] : e));
  }
  return out;
}

// Appends the SentencePieceText of `text` segmented into `pieces` (over `normalized`, mapped
// back by `n2o`) to *out, as sentencepiece's PopulateSentencePieceText fills it.
void write_encoded(const Proc& p, std::string_view text, const std::vector<SpmPiece>& pieces,
                   std::string_view normalized, const std::vector<uint32_t>& n2o, const float* score,
                   std::string* out) {
  std::vector<SpmTextPiece> items;
  items.reserve(pieces.size());
  for (const SpmPiece& piece : pieces) {
    uint32_t b = n2o[piece.begin], e = piece.partial ? b : n2o[piece.end];
    items.push_back({piece_text(p, piece, normalized), static_cast<uint32_t>(piece.id), text.substr(b, e - b),
                     !piece.partial, b, e});
  }
  write_spm_text(text, items, score, out);
}

// The NBestSentencePieceText of scored segmentations of `text`.
std::string write_scored(const Proc& p, std::string_view text, const std::vector<std::vector<SpmPiece>>& results,
                         const std::vector<float>& scores, std::string_view normalized,
                         const std::vector<uint32_t>& n2o) {
  std::string out, one;
  for (size_t i = 0; i < results.size(); ++i) {
    one.clear();
    write_encoded(p, text, results[i], normalized, n2o, &scores[i], &one);
    write_spm_nbest_item(one, &out);
  }
  return out;
}

// One item of a batch gets its own seed, so results do not depend on the thread count.
uint64_t item_seed(uint64_t seed, size_t i) { return mix64(seed + 0x9E3779B97F4A7C15ull * (i + 1)); }

struct Encoded {
  std::vector<SpmPiece> pieces;
  std::string normalized;
};

// What encode_batch adds around each item's pieces, as sentencepiece's extra options do
// (reverse, then BOS and EOS); ids < 0 are left out.
struct Framing {
  int32_t bos = -1;
  int32_t eos = -1;
  bool reverse = false;
};

// A new list of one item's ids or piece strs with its framing, or nullptr with a Python
// error set.  `piece_strs` holds the str of every vocabulary piece (made once, by the
// façade); an unknown piece shows the normalized text it covers.
PyObject* item_list(const Proc& p, const SpmPiece* pieces, size_t n, std::string_view normalized, bool as_pieces,
                    PyObject* piece_strs, const Framing& f) {
  const size_t extra = (f.bos >= 0) + (f.eos >= 0);
  PyObject* list = PyList_New(static_cast<Py_ssize_t>(n + extra));
  if (list == nullptr) return nullptr;
  const Py_ssize_t known = piece_strs != nullptr ? PyList_GET_SIZE(piece_strs) : 0;
  auto make = [&](int32_t id, uint32_t begin, uint32_t end) -> PyObject* {
    if (!as_pieces) return cached_int(static_cast<uint32_t>(id));  // ids are >= 0
    if (!p.vocab().is_unknown(id) && id < known) {
      PyObject* s = PyList_GET_ITEM(piece_strs, id);
      Py_INCREF(s);
      return s;
    }
    const std::string_view text = p.vocab().is_unknown(id) ? normalized.substr(begin, end - begin)
                                                           : std::string_view(p.vocab().piece(id));
    return PyUnicode_DecodeUTF8(text.data(), static_cast<Py_ssize_t>(text.size()), "surrogateescape");
  };
  Py_ssize_t k = 0;
  auto put = [&](PyObject* v) {
    if (v == nullptr) return false;
    PyList_SET_ITEM(list, k++, v);
    return true;
  };
  bool ok = f.bos < 0 || put(make(f.bos, 0, 0));
  for (size_t i = 0; ok && i < n; ++i) {
    const SpmPiece& piece = pieces[f.reverse ? n - 1 - i : i];
    ok = put(make(piece.id, piece.begin, piece.end));
  }
  if (ok && f.eos >= 0) ok = put(make(f.eos, 0, 0));
  if (!ok) {
    Py_DECREF(list);  // unset slots are NULL, which list_dealloc skips
    return nullptr;
  }
  return list;
}

void check(bool ok, const std::string& error) {
  if (!ok) value_error(error);
}

// p.encode of text with the GIL released (norm_to_orig filled if not null); ValueError if
// the text is too long.
Encoded encode_checked(const Proc& p, nb::handle text, const SpmSampling& sampling, std::vector<uint32_t>* norm_to_orig,
                       size_t parts = 1, int threads = 1) {
  std::string_view v = text_view(text);
  Encoded e;
  std::string error;
  bool ok;
  {
    nb::gil_scoped_release release;
    ok = p.encode(v, sampling, &e.pieces, &e.normalized, norm_to_orig, parts, threads, &error);
  }
  check(ok, error);
  return e;
}

// The error of the first chunk that failed, if any (a text too long: see kMaxTextBytes).
template <typename Chunks>
void check_chunks(const Chunks& chunks) {
  for (const auto& ch : chunks) check(ch.error.empty(), ch.error);
}

// encode() of every text as ids or piece strs, in byte-balanced chunks on the pool while
// the calling thread builds finished chunks' lists (see batch.h).  Item i samples
// with item_seed(seed, i), so results do not depend on the thread count.
nb::list encode_batch(const Proc& p, nb::list texts, int threads, const SpmSampling& sampling, bool as_pieces,
                      nb::handle piece_strs, const Framing& framing) {
  BatchTexts batch(texts, threads);
  const std::vector<std::string_view>& views = batch.views;
  const std::vector<size_t>& starts = batch.starts;
  PyObject* strs = PyList_Check(piece_strs.ptr()) ? piece_strs.ptr() : nullptr;
  struct alignas(64) Chunk {  // own cache line: two threads fill neighbouring chunks
    std::vector<SpmPiece> pieces;
    std::vector<size_t> ends;       // item k of the chunk is pieces[ends[k - 1], ends[k])
    std::string normalized;         // as_pieces: the items' normalized texts, concatenated
    std::vector<size_t> norm_ends;  // item k's is normalized[norm_ends[k - 1], norm_ends[k])
    std::string error;              // set when an item failed (its lists are not made)
  };
  std::vector<Chunk> chunks(batch.chunks());
  PyObject* out = batch.out.ptr();
  NoGc no_gc;
  const bool ok = run_batch_overlapped(
      chunks.size(), threads,
      [&](size_t c) {
        Chunk& ch = chunks[c];
        thread_local Encoded scratch;
        Encoded& e = pinned(scratch);
        ch.ends.reserve(starts[c + 1] - starts[c]);
        if (!as_pieces && !sampling.enabled) {  // ids of the best segmentation: the faster encode_ids
          thread_local std::vector<int32_t> ids_scratch;
          std::vector<int32_t>& ids = pinned(ids_scratch);
          for (size_t i = starts[c]; i < starts[c + 1]; ++i) {
            ids.clear();
            if (!p.encode_ids(views[i], &ids, &ch.error)) return;
            for (int32_t id : ids) ch.pieces.push_back(SpmPiece{id, 0, 0, false});
            ch.ends.push_back(ch.pieces.size());
          }
          return;
        }
        for (size_t i = starts[c]; i < starts[c + 1]; ++i) {
          SpmSampling s = sampling;
          s.seed = item_seed(sampling.seed, i);
          e.pieces.clear();
          if (!p.encode(views[i], s, &e.pieces, &e.normalized, nullptr, &ch.error)) return;
          ch.pieces.insert(ch.pieces.end(), e.pieces.begin(), e.pieces.end());
          ch.ends.push_back(ch.pieces.size());
          if (as_pieces) {
            ch.normalized += e.normalized;
            ch.norm_ends.push_back(ch.normalized.size());
          }
        }
      },
      [&](size_t c) {
        Chunk& ch = chunks[c];
        if (!ch.error.empty()) return true;  // raised below
        size_t begin = 0, norm_begin = 0;
        for (size_t k = 0; k < ch.ends.size(); ++k) {
          const size_t norm_end = as_pieces ? ch.norm_ends[k] : 0;
          const std::string_view normalized = std::string_view(ch.normalized).substr(norm_begin, norm_end - norm_begin);
          PyObject* list = item_list(p, ch.pieces.data() + begin, ch.ends[k] - begin, normalized, as_pieces, strs, framing);
          if (list == nullptr) return false;
          PyList_SET_ITEM(out, static_cast<Py_ssize_t>(starts[c] + k), list);
          begin = ch.ends[k];
          norm_begin = norm_end;
        }
        std::vector<SpmPiece>().swap(ch.pieces);  // built: free it now
        std::string().swap(ch.normalized);
        return true;
      });
  if (!ok) throw nb::python_error();
  check_chunks(chunks);
  return batch.out.done();
}

// The cut points find(text) gives, found with the GIL released.
template <typename Find>
std::vector<size_t> cuts_of(nb::handle text, Find&& find) {
  std::string_view v = text_view(text);
  nb::gil_scoped_release release;
  return find(v);
}

// The items of a decode call (pieces, whose strs `snap` keeps alive, or ids), decoded with
// each piece's span; IndexError for an id out of range, ValueError for a bad byte piece.
struct SpanDecode {
  nb::tuple snap;
  std::vector<std::string_view> views;
  std::vector<int32_t> ids;
  bool are_pieces;
  std::string text, error;
  SpmDecodeSpans spans;

  SpanDecode(nb::list items, bool pieces) : snap(snapshot(items)), are_pieces(pieces) {
    if (are_pieces) {
      views.reserve(snap.size());
      for (nb::handle h : snap) views.push_back(text_view(h));
    } else {
      std::vector<uint32_t> raw = ids_from(items);
      ids.assign(raw.begin(), raw.end());
    }
  }
  // Runs with the GIL released; check() afterwards, with it held.
  bool run(const Proc& p) {
    return are_pieces ? p.decode_pieces(views, &text, &error, &spans)
                      : p.decode_ids(ids.data(), ids.size(), &text, &error, &spans);
  }
  void check_ok(bool ok) const {
    if (!ok && !are_pieces) throw nb::index_error(error.c_str());
    check(ok, error);
  }
  size_t size() const { return are_pieces ? views.size() : ids.size(); }
};

// The scored segmentations `run` finds for `text` (n-best or sampled), as a serialized
// NBestSentencePieceText; run(text, &results, &scores, &normalized, &error) -> ok.
template <typename Run>
nb::bytes scored_serialized(const Proc& p, nb::handle text, Run run) {
  std::string_view v = text_view(text);
  std::vector<std::vector<SpmPiece>> results;
  std::vector<float> scores;
  std::string normalized, error, out;
  bool ok;
  {
    nb::gil_scoped_release release;
    ok = run(v, &results, &scores, &normalized, &error);
    if (ok) {
      std::vector<uint32_t> n2o;
      norm_to_orig(p, v, &n2o);
      out = write_scored(p, v, results, scores, normalized, n2o);
    }
  }
  check(ok, error);
  return to_bytes(out);
}

}  // namespace

void bind_sentencepiece(nb::module_& m) {
  m.def("spm_model_rest", [](nb::bytes data) -> nb::object {
        std::string_view v = bytes_view(data);
        std::vector<SpmPieceSpec> pieces;
        std::string rest;
        bool ok;
        {
          nb::gil_scoped_release release;
          ok = read_model_pieces(v, &pieces, &rest);
        }
        if (!ok) return nb::none();
        return to_bytes(rest);
      }, nb::arg("data"),
        "The bytes of every top-level ModelProto field but the pieces, or None when the file is "
        "not of the usual well-formed shape (then parse it in full).");
  nb::class_<Proc>(m, "SentencePieceProcessor",
                   "tf::SentencePieceProcessor: normalizer, BPE or Unigram model, and decoder of one .model file.")
      .def("__init__",
           [](Proc* self, nb::object pieces_or_model, int model_type, bool byte_fallback, nb::bytes unk_surface,
              nb::bytes charsmap, std::tuple<bool, bool, bool, bool> options, nb::object denormalizer) {
             SpmModelSpec spec;
             if (PyBytes_Check(pieces_or_model.ptr())) {
               // The serialized model: its pieces are read here (see spm_model_rest).
               std::string rest;
               if (!read_model_pieces(bytes_view(pieces_or_model), &spec.pieces, &rest)) {
                 value_error("malformed model file (pieces)");
               }
             }
             nb::list pieces = PyBytes_Check(pieces_or_model.ptr()) ? nb::list() : nb::cast<nb::list>(pieces_or_model);
             spec.pieces.reserve(spec.pieces.size() + pieces.size());
             for (nb::handle item : pieces) {
               nb::tuple t = nb::borrow<nb::tuple>(item);
               SpmPieceSpec ps;
               ps.text = std::string(bytes_view(t[0]));
               ps.score = nb::cast<float>(t[1]);
               int type = nb::cast<int>(t[2]);
               ps.type = static_cast<uint8_t>(type < 0 || type > 255 ? 0 : type);
               spec.pieces.push_back(std::move(ps));
             }
             spec.model_type = model_type;
             spec.byte_fallback = byte_fallback;
             spec.unk_surface = std::string(bytes_view(unk_surface));
             spec.precompiled_charsmap = std::string(bytes_view(charsmap));
             std::tie(spec.normalizer.add_dummy_prefix, spec.normalizer.remove_extra_whitespaces,
                      spec.normalizer.escape_whitespaces, spec.normalizer.treat_whitespace_as_suffix) = options;
             if (!denormalizer.is_none()) {
               auto d = nb::cast<std::tuple<nb::bytes, bool, bool, bool>>(denormalizer);
               spec.has_denormalizer = true;
               spec.denormalizer_charsmap = std::string(bytes_view(std::get<0>(d)));
               spec.denormalizer.add_dummy_prefix = std::get<1>(d);
               spec.denormalizer.remove_extra_whitespaces = std::get<2>(d);
               spec.denormalizer.escape_whitespaces = std::get<3>(d);
             }
             new (self) Proc();
             InPlaceGuard<Proc> guard(self);
             std::string error;
             bool ok;
             {
               nb::gil_scoped_release release;
               ok = self->load(std::move(spec), &error);
             }
             check(ok, error);
             guard.done();
           },
           nb::arg("pieces"), nb::arg("model_type"), nb::arg("byte_fallback"), nb::arg("unk_surface"),
           nb::arg("precompiled_charsmap"), nb::arg("options"), nb::arg("denormalizer").none())
      .def("vocab_lists", [](const Proc& p) {
        const SpmVocab& v = p.vocab();
        const size_t n = static_cast<size_t>(v.size());
        PyObject* pieces = PyList_New(static_cast<Py_ssize_t>(n));
        PyObject* scores = PyList_New(static_cast<Py_ssize_t>(n));
        PyObject* types = PyList_New(static_cast<Py_ssize_t>(n));
        nb::object keep_p = nb::steal(pieces), keep_s = nb::steal(scores), keep_t = nb::steal(types);
        if (pieces == nullptr || scores == nullptr || types == nullptr) throw nb::python_error();
        for (size_t i = 0; i < n; ++i) {
          const std::string& text = v.piece(static_cast<int32_t>(i));
          PyObject* s = PyUnicode_DecodeUTF8(text.data(), static_cast<Py_ssize_t>(text.size()), "surrogateescape");
          PyObject* f = PyFloat_FromDouble(v.score(static_cast<int32_t>(i)));
          PyObject* t = PyLong_FromLong(static_cast<long>(v.type(static_cast<int32_t>(i))));
          if (s == nullptr || f == nullptr || t == nullptr) {
            Py_XDECREF(s);
            Py_XDECREF(f);
            Py_XDECREF(t);
            throw nb::python_error();
          }
          PyList_SET_ITEM(pieces, i, s);
          PyList_SET_ITEM(scores, i, f);
          PyList_SET_ITEM(types, i, t);
        }
        return nb::make_tuple(keep_p, keep_s, keep_t);
      }, "(pieces, scores, types) of the vocabulary, as Python lists.")
      .def("encode_ids", [](const Proc& p, nb::handle text, size_t parts, int threads) {
        std::string_view v = text_view(text);
        std::vector<int32_t> ids;
        std::string error;
        bool ok;
        {
          nb::gil_scoped_release release;
          ok = p.encode_ids(v, &ids, parts, threads, &error);
        }
        check(ok, error);
        return ids_list(ids);
      }, nb::arg("text"), nb::arg("parts") = 1, nb::arg("threads") = 1,
           "The ids of the best segmentation of text (str or bytes); with parts and threads > 1, cut into up to "
           "`parts` parts encoded on up to `threads` threads (same ids).")
      .def("encodes_in_parts", &Proc::encodes_in_parts,
           "Whether a long text can be encoded in parts on several threads (BPE and Unigram models whose pieces "
           "leave cut points).")
      .def("cut_points", [](const Proc& p, nb::handle normalized, size_t parts) {
        return cuts_of(normalized, [&](std::string_view v) { return p.cut_points(v, parts); });
      }, nb::arg("normalized"), nb::arg("parts"),
           "The byte offsets where encode in `parts` parts cuts this normalized text.")
      .def("encode_ids_batch", [](const Proc& p, nb::list texts, int threads) {
        BatchTexts batch(texts, threads);
        const std::vector<std::string_view>& views = batch.views;
        const std::vector<size_t>& starts = batch.starts;
        struct alignas(64) Chunk {  // own cache line: two threads fill neighbouring chunks
          std::vector<int32_t> ids;
          std::vector<size_t> ends;  // item k of the chunk is ids[ends[k - 1], ends[k])
          std::string error;         // set when an item failed (its lists are not made)
        };
        std::vector<Chunk> chunks(batch.chunks());
        PyObject* out = batch.out.ptr();
        NoGc no_gc;
        const bool ok = run_batch_overlapped(
            chunks.size(), threads,
            [&](size_t c) {
              Chunk& ch = chunks[c];
              ch.ends.reserve(starts[c + 1] - starts[c]);
              for (size_t i = starts[c]; i < starts[c + 1]; ++i) {
                if (!p.encode_ids(views[i], &ch.ids, &ch.error)) return;
                ch.ends.push_back(ch.ids.size());
              }
            },
            [&](size_t c) {
              Chunk& ch = chunks[c];
              if (!ch.error.empty()) return true;  // raised below
              size_t begin = 0;
              for (size_t k = 0; k < ch.ends.size(); ++k) {
                PyObject* list = ids_list_raw(ch.ids.data() + begin, ch.ends[k] - begin);
                if (list == nullptr) return false;
                PyList_SET_ITEM(out, static_cast<Py_ssize_t>(starts[c] + k), list);
                begin = ch.ends[k];
              }
              std::vector<int32_t>().swap(ch.ids);  // built: free it now
              return true;
            });
        if (!ok) throw nb::python_error();
        check_chunks(chunks);
        return batch.out.done();
      }, nb::arg("texts"), nb::arg("threads"),
           "encode_ids for each text, on up to `threads` threads.")
      .def("encode", [](const Proc& p, nb::handle text, bool as_pieces, bool enable, int nbest, float alpha,
                        uint64_t seed, size_t parts, int threads) -> nb::object {
        const Encoded e = encode_checked(p, text, sampling_of(enable, nbest, alpha, seed), nullptr, parts, threads);
        return as_pieces ? nb::object(pieces_list(p, e.pieces, e.normalized)) : ids_list(e.pieces);
      }, nb::arg("text"), nb::arg("as_pieces"), nb::arg("enable_sampling"), nb::arg("nbest_size"), nb::arg("alpha"), nb::arg("seed"),
         nb::arg("parts") = 1, nb::arg("threads") = 1,
           "Ids or pieces, best or sampled (the best in up to `parts` parts on `threads` threads).")
      .def("encode_batch", [](const Proc& p, nb::list texts, int threads, bool as_pieces, bool enable, int nbest,
                              float alpha, uint64_t seed, nb::handle piece_strs, int32_t bos, int32_t eos, bool reverse) {
        const int32_t size = p.vocab().size();
        if (bos >= size || eos >= size) value_error("bos/eos id out of range");
        if (!piece_strs.is_none() && (!PyList_Check(piece_strs.ptr()) || PyList_GET_SIZE(piece_strs.ptr()) != size)) {
          value_error("piece_strs must be None or a list of one str per piece");
        }
        Framing framing;
        framing.bos = bos < 0 ? -1 : bos;
        framing.eos = eos < 0 ? -1 : eos;
        framing.reverse = reverse;
        return encode_batch(p, texts, threads, sampling_of(enable, nbest, alpha, seed), as_pieces, piece_strs, framing);
      }, nb::arg("texts"), nb::arg("threads"), nb::arg("as_pieces"), nb::arg("enable_sampling"), nb::arg("nbest_size"),
         nb::arg("alpha"), nb::arg("seed"), nb::arg("piece_strs").none(), nb::arg("bos"), nb::arg("eos"), nb::arg("reverse"),
           "encode for each text, on threads, reversed and between bos and eos (ids; < 0: none) if asked; item i "
           "samples with a seed derived from (seed, i).  piece_strs (None or one str per piece) saves making "
           "piece strs.")
      .def("encode_with_offsets", [](const Proc& p, nb::handle text, bool enable, int nbest, float alpha, uint64_t seed,
                                     size_t parts, int threads) {
        std::vector<uint32_t> n2o;
        const Encoded e = encode_checked(p, text, sampling_of(enable, nbest, alpha, seed), &n2o, parts, threads);
        return offsets_list(p, e.pieces, e.normalized, n2o);
      }, nb::arg("text"), nb::arg("enable_sampling"), nb::arg("nbest_size"), nb::arg("alpha"), nb::arg("seed"),
         nb::arg("parts") = 1, nb::arg("threads") = 1,
           "[(id, piece, begin, end, partial)] with byte offsets into the input (in up to `parts` parts on "
           "`threads` threads).")
      .def("encode_proto_pieces", [](const Proc& p, nb::handle text, bool enable, int nbest, float alpha,
                                     uint64_t seed, bool unicode) {
        std::vector<uint32_t> n2o;
        const Encoded e = encode_checked(p, text, sampling_of(enable, nbest, alpha, seed), &n2o);
        return proto_pieces(p, text_view(text), e.pieces, e.normalized, n2o, unicode);
      }, nb::arg("text"), nb::arg("enable_sampling"), nb::arg("nbest_size"), nb::arg("alpha"), nb::arg("seed"),
           nb::arg("unicode"),
           "[(piece, id, surface or None, begin, end)]: the pieces of the encoding's SentencePieceText (bytes), "
           "with byte spans or, with unicode, character spans.")
      .def("encode_serialized", [](const Proc& p, nb::handle text, bool enable, int nbest, float alpha,
                                   uint64_t seed) {
        std::string_view v = text_view(text);
        std::string out, error;
        bool ok;
        {
          nb::gil_scoped_release release;
          Encoded e;
          std::vector<uint32_t> n2o;
          ok = p.encode(v, sampling_of(enable, nbest, alpha, seed), &e.pieces, &e.normalized, &n2o, &error);
          if (ok) write_encoded(p, v, e.pieces, e.normalized, n2o, nullptr, &out);
        }
        check(ok, error);
        return to_bytes(out);
      }, nb::arg("text"), nb::arg("enable_sampling"), nb::arg("nbest_size"), nb::arg("alpha"), nb::arg("seed"),
           "The encoding as a serialized SentencePieceText (sentencepiece's serialized_proto).")
      .def("encode_serialized_batch", [](const Proc& p, nb::list texts, int threads, bool enable, int nbest,
                                         float alpha, uint64_t seed) {
        const nb::tuple items = snapshot(texts);
        std::vector<std::string_view> views;
        views.reserve(items.size());
        for (nb::handle t : items) views.push_back(text_view(t));
        std::vector<std::string> outs(views.size()), errors(views.size());
        {
          nb::gil_scoped_release release;
          parallel_for(views.size(), threads, [&](size_t i) {
            Encoded e;
            std::vector<uint32_t> n2o;
            if (p.encode(views[i], sampling_of(enable, nbest, alpha, item_seed(seed, i)), &e.pieces, &e.normalized,
                         &n2o, &errors[i])) {
              write_encoded(p, views[i], e.pieces, e.normalized, n2o, nullptr, &outs[i]);
            }
          });
        }
        for (const std::string& e : errors) check(e.empty(), e);  // the first item that failed
        nb::list out;
        for (const std::string& o : outs) out.append(to_bytes(o));
        return out;
      }, nb::arg("texts"), nb::arg("threads"), nb::arg("enable_sampling"), nb::arg("nbest_size"), nb::arg("alpha"),
           nb::arg("seed"), "encode_serialized for each text, on threads; item i samples with a seed from (seed, i).")
      .def("nbest_serialized", [](const Proc& p, nb::handle text, int nbest_size) {
        return scored_serialized(p, text, [&](std::string_view v, auto* results, auto* scores, auto* normalized,
                                              auto* error) {
          return p.nbest(v, nbest_size, results, scores, normalized, error);
        });
      }, nb::arg("text"), nb::arg("nbest_size"),
           "The n best segmentations as a serialized NBestSentencePieceText (Unigram).")
      .def("sample_encode_and_score_serialized", [](const Proc& p, nb::handle text, int num_samples, float alpha,
                                                    bool wor, bool include_best, uint64_t seed) {
        return scored_serialized(p, text, [&](std::string_view v, auto* results, auto* scores, auto* normalized,
                                              auto* error) {
          return p.sample_encode_and_score(v, num_samples, alpha, wor, include_best, seed, results, scores,
                                           normalized, error);
        });
      }, nb::arg("text"), nb::arg("num_samples"), nb::arg("alpha"), nb::arg("wor"), nb::arg("include_best"),
           nb::arg("seed"), "sample_encode_and_score as a serialized NBestSentencePieceText (Unigram).")
      .def("nbest", [](const Proc& p, nb::handle text, int nbest_size, bool as_pieces, bool offsets) {
        std::string_view v = text_view(text);
        std::vector<std::vector<SpmPiece>> results;
        std::vector<float> scores;
        std::string normalized, error;
        std::vector<uint32_t> n2o;
        bool ok;
        {
          nb::gil_scoped_release release;
          ok = p.nbest(v, nbest_size, &results, &scores, &normalized, &error);
          if (ok && offsets) norm_to_orig(p, v, &n2o);
        }
        check(ok, error);
        return offsets ? scored_offsets(p, results, scores, normalized, n2o)
                       : scored_list(p, results, scores, normalized, as_pieces);
      }, nb::arg("text"), nb::arg("nbest_size"), nb::arg("as_pieces"), nb::arg("offsets") = false,
           "[(ids or pieces, score)] for the n best segmentations (Unigram); with offsets, each segmentation "
           "as encode_with_offsets gives it.")
      .def("sample_encode_and_score", [](const Proc& p, nb::handle text, int num_samples, float alpha, bool wor,
                                         bool include_best, bool as_pieces, uint64_t seed, bool offsets) {
        std::string_view v = text_view(text);
        std::vector<std::vector<SpmPiece>> results;
        std::vector<float> scores;
        std::string normalized, error;
        std::vector<uint32_t> n2o;
        bool ok;
        {
          nb::gil_scoped_release release;
          ok = p.sample_encode_and_score(v, num_samples, alpha, wor, include_best, seed, &results, &scores,
                                         &normalized, &error);
          if (ok && offsets) norm_to_orig(p, v, &n2o);
        }
        check(ok, error);
        return offsets ? scored_offsets(p, results, scores, normalized, n2o)
                       : scored_list(p, results, scores, normalized, as_pieces);
      }, nb::arg("text"), nb::arg("num_samples"), nb::arg("alpha"), nb::arg("wor"), nb::arg("include_best"),
           nb::arg("as_pieces"), nb::arg("seed"), nb::arg("offsets") = false,
           "[(ids or pieces, log probability or log inclusion probability)] (Unigram); with offsets, each "
           "segmentation as encode_with_offsets gives it.")
      .def("entropy", [](const Proc& p, nb::handle text, float alpha) {
        std::string_view v = text_view(text);
        float h = 0;
        std::string error;
        bool ok;
        {
          nb::gil_scoped_release release;
          ok = p.entropy(v, alpha, &h, &error);
        }
        check(ok, error);
        return h;
      }, nb::arg("text"), nb::arg("alpha"),
           "Entropy of the segmentation distribution (Unigram).")
      .def("normalize", [](const Proc& p, nb::handle text, bool with_offsets, size_t parts, int threads) -> nb::object {
        std::string_view v = text_view(text);
        std::string out;
        std::vector<uint32_t> n2o;
        std::string error;
        bool ok;
        {
          nb::gil_scoped_release release;
          ok = parts > 1 && !with_offsets ? p.normalize_in_parts(v, parts, threads, &out, &error)
                                          : p.normalize(v, &out, with_offsets ? &n2o : nullptr, &error);
        }
        check(ok, error);
        if (!with_offsets) return to_str(out);
        return nb::make_tuple(to_str(out), n2o);
      }, nb::arg("text"), nb::arg("with_offsets"), nb::arg("parts") = 1, nb::arg("threads") = 1,
           "The normalized text, or (text, byte offsets) with_offsets; without offsets and with parts > 1, the "
           "input cut into up to `parts` parts normalized on `threads` threads (the same text).")
      .def("input_cut_points", [](const Proc& p, nb::handle text, size_t parts) {
        return cuts_of(text, [&](std::string_view v) { return p.input_cut_points(v, parts); });
      }, nb::arg("text"), nb::arg("parts"),
           "The byte offsets where normalize in `parts` parts cuts this input.")
      .def("decode_ids", [](const Proc& p, nb::handle ids_obj) {
        std::vector<uint32_t> raw = ids_from(ids_obj);
        std::vector<int32_t> ids(raw.begin(), raw.end());
        std::string out, error;
        bool ok;
        {
          nb::gil_scoped_release release;
          ok = p.decode_ids(ids.data(), ids.size(), &out, &error);
        }
        if (!ok) throw nb::index_error(error.c_str());
        return to_bytes(out);
      }, nb::arg("ids"),
           "UTF-8 bytes of the decoded ids; IndexError for an id out of range.")
      .def("decode_ids_batch", [](const Proc& p, nb::list batch, int threads) {
        std::vector<std::vector<int32_t>> all;
        all.reserve(batch.size());
        for (nb::handle ids_obj : batch) {
          std::vector<uint32_t> raw = ids_from(ids_obj);
          all.emplace_back(raw.begin(), raw.end());
        }
        std::vector<std::string> outs(all.size()), errors(all.size());
        std::vector<uint8_t> ok(all.size(), 1);
        {
          nb::gil_scoped_release release;
          parallel_for(all.size(), threads, [&](size_t i) {
            ok[i] = p.decode_ids(all[i].data(), all[i].size(), &outs[i], &errors[i]);
          });
        }
        nb::list out;
        for (size_t i = 0; i < outs.size(); ++i) {
          if (!ok[i]) throw nb::index_error(errors[i].c_str());
          out.append(to_bytes(outs[i]));
        }
        return out;
      }, nb::arg("batch"), nb::arg("threads"),
           "decode_ids for each list, on threads.")
      .def("decode_pieces", [](const Proc& p, nb::list pieces) {
        const nb::tuple items = snapshot(pieces);
        std::vector<std::string_view> views;
        views.reserve(items.size());
        for (nb::handle h : items) views.push_back(text_view(h));
        std::string out, error;
        bool ok;
        {
          nb::gil_scoped_release release;
          ok = p.decode_pieces(views, &out, &error);
        }
        check(ok, error);
        return to_bytes(out);
      }, nb::arg("pieces"),
           "UTF-8 bytes of the decoded pieces.")
      .def("decode_serialized", [](const Proc& p, nb::list items, bool are_pieces) {
        SpanDecode d(items, are_pieces);
        std::string out;
        bool ok;
        {
          nb::gil_scoped_release release;
          ok = d.run(p);
          if (ok) {
            // Each piece with its id looked up again from its text, as sentencepiece's Decode does.
            std::vector<SpmTextPiece> pieces(d.size());
            for (size_t i = 0; i < pieces.size(); ++i) {
              std::string_view piece = are_pieces ? d.views[i] : std::string_view(p.vocab().piece(d.ids[i]));
              uint32_t b = d.spans.bounds[2 * i], e = d.spans.bounds[2 * i + 1];
              pieces[i] = {piece, static_cast<uint32_t>(p.vocab().piece_to_id(piece)),
                           std::string_view(d.spans.raw).substr(b, e - b), true, b, e};
            }
            write_spm_text(d.text, pieces, nullptr, &out);
          }
        }
        d.check_ok(ok);
        return to_bytes(out);
      }, nb::arg("items"), nb::arg("are_pieces"),
           "The decoding as a serialized SentencePieceText (sentencepiece's serialized_proto); IndexError for an "
           "id out of range.")
      .def("decode_with_spans", [](const Proc& p, nb::list items, bool are_pieces) {
        SpanDecode d(items, are_pieces);
        bool ok;
        {
          nb::gil_scoped_release release;
          ok = d.run(p);
        }
        d.check_ok(ok);
        return nb::make_tuple(to_bytes(d.text), to_bytes(d.spans.raw), d.spans.bounds);
      }, nb::arg("items"), nb::arg("are_pieces"),
           "(text, text before the denormalizer, [begin0, end0, begin1, ...]): the decoded UTF-8 bytes and the "
           "byte span of the pre-denormalizer text each piece became; IndexError for an id out of range.");
}

}  // namespace tf::py
