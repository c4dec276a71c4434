#include "models/byte_level/cache/piece_cache.h"

#include <atomic>
#include <memory>
#include <utility>

namespace tf {

uint64_t new_cache_owner() {
  static std::atomic<uint64_t> owners{0};
  return ++owners;
}

PieceCache& thread_cache(uint64_t owner) {
  constexpr size_t kKeep = 4;
  thread_local std::vector<std::pair<uint64_t, std::unique_ptr<PieceCache>>> caches;
  for (size_t i = 0; i < caches.size(); ++i) {
    if (caches[i].first == owner) {
      if (i != 0) std::swap(caches[i], caches[0]);  // most recent first
      return *caches[0].second;
    }
  }
  if (caches.size() == kKeep) caches.pop_back();
  caches.insert(caches.begin(), {owner, std::make_unique<PieceCache>()});
  return *caches[0].second;
}

}  // namespace tf
