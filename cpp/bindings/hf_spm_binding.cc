// Binding of tf::hf::SpmStyleEncoder: SentencePiece-style tokenizer.json pipelines
// (tokenforge/tokenizer/native_spm.py builds it).  `encode`/`encode_batch` give each text as
// the lists an Encoding holds: (ids, tokens, offsets, word ids); `encode_docs`/`encode_doc`
// give SpmDocs: a text's arrays framed by a template's special tokens (bindings/doc_lists.h),
// turned into lists only when read (tokenizer/doc_encoding.py).  Batches run on native
// threads with the GIL released (bindings/batch.h); a batch's documents share their
// chunk's arrays, copied out at their size.
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
#include "bindings/cut_class_handle.h"
#include "bindings/doc_lists.h"
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

// The tokens of [begin, begin + n) of e, each from token(i): the id's str, or for a token
// reported as its own text (e.surface_at), that text.
class TokenStrs {
 public:
  TokenStrs(PyObject* strs, size_t n_strs, const HfEncoded& e, size_t begin)
      : strs_(strs), n_strs_(n_strs), e_(e), begin_(begin) {
    sk_ = std::lower_bound(e.surface_at.begin(), e.surface_at.end(), static_cast<uint32_t>(begin)) -
          e.surface_at.begin();
  }
  // A new reference to token i's str (i ascending from 0), or nullptr with an error set.
  PyObject* operator()(size_t i) {
    if (sk_ < e_.surface_at.size() && e_.surface_at[sk_] == begin_ + i) {
      const size_t a = sk_ ? e_.surface_end[sk_ - 1] : 0, b = e_.surface_end[sk_];
      ++sk_;
      return PyUnicode_DecodeUTF8(e_.surface.data() + a, static_cast<Py_ssize_t>(b - a), "strict");
    }
    const uint32_t id = e_.ids[begin_ + i];
    PyObject* s = id < n_strs_ ? PyList_GET_ITEM(strs_, id) : Py_None;
    Py_INCREF(s);
    return s;
  }

 private:
  PyObject* strs_;
  size_t n_strs_;
  const HfEncoded& e_;
  size_t begin_, sk_;
};

// (ids, tokens, offsets, word ids) of tokens [begin, end) of e.
nb::object encoding_tuple(const HfSpm& h, const HfEncoded& e, size_t begin, size_t end) {
  const size_t n = end - begin;
  nb::object ids = to_list(e.ids.data() + begin, n);
  nb::object toks = build_list(n, TokenStrs(h.token_strs.ptr(), h.n_strs, e, begin));
  nb::object offs = build_list(n, [&](size_t i) { return offset_pair(e.starts[begin + i], e.ends[begin + i]); });
  nb::object words = to_list(e.words.data() + begin, n);
  return nb::make_tuple(ids, toks, offs, words);
}

// One text of encode_docs: tokens [begin, end) of a chunk's output (shared by the chunk's
// documents and freed with the last), framed by the template's special tokens.
struct SpmFrame {
  DocFrame frame;
  nb::list token_strs;  // the encoder's
  size_t n_strs;
};

// With ids_only (encode_batch_fast, as tokenizers' without offsets) the text's tokens read
// as "", every offset (0, 0) and every word id None.
struct SpmFrameHandle {  // a frame made once (SpmStyleEncoder.frame) for encode_doc
  std::shared_ptr<const SpmFrame> frame;
};

struct SpmDoc {
  std::shared_ptr<const HfEncoded> e;
  size_t begin, end;
  std::shared_ptr<const SpmFrame> frame;
  bool ids_only;
  // The offsets list (with ids_only, the ids list) when encode_docs made it while the pool
  // still encoded, handed out once: the Encoding keeps it.
  nb::object early;
  size_t size() const { return end - begin + frame->frame.around(); }
};

nb::object spm_doc_tokens(const SpmDoc& d) {
  if (d.ids_only) {
    return doc_tokens(d.frame->frame, d.end - d.begin, [](size_t) { return PyUnicode_New(0, 0); });
  }
  TokenStrs token(d.frame->token_strs.ptr(), d.frame->n_strs, *d.e, d.begin);
  return doc_tokens(d.frame->frame, d.end - d.begin, token);
}

nb::object spm_doc_ids(const SpmDoc& d) { return doc_ids(d.frame->frame, d.e->ids.data() + d.begin, d.end - d.begin); }

nb::object spm_doc_offsets(const SpmDoc& d) {
  if (d.ids_only) return doc_offsets(d.frame->frame, nullptr, nullptr, 0, d.end - d.begin);
  return doc_offsets(d.frame->frame, d.e->starts.data() + d.begin, d.e->ends.data() + d.begin, d.end - d.begin);
}

nb::object spm_doc_words(const SpmDoc& d) {
  if (d.ids_only) return doc_words(d.frame->frame, nullptr, 0, d.end - d.begin);
  return doc_words(d.frame->frame, d.e->words.data() + d.begin, d.end - d.begin);
}

using Shared = std::shared_ptr<HfEncoded>;

// One text encoded (GIL released) into the calling thread's arrays, valid until its next
// call; nullptr for text the readable pipeline must take.  Raises ValueError on a lone
// surrogate.
const HfEncoded* encode_text(const HfSpm& h, nb::str text);

[[noreturn]] void surrogate_error(int64_t at) {
  value_error(lone_surrogate_message(at));
}

// A copy of `from` in arrays of its size (what documents keep alive).
std::shared_ptr<HfEncoded> kept_copy(const HfEncoded& from) {
  auto kept = std::make_shared<HfEncoded>();
  kept->ids.assign(from.ids.begin(), from.ids.end());
  kept->starts.assign(from.starts.begin(), from.starts.end());
  kept->ends.assign(from.ends.begin(), from.ends.end());
  kept->words.assign(from.words.begin(), from.words.end());
  kept->surface_at.assign(from.surface_at.begin(), from.surface_at.end());
  kept->surface_end.assign(from.surface_end.begin(), from.surface_end.end());
  kept->surface.assign(from.surface);
  return kept;
}

const HfEncoded* encode_text(const HfSpm& h, nb::str text) {
  const StrView view = str_view(text);
  thread_local Utf8Buffer buffer;
  const std::string_view utf8 = to_utf8(view, &buffer);
  if (const int64_t at = buffer.first_surrogate(); at >= 0) surrogate_error(at);
  thread_local HfEncoded work;
  work.clear();
  std::string error;
  bool ok;
  {
    nb::gil_scoped_release release;
    ok = h.encoder.encode(utf8, &work, false, &error);
  }
  if (!error.empty()) value_error(error);
  return ok ? &work : nullptr;
}

// Every text of `texts` encoded on `threads` threads; each item built by make(e, begin, end).
template <typename Make>
nb::list encode_many(const HfSpm& h, nb::list texts, int threads, bool ids_only, Make make) {
  const nb::tuple items = snapshot(texts);
  const size_t n = items.size();
  const std::vector<StrView> views = str_views(items);
  const std::vector<size_t> starts = batch_chunks(n, threads, [&](size_t i) { return approx_utf8_size(views[i]); });
  struct alignas(64) Chunk {  // own cache line: two threads fill neighbouring chunks
    std::shared_ptr<HfEncoded> e;  // set when the chunk is encoded
    std::vector<size_t> ends;  // item k of the chunk is tokens [ends[k - 1], ends[k])
    std::vector<uint8_t> ok;   // item k was encoded (else it is None: the caller's pipeline)
    int64_t bad = -1, bad_at = 0;  // the first item with a lone surrogate, and where
    std::string error;  // the first item too long for 32-bit offsets: what the encoder said
  };
  std::vector<Chunk> chunks(starts.size() - 1);
  ResultList out(n);
  NoGc no_gc;
  const bool ok = run_batch_overlapped(
      chunks.size(), threads,
      [&](size_t c) {
        Chunk& ch = chunks[c];
        thread_local Utf8Buffer buffer;
        // Encoded into the thread's buffers (grown once), then copied out at their size:
        // the chunk's arrays live as long as its documents.
        thread_local HfEncoded work;
        HfEncoded& e = work;
        e.clear();
        for (size_t i = starts[c]; i < starts[c + 1]; ++i) {
          const std::string_view text = to_utf8(views[i], &buffer);
          if (const int64_t at = buffer.first_surrogate(); at >= 0) {
            if (ch.bad < 0) ch.bad = static_cast<int64_t>(i), ch.bad_at = at;
            ch.ok.push_back(0);
            ch.ends.push_back(e.ids.size());
            continue;
          }
          const size_t before = e.ids.size();
          const size_t surface = e.surface_at.size();
          std::string error;
          const bool ok = h.encoder.encode(text, &e, ids_only, &error);
          if (!error.empty() && ch.error.empty()) ch.error = std::move(error);
          if (!ok) {  // drop what it appended
            e.ids.resize(before);
            if (!ids_only) {
              e.starts.resize(before);
              e.ends.resize(before);
              e.words.resize(before);
              e.surface_at.resize(surface);
              e.surface_end.resize(surface);
              e.surface.resize(surface ? e.surface_end.back() : 0);
            }
          }
          ch.ok.push_back(ok);
          ch.ends.push_back(e.ids.size());
        }
        ch.e = kept_copy(e);
      },
      [&](size_t c) {
        Chunk& ch = chunks[c];
        size_t begin = 0;
        for (size_t k = 0; k < ch.ends.size(); ++k) {
          if (ch.ok[k]) {
            try {
              out.set(starts[c] + k, make(ch.e, begin, ch.ends[k]).release().ptr());
            } catch (nb::python_error& err) {
              err.restore();
              return false;
            }
          } else {
            out.set(starts[c] + k, Py_NewRef(Py_None));
          }
          begin = ch.ends[k];
        }
        ch.e.reset();  // built: free it now (unless documents share it)
        return true;
      });
  if (!ok) throw nb::python_error();
  for (const Chunk& ch : chunks) {
    if (ch.bad >= 0) surrogate_error(ch.bad_at);
    if (!ch.error.empty()) value_error(ch.error);
  }
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
             bool collapse_spaces, bool strip_edges, int split_words, const WhitespaceClassesHandle* whitespace,
             std::vector<std::pair<std::string, uint32_t>> added, nb::list token_strs) {
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
              if (nm > 0) std::memcpy(ms.data(), merges.c_str(), nm * 12);  // an empty vector has no data()
              bpe = std::make_unique<hf::MergeRankBpe>();
              if (!bpe->build(vocab, ms, unk_id, fuse_unk, byte_fallback, &error)) value_error(error);
            }
            std::unique_ptr<hf::CharsmapShortest> cm;
            if (charsmap.size() > 0) {
              cm = std::make_unique<hf::CharsmapShortest>();
              if (!cm->init(std::string_view(charsmap.c_str(), charsmap.size()), &error)) value_error(error);
            }
            if (split_words < 0 || split_words > 2) value_error("split_words must be 0, 1 or 2");
            hf::SpaceMarking marking{prepend,         replace_spaces, metaspace_prepend, split,
                                     collapse_spaces, strip_edges,    split_words};
            if ((split_words == 2) != (whitespace != nullptr)) value_error("split_words 2 takes the Whitespace classes, and only it");
            for (nb::handle s : token_strs) {
              if (!PyUnicode_Check(s.ptr())) throw nb::type_error("token_strs must hold strs");
            }
            new (self) HfSpm{SpmStyleEncoder(std::move(bpe), std::move(uni), std::move(cm), marking, std::move(added),
                                             whitespace != nullptr ? whitespace->classes : nullptr),
                             token_strs, token_strs.size()};
          },
          nb::arg("vocab"), nb::arg("merges"), nb::arg("unk_id"), nb::arg("fuse_unk"), nb::arg("byte_fallback"),
          nb::arg("unigram"), nb::arg("is_unigram"), nb::arg("charsmap"), nb::arg("prepend"),
          nb::arg("replace_spaces"), nb::arg("metaspace_prepend"), nb::arg("split"), nb::arg("collapse_spaces"),
          nb::arg("strip_edges"), nb::arg("split_words"), nb::arg("whitespace").none(), nb::arg("added"),
          nb::arg("token_strs"),
          "BPE (vocab: id -> token text, '' for none; merges: (left, right, merged) uint32 triples in rank "
          "order) or, with is_unigram, Unigram (unigram: id -> (piece, score)); charsmap: a Precompiled blob "
          "or b''; split_words: 0, 1 (WhitespaceSplit) or 2 (Whitespace, with `whitespace` its WhitespaceClasses, "
          "else None); added: (content, id) matched in the raw text; token_strs: id -> the str reported as "
          "the token.")
      .def(
          "encode",
          [](const HfSpm& h, nb::str text) -> nb::object {
            const HfEncoded* e = encode_text(h, text);
            return e == nullptr ? nb::none() : encoding_tuple(h, *e, 0, e->ids.size());
          },
          nb::arg("text"),
          "(ids, tokens, offsets, word ids) of one text (valid UTF-8: no lone surrogates), or None for text "
          "the charsmap step leaves to the readable pipeline.")
      .def(
          "encode_batch",
          [](const HfSpm& h, nb::list texts, int threads) {
            return encode_many(h, texts, threads, false, [&](const Shared& e, size_t a, size_t b) {
              return encoding_tuple(h, *e, a, b);
            });
          },
          nb::arg("texts"), nb::arg("threads"), "encode() of every text, on native threads.")
      .def(
          "encode_ids_batch",
          [](const HfSpm& h, nb::list texts, int threads) {
            return encode_many(h, texts, threads, true, [](const Shared& e, size_t a, size_t b) {
              return to_list(e->ids.data() + a, b - a);
            });
          },
          nb::arg("texts"), nb::arg("threads"), "The ids of every text, on native threads.")
      .def(
          "encode_docs",
          [](const HfSpm& h, nb::list texts, int threads, std::vector<uint32_t> prefix_ids, nb::list prefix_tokens,
             std::vector<uint32_t> suffix_ids, nb::list suffix_tokens, bool ids_only) {
            auto frame = std::make_shared<const SpmFrame>(SpmFrame{
                DocFrame(std::move(prefix_ids), prefix_tokens, std::move(suffix_ids), suffix_tokens), h.token_strs,
                h.n_strs});
            // On two threads or more, each document's offsets list (with ids_only, its ids
            // list) is made in the build step, on the calling thread while the pool encodes
            // the next chunks, instead of in a serial tail when the Encoding is first read
            // (bindings/byte_level_docs_binding.cc does the same, and says why not ids too).
            const bool early = has_pool_threads(texts.size(), threads);
            return encode_many(h, texts, threads, ids_only, [&](const Shared& e, size_t a, size_t b) {
              SpmDoc d{e, a, b, frame, ids_only, {}};
              if (early) d.early = held_back(ids_only ? spm_doc_ids(d) : spm_doc_offsets(d));
              return nb::cast(std::move(d));
            });
          },
          nb::arg("texts"), nb::arg("threads"), nb::arg("prefix_ids"), nb::arg("prefix_tokens"),
          nb::arg("suffix_ids"), nb::arg("suffix_tokens"), nb::arg("ids_only") = false,
          "An SpmDoc for each text, between the given special tokens (a template's), or None where the "
          "readable pipeline must run; on native threads.  With ids_only, no offsets (encode_batch_fast).")
      .def(
          "frame",
          [](const HfSpm& h, std::vector<uint32_t> prefix_ids, nb::list prefix_tokens, std::vector<uint32_t> suffix_ids,
             nb::list suffix_tokens) {
            return SpmFrameHandle{std::make_shared<const SpmFrame>(SpmFrame{
                DocFrame(std::move(prefix_ids), prefix_tokens, std::move(suffix_ids), suffix_tokens), h.token_strs,
                h.n_strs})};
          },
          nb::arg("prefix_ids"), nb::arg("prefix_tokens"), nb::arg("suffix_ids"), nb::arg("suffix_tokens"),
          "The special tokens before and after a text, made once for encode_doc.")
      .def(
          "encode_doc",
          [](const HfSpm& h, nb::str text, const SpmFrameHandle& frame) -> nb::object {
            const HfEncoded* e = encode_text(h, text);
            return e == nullptr ? nb::none() : nb::cast(SpmDoc{kept_copy(*e), 0, e->ids.size(), frame.frame, false, {}});
          },
          nb::arg("text"), nb::arg("frame"),
          "encode_docs of one text in the given frame, without the batch's threads: an SpmDoc, or None.");

  nb::class_<SpmFrameHandle>(m, "SpmFrame", "The special tokens around a text, for SpmStyleEncoder.encode_doc.");

  nb::class_<SpmDoc>(m, "SpmDoc", "One text encoded by SpmStyleEncoder.encode_docs; its lists built on request.")
      .def("__len__", &SpmDoc::size)
      .def("ids", [](SpmDoc& d) { return d.ids_only && d.early.is_valid() ? hand_out(d.early) : spm_doc_ids(d); })
      .def("tokens", &spm_doc_tokens)
      .def("offsets", [](SpmDoc& d) { return !d.ids_only && d.early.is_valid() ? hand_out(d.early) : spm_doc_offsets(d); })
      .def("word_ids", &spm_doc_words)
      .def("window", [](const SpmDoc& d, size_t a, size_t b) {
        if (a > b || b > d.end - d.begin) value_error("SpmDoc.window: tokens out of range");
        return SpmDoc{d.e, d.begin + a, d.begin + b, d.frame, d.ids_only, {}};
      }, nb::arg("a"), nb::arg("b"), kWindowDoc);
}

}  // namespace tf::py
