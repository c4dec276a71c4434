#include "models/sentencepiece/unigram_word_cache.h"

#include <memory>
#include <utility>

#include "common/byte_hash.h"

namespace tf {

uint64_t UnigramWordCache::rehash(const uint32_t* record) {
  return hash_bytes(reinterpret_cast<const uint8_t*>(record + 2), record[0] & 0xFFFF) | 1;  // as Unigram::encode
}

UnigramWordCache& unigram_word_cache(uint64_t owner) {
  constexpr size_t kKeep = 4;
  thread_local std::vector<std::pair<uint64_t, std::unique_ptr<UnigramWordCache>>> caches;
  for (size_t i = 0; i < caches.size(); ++i) {
    if (caches[i].first == owner) {
      if (i != 0) std::swap(caches[i], caches[0]);  // most recent first
      return *caches[0].second;
    }
  }
  if (caches.size() == kKeep) caches.pop_back();
  caches.insert(caches.begin(), {owner, std::make_unique<UnigramWordCache>()});
  return *caches[0].second;
}

}  // namespace tf
