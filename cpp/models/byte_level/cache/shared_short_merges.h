// SharedShortMerges: the merges of short strings (1..15 bytes), shared by the threads that
// encode the parts of one long text, so that a merge one thread works out is not worked out
// again by the other.
//
// Each thread keeps its own ShortMergeCache (no lock, no atomics on the hot path).  When
// several threads encode one text at once (the parallel path of Encoding, see
// bindings/batch.h), a string one thread has merged is often met by another thread soon
// after: the words of a text recur across its parts.  Without this table each thread's
// cache learns them all again from cold.  Here a thread that misses its own cache looks
// this table up before merging, and publishes what it merges.
//
// Insert-only, open addressing, fixed size, lock-free: an entry is claimed by a CAS of its
// `hi` word from 0 to kBusy, filled, then published by a release store of the real `hi`; a
// reader acquires `hi` before it reads the rest, so it sees a whole entry or none.  Entries
// are never changed or removed, so a found entry stays right.  Once half the slots are
// used it takes no more (the threads' own caches go on learning).  Merges of more than
// kInlineIds ids (a word of a script the vocabulary knows little of) go to an arena taken
// by an atomic bump; once it is full such merges are not stored.  One table per Encoding
// instance, allocated on its first parallel encode; its size is fixed (kEntries * 32 bytes
// plus kMaxSpill ids).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "models/byte_level/vocab/short_token_index.h"

namespace tf::byte_level {

class SharedShortMerges {
 public:
  using Key = ShortTokenIndex::Key;
  static constexpr size_t kInlineIds = 4;
  static constexpr int kBits = 17;
  static constexpr size_t kEntries = size_t{1} << kBits;

  static constexpr size_t kMaxSpill = size_t{1} << 20;

  SharedShortMerges() : entries_(new Entry[kEntries]), spill_(new uint32_t[kMaxSpill]) {}

  // h = ShortTokenIndex::hash(k).  Appends the ids stored for k and returns true, or false.
  bool find(Key k, uint64_t h, std::vector<uint32_t>* out) const {
    size_t i = h >> (64 - kBits);
    for (size_t probe = 0; probe < kMaxProbes; ++probe, i = (i + 1) & (kEntries - 1)) {
      const Entry& e = entries_[i];
      const uint64_t hi = e.hi.load(std::memory_order_acquire);
      if (hi == 0) return false;
      if (hi == kBusy || (hi & kKeyBits) != k.hi || e.lo != k.lo) continue;
      const size_t count = hi >> kCountShift;
      if (count != 0) {
        out->insert(out->end(), e.ids, e.ids + count);
      } else {
        out->insert(out->end(), spill_.get() + e.ids[0], spill_.get() + e.ids[0] + e.ids[1]);
      }
      return true;
    }
    return false;
  }

  // Publishes the ids of k (count >= 1).
  void insert(Key k, uint64_t h, const uint32_t* ids, size_t count);

 private:
  // As in ShortMergeCache: the key's hi has the length in bits 56..59 and zeros above; the
  // count of inline ids (1..kInlineIds; 0: ids[0], ids[1] are an offset in spill_ and a
  // count) goes in bits 60..63.  The length is >= 1, so a published hi is never 0, nor
  // kBusy (length 15 with a count of 15).
  static constexpr int kCountShift = 60;
  static constexpr uint64_t kKeyBits = (uint64_t{1} << kCountShift) - 1;
  static constexpr uint64_t kBusy = ~uint64_t{0};
  static constexpr size_t kMaxProbes = 16;
  struct alignas(32) Entry {
    std::atomic<uint64_t> hi{0};
    uint64_t lo = 0;
    uint32_t ids[kInlineIds] = {};
  };
  static_assert(sizeof(Entry) == 32, "two entries per cache line");

  std::unique_ptr<Entry[]> entries_;
  std::atomic<size_t> used_{0};
  std::unique_ptr<uint32_t[]> spill_;
  std::atomic<size_t> spill_used_{0};
};

}  // namespace tf::byte_level
