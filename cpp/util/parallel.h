// parallel_for: run f(i) for i in [0, n) on up to `threads` std::threads, handing out
// indices through an atomic counter (items of uneven size balance themselves).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

namespace tf {

template <typename F>
void parallel_for(size_t n, int threads, F&& f) {
  size_t t = static_cast<size_t>(std::max(1, threads));
  t = std::min(t, n);
  if (t <= 1) {
    for (size_t i = 0; i < n; ++i) f(i);
    return;
  }
  std::atomic<size_t> next{0};
  auto worker = [&]() {
    for (size_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < n;) f(i);
  };
  std::vector<std::thread> pool;
  pool.reserve(t - 1);
  for (size_t k = 0; k + 1 < t; ++k) pool.emplace_back(worker);
  worker();
  for (auto& th : pool) th.join();
}

}  // namespace tf
