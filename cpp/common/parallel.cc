#include "common/parallel.h"

#include <condition_variable>
#include <mutex>

#if defined(__linux__)
#include <sched.h>
#endif
#if defined(__unix__) || defined(__APPLE__)
#include <pthread.h>
#endif

namespace tf {

size_t usable_cpus() {
#if defined(__linux__)
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0) return static_cast<size_t>(CPU_COUNT(&set));
#endif
  const unsigned n = std::thread::hardware_concurrency();
  return n > 0 ? n : 1;
}

}  // namespace tf

namespace tf::parallel_detail {

namespace {

// Threads wait for a job, run it, and report back; one job at a time.
class Pool {
 public:
  bool run(size_t helpers, const std::function<void()>& work) {
    std::unique_lock<std::mutex> busy(job_mutex_, std::try_to_lock);
    if (!busy.owns_lock()) return false;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      while (threads_.size() < helpers) threads_.emplace_back([this, id = threads_.size()] { loop(id); });
      job_ = &work;
      wanted_ = helpers;
      running_ = helpers;
      ++generation_;
    }
    wake_.notify_all();
    work();
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return running_ == 0; });
    job_ = nullptr;
    return true;
  }

 private:
  void loop(size_t id) {
    size_t seen = 0;
    while (true) {
      const std::function<void()>* job;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return generation_ != seen && id < wanted_; });
        seen = generation_;
        job = job_;
      }
      (*job)();
      {
        std::lock_guard<std::mutex> lock(mutex_);
        if (--running_ == 0) done_.notify_one();
      }
    }
  }

  std::mutex job_mutex_;  // held for the whole of a job
  std::mutex mutex_;      // guards the fields below
  std::condition_variable wake_, done_;
  std::vector<std::thread> threads_;
  const std::function<void()>* job_ = nullptr;
  size_t wanted_ = 0, running_ = 0, generation_ = 0;
};

// The process's pool, never destroyed: its threads live as long as the process.  A child
// of fork() has none of them (only the forking thread is copied), and the pool's mutexes
// may be held by a thread that is gone, so the child starts a new pool; the old one is
// left alone (destroying its joinable std::threads would terminate).
Pool* g_pool = nullptr;

Pool& pool() {
  static std::once_flag once;
  std::call_once(once, [] {
    g_pool = new Pool();
#if defined(__unix__) || defined(__APPLE__)
    pthread_atfork(nullptr, nullptr, [] { g_pool = new Pool(); });
#endif
  });
  return *g_pool;
}

}  // namespace

bool run_on_pool(size_t helpers, const std::function<void()>& work) { return pool().run(helpers, work); }

}  // namespace tf::parallel_detail
