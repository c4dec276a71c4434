// Binding of tf::train::BpeTrainer as tokenforge._native.BpeTrainer.  Converts arguments
// with the GIL held and releases it around the merging, so a Python thread can poll
// merges_done meanwhile.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <atomic>

#include "bindings/common.h"
#include "training/byte_level/bpe_trainer.h"
#include "training/byte_level/piece_counter.h"

namespace tf::py {

using namespace tf::train;  // this file binds that area

namespace {

// A trainer plus the merge counter that train() updates.
struct TrainerHandle {
  BpeTrainer trainer;
  std::atomic<uint32_t> done{0};
};

}  // namespace

void bind_bpe_trainer(nb::module_& m) {
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
