#include "common/thread_cache.h"

#include <atomic>

namespace tf {

uint64_t new_cache_owner() {
  static std::atomic<uint64_t> owners{0};
  return ++owners;
}

}  // namespace tf
