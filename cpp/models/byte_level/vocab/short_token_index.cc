#include "models/byte_level/vocab/short_token_index.h"

#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace tf::byte_level {

void ShortTokenIndex::build(const TokenTable& vocab) {
  owner_.reset();
  buckets_ = nullptr;
  auto wanted = [&](uint32_t id) {
    if (!vocab.has(id)) return false;
    std::string_view s = vocab.bytes(id);
    return !s.empty() && s.size() <= kMaxLen;
  };
  size_t count = 0;
  for (uint32_t id = 0; id < vocab.id_bound(); ++id) count += wanted(id);
  size_t cap = 16;
  int bits = 4;
  // Load <= 1/2: overflows stay rare.
  while (cap * kWays < count * 2) cap <<= 1, ++bits;
  // 2 MB aligned and marked for huge pages where the kernel offers them: a lookup then
  // rarely misses the TLB as well as the cache.
  const size_t bytes = cap * sizeof(Bucket);
  constexpr size_t kHuge = size_t{2} << 20;
  const size_t align = bytes >= kHuge ? kHuge : 64;
  Bucket* table = static_cast<Bucket*>(std::aligned_alloc(align, (bytes + align - 1) / align * align));
  if (table == nullptr) throw std::bad_alloc();
#if defined(MADV_HUGEPAGE)
  if (bytes >= kHuge) madvise(table, bytes, MADV_HUGEPAGE);
#endif
  std::memset(static_cast<void*>(table), 0, bytes);
  owner_.reset(table);
  mask_ = cap - 1;
  shift_ = 64 - bits;
  for (uint32_t id = 0; id < vocab.id_bound(); ++id) {
    if (!wanted(id)) continue;
    std::string_view s = vocab.bytes(id);
    size_t n = s.size();
    Key k = key_exact(reinterpret_cast<const uint8_t*>(s.data()), n);
    for (uint64_t b = bucket_of(k);; b = (b + 1) & mask_) {
      Bucket& bucket = table[b];
      int free = -1;
      for (int i = 0; i < kWays && free < 0; ++i) {
        if (bucket.hi[i] == 0) free = i;
      }
      if (free < 0) {
        bucket.overflow = 1;
        continue;
      }
      bucket.lo[free] = k.lo;
      bucket.hi[free] = k.hi;
      bucket.id[free] = id;
      break;
    }
  }
  buckets_ = table;
}

}  // namespace tf::byte_level
