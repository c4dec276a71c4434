// Binding of sentencepiece training's native parts as tokenforge._native.SpmSentenceCounter
// (front end: normalize, cut meta pieces, split and count words) and SpmBpeMerger (the
// BPE loop).  Arguments are converted with the GIL held; counting and merging release it.
#include <nanobind/stl/string.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/vector.h>

#include <atomic>
#include <memory>
#include <unordered_set>

#include "bindings/common.h"
#include "training/sentencepiece/bpe_merger.h"
#include "training/sentencepiece/sentence_counter.h"
#include "training/sentencepiece/unigram_trainer.h"

namespace tf::py {

namespace {

using spm_train::BpeMerger;
using spm_train::SentenceCounter;

struct UnigramHandle {
  std::unique_ptr<spm_train::UnigramTrainer> trainer;
  spm_train::UnigramProgress progress;
};

spm_train::PieceRules rules_from(nb::tuple rules) {
  spm_train::PieceRules r;
  r.max_length = nb::cast<int>(rules[0]);
  r.split_by_unicode_script = nb::cast<bool>(rules[1]);
  r.split_by_whitespace = nb::cast<bool>(rules[2]);
  r.split_by_number = nb::cast<bool>(rules[3]);
  r.split_digits = nb::cast<bool>(rules[4]);
  r.treat_whitespace_as_suffix = nb::cast<bool>(rules[5]);
  r.allow_whitespace_only_pieces = nb::cast<bool>(rules[6]);
  return r;
}

struct MergerHandle {
  std::unique_ptr<BpeMerger> merger;
  std::atomic<uint32_t> done{0};
  ~MergerHandle() {
    merger.reset();
    spm_train::release_free_memory();
  }
};

// The kept characters: a bitmap for the BMP, a set for the rest.
class KeptChars {
 public:
  explicit KeptChars(const std::vector<char32_t>& chars) : bmp_(0x10000, false) {
    for (char32_t c : chars) {
      if (c < 0x10000) bmp_[c] = true; else other_.insert(c);
    }
  }
  bool contains(char32_t c) const { return c < 0x10000 ? bmp_[c] : other_.count(c) != 0; }

 private:
  std::vector<bool> bmp_;
  std::unordered_set<char32_t> other_;
};

// The code points of a counted word into *out, characters outside `kept` as the unknown mark.
void word_chars(std::string_view word, const KeptChars& kept, std::vector<char32_t>* out) {
  out->clear();
  const auto* s = reinterpret_cast<const uint8_t*>(word.data());
  size_t i = 0;
  while (i < word.size()) {
    int len;
    const char32_t c = spm_train::decode_char(s + i, word.size() - i, &len);
    i += static_cast<size_t>(len);
    out->push_back(kept.contains(c) ? c : spm_train::kUnknownMark);
  }
}

}  // namespace

void bind_spm_train(nb::module_& m) {
  nb::class_<SentenceCounter>(m, "SpmSentenceCounter")
      .def("__init__",
           [](SentenceCounter* self, nb::bytes charsmap, nb::tuple normalizer, int max_sentence_length,
              bool split_by_whitespace, bool allow_whitespace_only_pieces, const std::vector<std::string>& meta) {
             new (self) SentenceCounter();
             InPlaceGuard<SentenceCounter> guard(self);
             spm_train::FrontEndOptions o;
             o.normalizer.add_dummy_prefix = nb::cast<bool>(normalizer[0]);
             o.normalizer.remove_extra_whitespaces = nb::cast<bool>(normalizer[1]);
             o.normalizer.escape_whitespaces = nb::cast<bool>(normalizer[2]);
             o.normalizer.treat_whitespace_as_suffix = nb::cast<bool>(normalizer[3]);
             o.treat_whitespace_as_suffix = o.normalizer.treat_whitespace_as_suffix;
             o.max_sentence_length = max_sentence_length;
             o.split_by_whitespace = split_by_whitespace;
             o.allow_whitespace_only_pieces = allow_whitespace_only_pieces;
             std::string error;
             if (!self->init(bytes_view(charsmap), o, meta, &error)) value_error("bad precompiled charsmap: " + error);
             guard.done();
           },
           nb::arg("charsmap"), nb::arg("normalizer"), nb::arg("max_sentence_length"), nb::arg("split_by_whitespace"),
           nb::arg("allow_whitespace_only_pieces"), nb::arg("meta_pieces"))
      .def("add_block",
           [](SentenceCounter& c, nb::bytes block) {
             std::string_view v = bytes_view(block);
             nb::gil_scoped_release release;
             c.add_block(v);
           },
           nb::arg("block"), "Adds every line of a block of UTF-8 text (lines end with '\\n').")
      .def("add_file",
           [](SentenceCounter& c, const std::string& path, uint64_t start, uint64_t end) {
             std::string error;
             bool os_error = false, ok;
             {
               nb::gil_scoped_release release;
               ok = c.add_file(path, start, end, &error, &os_error);
             }
             if (ok) return;
             if (!os_error) value_error(error);
             PyErr_SetString(PyExc_OSError, error.c_str());
             throw nb::python_error();
           },
           nb::arg("path"), nb::arg("start") = 0, nb::arg("end") = ~uint64_t{0},
           "Adds the lines of bytes [start, end) of a file (start at a line start); OSError if it cannot be "
           "read, ValueError if it is not UTF-8.")
      .def("add_sentences",
           [](SentenceCounter& c, nb::list sentences, std::vector<int64_t> freqs, bool checked) {
             nb::tuple items = snapshot(sentences);
             std::vector<std::string_view> views = utf8_views(items);
             if (!freqs.empty() && freqs.size() != views.size()) value_error("one frequency per sentence");
             nb::gil_scoped_release release;
             for (size_t i = 0; i < views.size(); ++i) {
               const int64_t f = freqs.empty() ? 1 : freqs[i];
               if (checked) c.add_checked(views[i], f); else c.add_line(views[i], f);
             }
           },
           nb::arg("sentences"), nb::arg("freqs") = std::vector<int64_t>(), nb::arg("checked") = false,
           "Adds sentences (str); checked=True when the caller applied the line checks already.")
      .def("merge",
           [](SentenceCounter& c, SentenceCounter& other) {
             if (&c == &other) value_error("a counter cannot merge itself");
             nb::gil_scoped_release release;
             c.merge(other);
             other.clear_words();
           },
           nb::arg("other"),
           "Adds other's words and statistics after this counter's own (words first seen in other come "
           "last, in other's order) and empties other's words.")
      .def("stats",
           [](const SentenceCounter& c) {
             nb::dict d;
             d["sentences"] = c.stats().sentences;
             d["too_long"] = c.stats().too_long;
             d["reserved"] = c.stats().reserved;
             d["bytes"] = c.stats().bytes;
             d["words"] = c.words().size();
             return d;
           })
      .def("char_counts",
           [](const SentenceCounter& c) {
             std::unordered_map<char32_t, int64_t> counts;
             int64_t total = 0;
             bool ok;
             {
               nb::gil_scoped_release release;
               ok = c.char_counts(&counts, &total);
             }
             if (!ok) value_error("a normalized sentence holds a space (escape_whitespaces=False): no piece may contain one");
             nb::dict d;
             for (const auto& [cp, n] : counts) d[nb::int_(static_cast<uint32_t>(cp))] = n;
             return nb::make_tuple(d, total);
           },
           "(code point -> count, total) over the counted words.")
      .def("words",
           [](const SentenceCounter& c) {
             nb::dict d;
             c.words().for_each([&](std::string_view w, int64_t n) { d[to_bytes(w)] = n; });
             return d;
           },
           "The counted words as bytes -> count (tests and small inputs).")
      .def("word_ends",
           [](const SentenceCounter& c) {
             nb::dict d;
             const spm_train::WordTable& words = c.words();
             for (size_t i = 0; i < words.size(); ++i) d[to_bytes(words.word(i))] = words.ends(i);
             return d;
           },
           "The counted words as bytes -> what followed them over their occurrences: 0x100 the end of the "
           "sentence, 0x200 a word whose first byte is the low byte, 0x400 words with different first "
           "bytes.");

  nb::class_<MergerHandle>(m, "SpmBpeMerger")
      .def("__init__",
           [](MergerHandle* self, SentenceCounter& counter, const std::vector<uint32_t>& alphabet, nb::tuple rules) {
             const spm_train::PieceRules r = rules_from(rules);
             new (self) MergerHandle();
             InPlaceGuard<MergerHandle> guard(self);
             self->merger = std::make_unique<BpeMerger>(r);
             const KeptChars keep(std::vector<char32_t>(alphabet.begin(), alphabet.end()));
             bool too_long = false;
             {
               nb::gil_scoped_release release;
               size_t chars = 0;
               counter.words().for_each([&](std::string_view w, int64_t) { chars += spm_train::count_chars(w); });
               self->merger->reserve(counter.words().size(), chars);
               std::vector<char32_t> word;
               counter.drain_words([&](std::string_view w, int64_t n) {
                 if (too_long) return;
                 word_chars(w, keep, &word);
                 too_long = !self->merger->add_word(word.data(), word.size(), n);
               });
             }
             if (too_long) value_error("the distinct words hold 2^32 characters or more: too much text for BPE training; "
                                       "sample it with input_sentence_size");
             guard.done();
           },
           nb::arg("counter"), nb::arg("alphabet"), nb::arg("rules"),
           "Takes the counter's words (and empties it); rules = (max_sentencepiece_length, split_by_unicode_script, "
           "split_by_whitespace, split_by_number, split_digits, treat_whitespace_as_suffix, "
           "allow_whitespace_only_pieces).")
      .def("train",
           [](MergerHandle& h, size_t pieces) {
             nb::gil_scoped_release release;
             h.merger->train(pieces, &h.done);
           },
           nb::arg("pieces"))
      .def_prop_ro("merges_done", [](const MergerHandle& h) { return h.done.load(std::memory_order_relaxed); })
      .def("pieces", [](const MergerHandle& h) { return h.merger->pieces(); });

  nb::class_<UnigramHandle>(m, "SpmUnigramTrainer")
      .def("__init__",
           [](UnigramHandle* self, SentenceCounter& counter, const std::vector<std::pair<uint32_t, int64_t>>& alphabet,
              nb::tuple rules) {
             new (self) UnigramHandle();
             InPlaceGuard<UnigramHandle> guard(self);
             self->trainer = std::make_unique<spm_train::UnigramTrainer>(rules_from(rules));
             std::vector<char32_t> kept;
             std::vector<std::pair<char32_t, int64_t>> chars;
             for (const auto& [c, n] : alphabet) {
               kept.push_back(c);
               chars.emplace_back(c, n);
             }
             const KeptChars keep(kept);
             {
               nb::gil_scoped_release release;
               self->trainer->set_alphabet(chars);
               std::vector<char32_t> word;
               const spm_train::WordTable& words = counter.words();
               for (size_t i = 0; i < words.size(); ++i) {
                 word_chars(words.word(i), keep, &word);
                 self->trainer->add_word(word, words.count(i), words.ends(i));
               }
               counter.clear_words();
             }
             guard.done();
           },
           nb::arg("counter"), nb::arg("alphabet"), nb::arg("rules"),
           "Takes the counter's words (and empties it); alphabet = [(code point, count)]; rules as SpmBpeMerger's.")
      .def("train",
           [](UnigramHandle& h, size_t vocab_size, size_t seed_size, double shrinking_factor, int sub_iterations,
              int threads) {
             spm_train::UnigramOptions o;
             o.vocab_size = vocab_size;
             o.seed_size = seed_size;
             o.shrinking_factor = shrinking_factor;
             o.sub_iterations = sub_iterations;
             o.threads = threads;
             nb::gil_scoped_release release;
             h.trainer->train(o, &h.progress);
           },
           nb::arg("vocab_size"), nb::arg("seed_size"), nb::arg("shrinking_factor"), nb::arg("sub_iterations"),
           nb::arg("threads"))
      .def_prop_ro("progress",
                   [](const UnigramHandle& h) {
                     return nb::make_tuple(h.progress.round.load(), h.progress.size.load(),
                                           h.progress.objective.load());
                   },
                   "(EM round, pieces, objective: minus the mean log-likelihood per word).")
      .def("pieces", [](const UnigramHandle& h) { return h.trainer->result(); });
}

}  // namespace tf::py
