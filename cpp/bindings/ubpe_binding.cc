// Bindings of the UBPE core (cpp/models/ubpe/): the fit and the two encoders.  Ids arrive as
// sequences of ints (Python maps symbols to ids); batches run without the GIL.
#include <nanobind/nanobind.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/vector.h>

#include <string>

#include "bindings/common.h"
#include "models/ubpe/classic_encoder.h"
#include "models/ubpe/fit.h"
#include "models/ubpe/universal_encoder.h"
#include "common/parallel.h"

namespace tf::py {
namespace {

using tf::ubpe::Encoded;

// A sequence of ids as uint32, or ValueError naming the bad item.
std::vector<uint32_t> ubpe_ids(nb::handle seq) {
  nb::object fast = nb::steal(PySequence_Fast(seq.ptr(), "UBPE ids must be a sequence of ints"));
  if (!fast.is_valid()) {
    PyErr_Clear();
    throw nb::value_error("UBPE ids must be a sequence of ints");
  }
  Py_ssize_t n = PySequence_Fast_GET_SIZE(fast.ptr());
  PyObject** items = PySequence_Fast_ITEMS(fast.ptr());
  std::vector<uint32_t> ids(static_cast<size_t>(n));
  for (Py_ssize_t i = 0; i < n; ++i) {
    int overflow = 0;
    long long v = PyLong_Check(items[i]) ? PyLong_AsLongLongAndOverflow(items[i], &overflow) : -1;
    if (v == -1 && PyErr_Occurred()) PyErr_Clear();
    if (!PyLong_Check(items[i]) || overflow != 0 || v < 0 || v >= 0xFFFFFFFFll) {
      nb::object repr = nb::steal(PyObject_Repr(items[i]));
      throw nb::value_error(("UBPE id " + std::string(nb::borrow<nb::str>(repr).c_str()) +
                             " is not an int in 0..2**32-2").c_str());
    }
    ids[static_cast<size_t>(i)] = static_cast<uint32_t>(v);
  }
  return ids;
}

std::vector<std::vector<uint32_t>> ubpe_id_lists(nb::handle seqs) {
  std::vector<std::vector<uint32_t>> out;
  for (nb::handle s : nb::borrow<nb::iterable>(seqs)) out.push_back(ubpe_ids(s));
  return out;
}

nb::object to_python(const Encoded& e) {
  nb::object ids = nb::steal(new_id_list(e.ids.data(), e.ids.size()));
  if (!ids.is_valid()) throw nb::python_error();
  return nb::make_tuple(ids, e.weight);
}

nb::list to_python(const std::vector<Encoded>& es) {
  nb::list out;
  for (const Encoded& e : es) out.append(to_python(e));
  return out;
}

int thread_count(int n_threads) {
  return n_threads > 0 ? n_threads : static_cast<int>(tf::usable_cpus());
}

}  // namespace

void bind_ubpe(nb::module_& m) {
  m.def("ubpe_fit", [](nb::handle parts, nb::handle part_docs, uint32_t n_docs, uint32_t first_id,
                       uint32_t n_tokens, uint32_t n_candidates) {
    std::vector<std::vector<uint32_t>> p = ubpe_id_lists(parts);
    std::vector<uint32_t> docs = ubpe_ids(part_docs);
    if (docs.size() != p.size()) throw nb::value_error("ubpe_fit: one document index per part");
    tf::ubpe::FitResult r;
    {
      nb::gil_scoped_release release;
      r = tf::ubpe::fit_merges(p, docs, n_docs, first_id, n_tokens, n_candidates);
    }
    return std::make_pair(r.merges, r.weights);
  });

  nb::class_<tf::ubpe::ClassicEncoder>(m, "UbpeClassicEncoder")
      .def("__init__", [](tf::ubpe::ClassicEncoder* self, std::vector<std::pair<uint32_t, uint32_t>> pairs,
                          nb::handle ids, std::vector<double> weights) {
        std::vector<uint32_t> v = ubpe_ids(ids);
        if (v.size() != pairs.size()) throw nb::value_error("one id per pair");
        new (self) tf::ubpe::ClassicEncoder(pairs, v, std::move(weights));
      })
      .def("encode", [](const tf::ubpe::ClassicEncoder& e, nb::handle word) {
        std::vector<uint32_t> w = ubpe_ids(word);
        Encoded r;
        {
          nb::gil_scoped_release release;
          r = e.encode(w);
        }
        return to_python(r);
      })
      .def("encode_many", [](const tf::ubpe::ClassicEncoder& e, nb::handle words, int n_threads) {
        std::vector<std::vector<uint32_t>> ws = ubpe_id_lists(words);
        std::vector<Encoded> rs(ws.size());
        {
          nb::gil_scoped_release release;
          tf::parallel_for(ws.size(), thread_count(n_threads), [&](size_t i) { rs[i] = e.encode(ws[i]); });
        }
        nb::list out;
        for (const Encoded& r : rs) out.append(to_python(r));
        return out;
      }, nb::arg("words"), nb::arg("n_threads") = 0);

  nb::class_<tf::ubpe::UniversalEncoder>(m, "UbpeUniversalEncoder")
      .def("__init__", [](tf::ubpe::UniversalEncoder* self, nb::handle strings, nb::handle ids,
                          std::vector<double> weights) {
        std::vector<std::vector<uint32_t>> s = ubpe_id_lists(strings);
        std::vector<uint32_t> v = ubpe_ids(ids);
        if (v.size() != s.size()) throw nb::value_error("one id per string");
        new (self) tf::ubpe::UniversalEncoder(s, v, std::move(weights));
      })
      .def("encode", [](const tf::ubpe::UniversalEncoder& e, nb::handle word, uint32_t top_n) {
        if (top_n < 1) throw nb::value_error("top_n must be >= 1");
        std::vector<uint32_t> w = ubpe_ids(word);
        std::vector<Encoded> r;
        {
          nb::gil_scoped_release release;
          r = e.encode(w, top_n);
        }
        return to_python(r);
      }, nb::arg("word"), nb::arg("top_n") = 1)
      .def("encode_many", [](const tf::ubpe::UniversalEncoder& e, nb::handle words, uint32_t top_n,
                             int n_threads) {
        if (top_n < 1) throw nb::value_error("top_n must be >= 1");
        std::vector<std::vector<uint32_t>> ws = ubpe_id_lists(words);
        std::vector<std::vector<Encoded>> rs(ws.size());
        {
          nb::gil_scoped_release release;
          tf::parallel_for(ws.size(), thread_count(n_threads), [&](size_t i) { rs[i] = e.encode(ws[i], top_n); });
        }
        nb::list out;
        for (const auto& r : rs) out.append(to_python(r));
        return out;
      }, nb::arg("words"), nb::arg("top_n") = 1, nb::arg("n_threads") = 0);
}

}  // namespace tf::py
