// Binding of tf::PieceCounter and tf::BpeTrainer as tokenforge._native.PieceCounter /
// BpeTrainer.  Converts arguments with the GIL held and releases it around all counting
// and merging, so a Python thread can poll the progress counters meanwhile.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <atomic>

#include "bindings/common.h"
#include "training/bpe_trainer.h"
#include "training/piece_counter.h"

namespace tf::py {

namespace {

// A trainer plus the merge counter that train() updates.
struct TrainerHandle {
  BpeTrainer trainer;
  std::atomic<uint32_t> done{0};
};

[[noreturn]] void os_error(const std::string& msg) {
  PyErr_SetString(PyExc_OSError, msg.c_str());
  throw nb::python_error();
}

}  // namespace

void bind_training(nb::module_& m) {
  nb::class_<PieceCounter>(m, "PieceCounter")
      .def("__init__",
           [](PieceCounter* self, int pattern, int threads, uint64_t block_bytes) {
             if (pattern < 0 || pattern > 3) value_error("unknown split pattern id " + std::to_string(pattern));
             new (self) PieceCounter(static_cast<SplitPattern>(pattern), threads, block_bytes);
           },
           nb::arg("pattern"), nb::arg("threads"), nb::arg("block_bytes") = uint64_t{4} << 20)
      .def("add_files",
           [](PieceCounter& c, const std::vector<std::string>& paths, bool replace_invalid, bool by_line) {
             std::string error;
             bool ok, is_os = false;
             {
               nb::gil_scoped_release release;
               ok = c.add_files(paths, replace_invalid, by_line, &error, &is_os);
             }
             if (!ok) {
               if (is_os) os_error(error);
               value_error(error);
             }
           },
           nb::arg("paths"), nb::arg("replace_invalid"), nb::arg("by_line") = false)
      .def("set_specials", &PieceCounter::set_specials, nb::arg("specials"),
           "Special tokens: they cut the text and are not counted.  Set before adding input.")
      .def("add_texts",
           [](PieceCounter& c, nb::list texts) {
             nb::tuple items = snapshot(texts);
             std::vector<std::string_view> views = utf8_views(items);
             nb::gil_scoped_release release;
             c.add_texts(views);
           },
           nb::arg("texts"))
      .def("add_pieces",
           [](PieceCounter& c, nb::list pieces) {
             nb::tuple items = snapshot(pieces);
             std::vector<std::string_view> views = utf8_views(items);
             nb::gil_scoped_release release;
             c.add_pieces(views);
           },
           nb::arg("pieces"))
      .def_prop_ro("bytes_done", &PieceCounter::bytes_done)
      .def("counts",
           [](PieceCounter& c) {
             nb::dict out;
             c.merged().for_each([&](const uint8_t* p, size_t n, uint64_t count) {
               out[to_bytes(std::string_view(reinterpret_cast<const char*>(p), n))] = count;
             });
             return out;
           },
           "All pieces counted so far as a dict bytes -> count (for tests and small inputs).");

  nb::class_<TrainerHandle>(m, "BpeTrainer")
      .def(nb::init<>())
      .def("add_counts",
           [](TrainerHandle& t, PieceCounter& c) {
             bool ok;
             {
               nb::gil_scoped_release release;
               ok = t.trainer.add_words(c.merged());
               c.release();  // the trainer has copied the pieces: don't hold them twice while merging
             }
             if (!ok) value_error("the corpus has more than 4 billion bytes of distinct pieces");
           },
           nb::arg("counter"), "Copies the counter's pieces into the trainer and empties the counter.")
      .def("add_word",
           [](TrainerHandle& t, nb::bytes word, uint64_t count) {
             std::string_view v = bytes_view(word);
             if (!t.trainer.add_word(reinterpret_cast<const uint8_t*>(v.data()), v.size(), count))
               value_error("the corpus has more than 4 billion bytes of distinct pieces");
           },
           nb::arg("word"), nb::arg("count"))
      .def("train",
           [](TrainerHandle& t, uint32_t vocab_size, uint64_t min_frequency, bool word_level, int64_t skip_floor) {
             nb::gil_scoped_release release;
             t.trainer.train(vocab_size, min_frequency, &t.done, word_level, skip_floor);
           },
           nb::arg("vocab_size"), nb::arg("min_frequency"), nb::arg("word_level") = false, nb::arg("skip_floor") = 16,
           "word_level and skip_floor choose slower or faster bookkeeping with the same result (for tests).")
      .def("set_first_seen", [](TrainerHandle& t, bool on) { t.trainer.set_first_seen(on); }, nb::arg("on"),
           "minbpe's rule: ties go to the pair seen first, and every merge makes a new id.")
      .def_prop_ro("merges_done", [](const TrainerHandle& t) { return t.done.load(std::memory_order_relaxed); })
      .def_prop_ro("num_words", [](const TrainerHandle& t) { return t.trainer.num_words(); })
      .def("sizes",
           [](const TrainerHandle& t) {
             nb::dict d;
             d["words"] = t.trainer.num_words();
             d["units"] = t.trainer.num_units();
             d["pairs"] = t.trainer.num_pairs();
             d["heap_capacity"] = t.trainer.heap_capacity();
             return d;
           },
           "Sizes of the trainer's tables (for benchmarks).")
      .def("text_size",
           [](const TrainerHandle& t) {
             auto [bytes, tokens] = t.trainer.text_size();
             return nb::make_tuple(bytes, tokens);
           },
           "(bytes, tokens) of the training text with the merges learned so far.")
      .def("tokens",
           [](const TrainerHandle& t) {
             nb::list out;
             for (const std::string& s : t.trainer.tokens()) out.append(to_bytes(s));
             return out;
           })
      .def("merges", [](const TrainerHandle& t) {
        nb::list out;
        const auto& pairs = t.trainer.merges();
        const auto& ids = t.trainer.merge_ids();
        for (size_t i = 0; i < pairs.size(); ++i) out.append(nb::make_tuple(pairs[i].first, pairs[i].second, ids[i]));
        return out;
      });
}

}  // namespace tf::py
