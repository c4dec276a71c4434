#include "models/byte_level/cache/short_merge_cache.h"

namespace tf::byte_level {

void ShortMergeCache::insert(Key k, uint64_t h, const uint32_t* ids, size_t count) {
  if (count > kInlineIds && spill_.size() + count > kMaxSpill) return;  // not stored
  if (used_ * 2 >= entries_.size() && entries_.size() < kMaxEntries) grow();
  size_t i = h >> shift_;
  if (used_ * 2 < entries_.size()) {
    while (entries_[i].hi != 0) i = (i + 1) & mask_;
    ++used_;
  } else {
    if (entries_[i].hi == 0 && ++used_ * 4 > entries_.size() * 3) {
      clear();  // home slots rarely fill it to three quarters
      used_ = 1;
    }  // else the entry at the home slot gives way
  }
  Entry& e = entries_[i];
  e.lo = k.lo;
  if (count <= kInlineIds) {
    e.hi = k.hi | static_cast<uint64_t>(count) << kCountShift;
    std::memcpy(e.ids, ids, count * sizeof(uint32_t));
  } else {
    e.hi = k.hi;
    e.ids[0] = static_cast<uint32_t>(spill_.size());
    e.ids[1] = static_cast<uint32_t>(count);
    spill_.insert(spill_.end(), ids, ids + count);
  }
}

void ShortMergeCache::clear() {
  std::fill(entries_.begin(), entries_.end(), Entry{});
  spill_.clear();
  used_ = 0;
}

void ShortMergeCache::grow() {
  std::vector<Entry> old(entries_.size() * 2);
  old.swap(entries_);
  mask_ = entries_.size() - 1;
  --shift_;
  for (const Entry& e : old) {
    if (e.hi == 0) continue;
    size_t i = ShortTokenIndex::hash(Key{e.lo, e.hi & kKeyBits}) >> shift_;
    while (entries_[i].hi != 0) i = (i + 1) & mask_;
    entries_[i] = e;
  }
}

}  // namespace tf::byte_level
