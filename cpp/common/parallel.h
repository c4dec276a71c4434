// parallel_for: run f(i) for i in [0, n) on up to `threads` threads (the caller is one of
// them), handing out indices through an atomic counter so items of uneven size balance.
//
// The helper threads come from a process-wide pool that keeps them between calls, so a
// batch of small texts does not pay for starting threads and each worker's per-thread
// caches (see models/piece_cache.h) stay warm.  A call made while the pool is busy (from
// another Python thread, the GIL being released) starts threads of its own instead.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <functional>
#include <thread>
#include <vector>

namespace tf {

// The number of CPUs this thread may run on (its affinity mask; else the hardware's), >= 1.
size_t usable_cpus();

namespace parallel_detail {
// Runs f on `helpers` pool threads plus the caller; false if the pool is busy.
bool run_on_pool(size_t helpers, const std::function<void()>& work);
}  // namespace parallel_detail

template <typename F>
void parallel_for(size_t n, int threads, F&& f) {
  size_t t = std::min(static_cast<size_t>(std::max(1, threads)), n);
  if (t <= 1) {
    for (size_t i = 0; i < n; ++i) f(i);
    return;
  }
  std::atomic<size_t> next{0};
  std::function<void()> worker = [&]() {
    for (size_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < n;) f(i);
  };
  if (parallel_detail::run_on_pool(t - 1, worker)) return;
  std::vector<std::thread> pool;
  pool.reserve(t - 1);
  for (size_t k = 0; k + 1 < t; ++k) pool.emplace_back(worker);
  worker();
  for (auto& th : pool) th.join();
}

}  // namespace tf
