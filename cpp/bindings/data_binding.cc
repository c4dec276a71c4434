// The flat batch encode behind tokenforge.data and the one-long-text path: many texts to
// one uint32 array (an end-of-text id after each text, if asked) plus each text's token
// count, encoded on native threads without a Python list per text.  encode_many in
// encoding_binding.cc builds lists; a dataset writer wants one array per block, and
// turning 10^8 Python ints back into an array cost more than encoding them.
//
// count_batch sums the token counts of many texts on native threads (the parts of one
// long text in Encoding.count_tokens).  Leaves out SentencePiece models.
#include <nanobind/ndarray.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bindings/batch.h"
#include "bindings/common.h"
#include "pipeline/encoding.h"
#include "common/parallel.h"

namespace tf::py {

namespace {

size_t utf8_size_bound(const StrView& v) {
  if (v.ascii) return v.length;
  return v.length * (v.kind == PyUnicode_1BYTE_KIND ? 2 : v.kind == PyUnicode_2BYTE_KIND ? 3 : 4);
}

template <typename T>
nb::object owned_array(T* data, size_t n) {
  size_t shape[1] = {n};
  nb::capsule owner(data, [](void* p) noexcept { std::free(p); });
  return nb::cast(nb::ndarray<nb::numpy, T, nb::ndim<1>>(data, 1, shape, owner));
}

template <typename T>
T* allocate(size_t n) {
  void* p = std::malloc(std::max<size_t>(n, 1) * sizeof(T));
  if (p == nullptr) throw std::bad_alloc();
  return static_cast<T*>(p);
}

// (tokens: uint32[...], counts: int64[len(texts)]).  eot < 0: no separator.  Special
// tokens in `allowed` are encoded as such; with none given, the texts are ordinary text.
nb::object encode_flat(const Encoding& enc, nb::list texts, long long eot, int threads, const SpecialMatcher* allowed) {
  const nb::tuple items = snapshot(texts);
  const size_t n = items.size();
  const std::vector<StrView> views = str_views(items);
  const std::vector<size_t> starts = batch_chunks(n, threads, [&](size_t i) { return views[i].length; });
  struct alignas(64) Chunk {  // own cache line: two threads fill neighbouring chunks
    std::vector<uint32_t> ids;
    bool failed = false;
    std::string error;
  };
  std::vector<Chunk> chunks(starts.size() - 1);
  int64_t* counts = allocate<int64_t>(n);
  uint32_t* tokens = nullptr;
  size_t total = 0;
  {
    nb::gil_scoped_release release;  // the strs are kept alive by `items` and immutable
    parallel_for(chunks.size(), threads, [&](size_t c) {
      Chunk& ch = chunks[c];
      thread_local Utf8Buffer buffer;
      size_t bytes = 0;
      for (size_t i = starts[c]; i < starts[c + 1]; ++i) bytes += views[i].length;
      ch.ids.reserve(bytes / 3 + 16);
      for (size_t i = starts[c]; i < starts[c + 1]; ++i) {
        const std::string_view text = to_utf8(views[i], &buffer);
        const size_t before = ch.ids.size();
        const bool ok = allowed != nullptr ? enc.encode(text, *allowed, &ch.ids, &ch.error)
                                           : enc.encode_ordinary(text, &ch.ids, &ch.error);
        if (!ok) {
          ch.failed = true;
          return;
        }
        counts[i] = static_cast<int64_t>(ch.ids.size() - before);
        if (eot >= 0) ch.ids.push_back(static_cast<uint32_t>(eot));
      }
      buffer.trim(size_t{16} << 20);
    });
    for (const Chunk& ch : chunks) total += ch.ids.size();
    tokens = static_cast<uint32_t*>(std::malloc(std::max<size_t>(total, 1) * sizeof(uint32_t)));
    if (tokens != nullptr) {
      size_t at = 0;
      for (Chunk& ch : chunks) {
        if (!ch.ids.empty()) std::memcpy(tokens + at, ch.ids.data(), ch.ids.size() * sizeof(uint32_t));
        at += ch.ids.size();
        std::vector<uint32_t>().swap(ch.ids);
      }
    }
  }
  for (const Chunk& ch : chunks) {
    if (ch.failed) {
      std::free(counts);
      std::free(tokens);
      value_error(ch.error);
    }
  }
  if (tokens == nullptr) {
    std::free(counts);
    throw std::bad_alloc();
  }
  nb::object counts_array = owned_array(counts, n);
  return nb::make_tuple(owned_array(tokens, total), counts_array);
}

size_t count_batch(const Encoding& enc, nb::list texts, const SpecialMatcher& allowed, int threads) {
  const nb::tuple items = snapshot(texts);
  const size_t n = items.size();
  const std::vector<StrView> views = str_views(items);
  std::vector<size_t> counts(n, 0);
  std::vector<std::string> errors(n);
  {
    nb::gil_scoped_release release;
    parallel_for(n, threads, [&](size_t i) {
      Utf8Buffer buffer;
      const std::string_view text = to_utf8(views[i], &buffer);
      if (!enc.count(text, allowed, &counts[i], &errors[i]) && errors[i].empty()) errors[i] = "cannot count";
    });
  }
  size_t total = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!errors[i].empty()) value_error(errors[i]);
    total += counts[i];
  }
  return total;
}

}  // namespace

void bind_data(nb::module_& m) {
  m.def("encode_flat", &encode_flat, nb::arg("encoding"), nb::arg("texts"), nb::arg("eot"), nb::arg("threads"),
        nb::arg("allowed").none() = nb::none(),
        "(tokens, counts): the texts encoded into one uint32 array, `eot` after each text when >= 0, and "
        "each text's token count (without the eot), on `threads` native threads; specials in `allowed` "
        "(a SpecialSet) are encoded as such, none if it is None.");
  m.def("count_batch", &count_batch, nb::arg("encoding"), nb::arg("texts"), nb::arg("allowed"), nb::arg("threads"),
        "The total token count of the texts (specials in `allowed` as such), on `threads` native threads.");
}

}  // namespace tf::py
