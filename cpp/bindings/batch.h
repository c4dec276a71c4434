// run_batch_overlapped: encodes a batch of texts on up to `threads` threads while the
// calling thread turns finished chunks into Python objects.  Used by every batch entry
// point (byte-level BPE and SentencePiece).
//
// Building the result lists needs the GIL, so done after the parallel part it is a serial
// tail that held two threads well short of twice the speed.  Here the items are cut into chunks of about equal bytes.  Pool threads take
// chunks from the front, the calling thread from the back; the caller builds each chunk
// it encodes right away (its output still in cache) and, between its own chunks, the pool
// threads' finished ones.  A worker publishes a chunk with one release store of its
// `done` flag; the builder reads it with an acquire load, so it sees the whole chunk.
// Each chunk's output lives in its own storage (no false sharing between threads, one
// allocation per chunk, not per item).
//
// Taking from both ends also keeps each chunk on the same thread from one call to the
// next on the same input, so the per-thread caches (models/piece_cache.h, the Unigram
// word cache) warm up in one call instead of several; with one shared counter, chunks
// landed on either thread at random and a repeated 1 MB batch of short lines ran 1.4 x on
// two threads instead of 1.8 x.
//
// Cost: one GIL acquire per chunk of the caller's and per run of the workers' finished
// chunks; chunks of a few KB keep the tail short and the work balanced.  Results do not
// depend on the thread count or on the order chunks are built: item i is always encoded
// alone, by index, and written to its own slot.
#pragma once

#include <nanobind/nanobind.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <memory>
#include <string_view>
#include <thread>
#include <vector>

#include "bindings/common.h"
#include "common/parallel.h"

namespace tf::py {

// Item boundaries of the chunks: chunk c holds items [starts[c], starts[c + 1]).
// size(i) is item i's cost in bytes (about its UTF-8 length).
template <typename Size>
std::vector<size_t> batch_chunks(size_t items, int threads, Size&& size) {
  size_t total = 0;
  for (size_t i = 0; i < items; ++i) total += size(i);
  const size_t t = static_cast<size_t>(std::max(1, threads));
  const size_t target = std::clamp<size_t>(total / (t * 32), 2048, 256 * 1024);
  constexpr size_t kMaxItems = 1024;
  std::vector<size_t> starts{0};
  size_t bytes = 0;
  for (size_t i = 0; i < items; ++i) {
    bytes += size(i) + 16;  // + a per-item cost, so empty texts still form chunks
    if (bytes >= target || i + 1 - starts.back() >= kMaxItems) {
      starts.push_back(i + 1);
      bytes = 0;
    }
  }
  if (starts.back() != items) starts.push_back(items);
  return starts;
}

inline std::vector<size_t> batch_chunks(const std::vector<std::string_view>& views, int threads) {
  return batch_chunks(views.size(), threads, [&](size_t i) { return views[i].size(); });
}

inline std::vector<size_t> batch_chunks(const std::vector<StrView>& views, int threads) {
  return batch_chunks(views.size(), threads, [&](size_t i) { return approx_utf8_size(views[i]); });
}

// Whether run_batch_overlapped(chunks, threads, ...) gets pool threads beside the caller:
// then what its build step makes overlaps their encoding (documents make their lists there
// only then; on one thread nothing would overlap).
inline bool has_pool_threads(size_t chunks, int threads) {
  return std::min({static_cast<size_t>(std::max(1, threads)), chunks, usable_cpus()}) > 1;
}

// The result list of a batch: n slots that build() fills with PyList_SET_ITEM.  It is not
// tracked by the garbage collector until done(): while slots are still empty, another
// Python thread calling gc.get_objects() must not meet it.
class ResultList {
 public:
  explicit ResultList(size_t n) {
    PyObject* list = PyList_New(static_cast<Py_ssize_t>(n));
    if (list == nullptr) throw nanobind::python_error();
    PyObject_GC_UnTrack(list);
    list_ = nanobind::steal<nanobind::list>(list);
  }
  PyObject* ptr() const { return list_.ptr(); }
  void set(size_t i, PyObject* item) { PyList_SET_ITEM(list_.ptr(), static_cast<Py_ssize_t>(i), item); }
  // Every slot is set: the list may now meet Python code.
  nanobind::list done() {
    PyObject_GC_Track(list_.ptr());
    return std::move(list_);
  }

 private:
  nanobind::list list_;  // freed untracked on an error: list_dealloc takes NULL slots
};

// Hands out chunk indices from both ends of [0, chunks): the front to pool threads, the
// back to the calling thread.  One 64-bit atomic holds both ends, so an index is taken once.
class ChunkDeque {
 public:
  explicit ChunkDeque(size_t chunks) : ends_(static_cast<uint64_t>(chunks)) {}
  // The next chunk from the front (or, with from_back, the back), or false if none is left.
  bool take(bool from_back, size_t* chunk) {
    uint64_t e = ends_.load(std::memory_order_relaxed);
    while (true) {
      const uint64_t front = e >> 32, back = e & 0xFFFFFFFFu;
      if (front >= back) return false;
      const uint64_t next = from_back ? (front << 32) | (back - 1) : ((front + 1) << 32) | back;
      if (ends_.compare_exchange_weak(e, next, std::memory_order_relaxed)) {
        *chunk = static_cast<size_t>(from_back ? back - 1 : front);
        return true;
      }
    }
  }

 private:
  std::atomic<uint64_t> ends_;  // (front << 32) | back
};

// encode(c) runs without the GIL on any thread; build(c) runs with the GIL on the calling
// thread, once per chunk in no fixed order, and returns false with a Python error set to
// stop building (encoding still finishes).  Returns false if some build failed.  Call
// with the GIL held.  Fewer than 2^32 chunks.
template <typename Encode, typename Build>
bool run_batch_overlapped(size_t chunks, int threads, Encode&& encode, Build&& build) {
  std::unique_ptr<std::atomic<bool>[]> done(new std::atomic<bool>[chunks]);
  for (size_t c = 0; c < chunks; ++c) done[c].store(false, std::memory_order_relaxed);
  std::vector<uint8_t> built(chunks, 0);  // the calling thread's alone
  ChunkDeque deque(chunks);
  const std::thread::id caller = std::this_thread::get_id();
  // More threads than CPUs only adds cold per-thread caches and context switches; results do not
  // depend on the count, so it is capped.
  const size_t t = std::min({static_cast<size_t>(std::max(1, threads)), chunks, usable_cpus()});
  size_t front_built = 0;  // chunks [0, front_built) are built or the caller's own
  size_t remaining = chunks;
  bool ok = true;
  auto build_one = [&](size_t c) {  // GIL held
    if (ok) ok = build(c);
    built[c] = 1;
    --remaining;
  };
  // The pool threads' finished chunks, in order from the front.
  auto build_ready = [&]() {  // GIL held
    for (; front_built < chunks; ++front_built) {
      if (built[front_built]) continue;
      if (!done[front_built].load(std::memory_order_acquire)) break;
      build_one(front_built);
    }
  };
  auto worker = [&](size_t) {
    size_t c;
    if (std::this_thread::get_id() != caller) {
      while (deque.take(false, &c)) {
        encode(c);
        done[c].store(true, std::memory_order_release);
      }
      return;
    }
    // With no pool thread the caller goes front to back, as a plain loop would.
    while (deque.take(t > 1, &c)) {
      encode(c);
      done[c].store(true, std::memory_order_relaxed);
      nanobind::gil_scoped_acquire gil;
      build_one(c);
      build_ready();
    }
    while (remaining > 0) {  // the pool threads' last chunks
      if (front_built < chunks && !built[front_built] && !done[front_built].load(std::memory_order_acquire)) {
        std::this_thread::yield();
        continue;
      }
      nanobind::gil_scoped_acquire gil;
      build_ready();
    }
  };
  {
    nanobind::gil_scoped_release release;
    parallel_for(std::max<size_t>(t, 1), static_cast<int>(t), worker);
  }
  // A pool thread may have taken every worker slot before the caller took one; then the
  // caller built nothing yet, and every chunk is encoded by now.
  for (size_t c = 0; c < chunks; ++c) {
    if (!built[c]) build_one(c);
  }
  return ok;
}

}  // namespace tf::py
