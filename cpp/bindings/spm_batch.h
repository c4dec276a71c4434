// run_batch_overlapped: encodes a batch of texts on up to `threads` threads while the
// calling thread turns finished chunks into Python objects.
//
// Building the result lists needs the GIL, so done after the parallel part it is a serial
// tail (measured: ~3 ms of ~18 ms for 1 MB of English lines, which held two threads to
// ~1.5 x).  Here the items are cut into chunks of about equal bytes; every thread takes
// chunks from an atomic counter and encodes them without the GIL, and the calling thread,
// between its own chunks, takes the GIL and builds the finished chunks in order.  A worker
// publishes a chunk with one release store of its `done` flag; the builder reads it with
// an acquire load, so it sees the whole chunk.  Each chunk's output lives in its own
// storage (no false sharing between threads, one allocation per chunk, not per item).
//
// Cost: one GIL acquire per run of finished chunks; chunks of a few KB keep the tail (the
// last chunk's build) short and the work balanced.  Results do not depend on the thread
// count: item i is always encoded alone, by index.
#pragma once

#include <nanobind/nanobind.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <memory>
#include <string_view>
#include <thread>
#include <vector>

#include "util/parallel.h"

namespace tf::py {

// Item boundaries of the chunks: chunk c holds items [starts[c], starts[c + 1]).
inline std::vector<size_t> batch_chunks(const std::vector<std::string_view>& views, int threads) {
  size_t total = 0;
  for (std::string_view v : views) total += v.size();
  const size_t t = static_cast<size_t>(std::max(1, threads));
  const size_t target = std::clamp<size_t>(total / (t * 32), 2048, 256 * 1024);
  constexpr size_t kMaxItems = 1024;
  std::vector<size_t> starts{0};
  size_t bytes = 0;
  for (size_t i = 0; i < views.size(); ++i) {
    bytes += views[i].size() + 16;  // + a per-item cost, so empty texts still form chunks
    if (bytes >= target || i + 1 - starts.back() >= kMaxItems) {
      starts.push_back(i + 1);
      bytes = 0;
    }
  }
  if (starts.back() != views.size()) starts.push_back(views.size());
  return starts;
}

// encode(c) runs without the GIL on any thread; build(c) runs with the GIL on the calling
// thread, for c = 0, 1, ... in order, and returns false with a Python error set to stop
// building (encoding still finishes).  Returns false if some build failed.  Call with the
// GIL held.
template <typename Encode, typename Build>
bool run_batch_overlapped(size_t chunks, int threads, Encode&& encode, Build&& build) {
  std::unique_ptr<std::atomic<bool>[]> done(new std::atomic<bool>[chunks]);
  for (size_t c = 0; c < chunks; ++c) done[c].store(false, std::memory_order_relaxed);
  std::atomic<size_t> next{0};
  const std::thread::id caller = std::this_thread::get_id();
  size_t built = 0;
  bool ok = true;
  auto encode_next = [&]() {
    const size_t c = next.fetch_add(1, std::memory_order_relaxed);
    if (c >= chunks) return false;
    encode(c);
    done[c].store(true, std::memory_order_release);
    return true;
  };
  auto worker = [&](size_t) {
    if (std::this_thread::get_id() != caller) {
      while (encode_next()) {
      }
      return;
    }
    while (built < chunks) {
      if (done[built].load(std::memory_order_acquire)) {
        nanobind::gil_scoped_acquire gil;
        for (; built < chunks && done[built].load(std::memory_order_acquire); ++built) {
          if (ok) ok = build(built);
        }
      } else if (!encode_next()) {
        std::this_thread::yield();  // the last chunks are being encoded by another thread
      }
    }
  };
  const size_t t = std::min(static_cast<size_t>(std::max(1, threads)), chunks);
  {
    nanobind::gil_scoped_release release;
    parallel_for(std::max<size_t>(t, 1), static_cast<int>(t), worker);
  }
  // A pool thread may have taken every worker slot before the caller took one; then the
  // caller built nothing yet, and every chunk is encoded by now.
  for (; built < chunks; ++built) {
    if (ok) ok = build(built);
  }
  return ok;
}

}  // namespace tf::py
