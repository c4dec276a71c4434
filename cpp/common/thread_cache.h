// thread_cache<Cache>(owner): the calling thread's Cache for one owner (a vocabulary).
//
// Models keep their caches per thread, so encoding needs no lock.  An owner is a
// process-unique number from new_cache_owner(), never reused, so a cache cannot outlive
// the meaning of its vocabulary.  A thread keeps the caches of its kKeep most recently
// used owners, most recent first; a lookup is a scan of at most kKeep entries.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace tf {

// A new owner number: process-unique, never reused.
uint64_t new_cache_owner();

template <class Cache>
Cache& thread_cache(uint64_t owner) {
  constexpr size_t kKeep = 4;
  thread_local std::vector<std::pair<uint64_t, std::unique_ptr<Cache>>> caches;
  for (size_t i = 0; i < caches.size(); ++i) {
    if (caches[i].first == owner) {
      if (i != 0) std::swap(caches[i], caches[0]);
      return *caches[0].second;
    }
  }
  if (caches.size() == kKeep) caches.pop_back();
  caches.insert(caches.begin(), {owner, std::make_unique<Cache>()});
  return *caches[0].second;
}

}  // namespace tf
