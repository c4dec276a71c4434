#include "models/byte_level/vocab/join_index.h"

#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace tf::byte_level {

void JoinIndex::allocate(size_t entries) {
  owner_.reset();
  buckets_ = nullptr;
  count_ = entries * 4 / (3 * kWays) + 1;  // load about 3/4
  // On one 2 MB huge page where the kernel offers them (o200k's table takes 1.1 MB):
  // the lookups are cache misses already, and would be TLB misses too on 4 KB pages.
  const size_t bytes = count_ * sizeof(Bucket);
  constexpr size_t kHuge = size_t{2} << 20;
  const size_t align = bytes >= kHuge / 4 ? kHuge : 64;
  Bucket* table = static_cast<Bucket*>(std::aligned_alloc(align, (bytes + align - 1) / align * align));
  if (table == nullptr) throw std::bad_alloc();
#if defined(MADV_HUGEPAGE)
  if (align == kHuge) madvise(table, (bytes + align - 1) / align * align, MADV_HUGEPAGE);
#endif
  for (uint64_t b = 0; b < count_; ++b) {
    for (int i = 0; i < kWays; ++i) table[b].key[i] = kEmpty;
    for (int i = 0; i <= kWays; ++i) table[b].id[i] = kNoToken;
  }
  owner_.reset(table);
  buckets_ = table;
  // About 12 to 24 bits per entry, at least 64 words.
  int bits = 6;
  while ((uint64_t{1} << bits) < entries * 12 / 64) ++bits;
  filter_.assign(size_t{1} << bits, 0);
  filter_shift_ = 64 - bits;
}

void JoinIndex::insert(uint32_t left, uint32_t right, uint32_t id) {
  const uint64_t h = hash(left, right);
  filter_[h >> filter_shift_] |= filter_bits(h);
  Bucket* table = owner_.get();
  for (uint64_t b = bucket_of(h);; b = b + 1 == count_ ? 0 : b + 1) {
    Bucket& s = table[b];
    for (int i = 0; i < kWays; ++i) {
      if (s.key[i] == kEmpty) {
        s.key[i] = key(left, right);
        s.id[i] = id;
        return;
      }
    }
    s.id[kWays] = kMore;
  }
}

}  // namespace tf::byte_level
