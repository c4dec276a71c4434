#include "util/parallel.h"

#include <condition_variable>
#include <mutex>

#if defined(__linux__)
#include <sched.h>
#endif
#include <unistd.h>

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

Pool& pool() {
  static Pool* p = new Pool();  // never destroyed: its threads live as long as the process
  return *p;
}

}  // namespace

// A child forked after the pool started has none of its threads (only the forking thread
// survives a fork) and maybe a mutex held: it never uses the pool, so parallel_for starts
// threads of its own there instead of waiting forever (tokenizers' TOKENIZERS_PARALLELISM
// problem).
bool run_on_pool(size_t helpers, const std::function<void()>& work) {
  static const pid_t owner = getpid();
  if (getpid() != owner) return false;
  return pool().run(helpers, work);
}

}  // namespace tf::parallel_detail
