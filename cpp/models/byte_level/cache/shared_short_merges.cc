#include "models/byte_level/cache/shared_short_merges.h"

#include <cstring>

namespace tf::byte_level {

void SharedShortMerges::insert(Key k, uint64_t h, const uint32_t* ids, size_t count) {
  if (count == 0 || used_.load(std::memory_order_relaxed) * 2 >= kEntries) return;  // full enough
  size_t spilled = 0;
  if (count > kInlineIds) {
    if (spill_used_.load(std::memory_order_relaxed) + count > kMaxSpill) return;
    spilled = spill_used_.fetch_add(count, std::memory_order_relaxed);
    if (spilled + count > kMaxSpill) return;  // lost the race for the last room
    std::memcpy(spill_.get() + spilled, ids, count * sizeof(uint32_t));
  }
  size_t i = h >> (64 - kBits);
  for (size_t probe = 0; probe < kMaxProbes; ++probe, i = (i + 1) & (kEntries - 1)) {
    Entry& e = entries_[i];
    uint64_t hi = e.hi.load(std::memory_order_acquire);
    if (hi == 0) {
      if (!e.hi.compare_exchange_strong(hi, kBusy, std::memory_order_acquire)) {
        if (hi == kBusy) continue;  // another thread is filling it
      } else {
        e.lo = k.lo;
        uint64_t tag = 0;
        if (count <= kInlineIds) {
          std::memcpy(e.ids, ids, count * sizeof(uint32_t));
          tag = static_cast<uint64_t>(count) << kCountShift;
        } else {
          e.ids[0] = static_cast<uint32_t>(spilled);
          e.ids[1] = static_cast<uint32_t>(count);
        }
        e.hi.store(k.hi | tag, std::memory_order_release);
        used_.fetch_add(1, std::memory_order_relaxed);
        return;
      }
    }
    if (hi != kBusy && (hi & kKeyBits) == k.hi && e.lo == k.lo) return;  // there already
  }
}

}  // namespace tf::byte_level
