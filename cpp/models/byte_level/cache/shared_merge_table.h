// SharedMergeTable: the merges of one long text's parts, shared by the threads that encode
// them (bindings/one_text.cc), so that a string merged by one thread is not merged again
// by another whose own cache (ByteLevelCache) has not met it yet.
//
// A second level behind each thread's cache: a thread asks it only when its own cache
// misses, and copies what it finds into its own cache; what it merges itself it stores
// in both.  Keys are the strings' bytes (short strings with ShortTokenIndex::hash, longer
// pieces with hash_bytes; the stored length tells them apart), values their merge (the
// ids of merging the bytes, without the whole-token shortcut), the one function of the
// bytes that both the short merge cache and the general piece cache hold.
//
// Lock-free: an entry (length, count, bytes, ids) is written into an arena at an offset
// taken by fetch_add, then published in a slot of an open-addressing table (linear
// probing) by a compare-and-swap of the slot's hash tag and a release store of the
// entry's offset; a reader that sees the tag before the offset treats the slot as a miss.
// Each thread writes its entries into chunks of the arena it takes in turn.  Insert-only
// and of fixed size: when the arena is full (at most one entry per two slots), inserts stop (nothing is replaced or moved, so a reader never sees a torn entry); two
// threads may store the same string twice (one copy is found first).  Bounded: 2^bits
// slots of 16 bytes and 2^bits * kArenaWordsPerSlot words of 4 bytes, at most 2^kMaxBits
// slots (6 MB in all); one table per process (borrow()), reused and cleared between texts.
//
// What it leaves out: the first-sight filter's pieces (merged without any cache while it is
// on), growing, eviction.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

namespace tf::byte_level {

class SharedMergeTable {
 public:
  static constexpr int kMinBits = 12, kMaxBits = 18;
  // At most one entry per two slots: an entry takes at least 4 words.
  static constexpr size_t kArenaWordsPerSlot = 2;
  static constexpr size_t kMaxKey = 512;  // longer strings are not shared

  // The ids stored for bytes [p, p + n) with hash h, appended to *out; false if none.
  bool find(const uint8_t* p, size_t n, uint64_t h, std::vector<uint32_t>* out) const {
    const uint64_t tag = h | 1;
    for (size_t i = h & mask_, probes = 0; probes < kMaxProbes; i = (i + 1) & mask_, ++probes) {
      const Slot& s = slots_[i];
      const uint64_t t = s.tag.load(std::memory_order_relaxed);
      if (t == 0) return false;
      if (t != tag) continue;
      const uint32_t at = s.at.load(std::memory_order_acquire);
      if (at == 0) continue;  // being written
      const uint32_t* e = arena_.get() + (at - 1);
      if (e[0] != n || std::memcmp(e + 2, p, n) != 0) continue;
      const uint32_t* ids = e + 2 + key_words(n);
      out->insert(out->end(), ids, ids + e[1]);
      return true;
    }
    return false;
  }

  // Stores the ids of bytes [p, p + n) (hash h), unless the table is full.
  void insert(const uint8_t* p, size_t n, uint64_t h, const uint32_t* ids, size_t count);

  // A table with room for the merges of a text of `bytes` bytes, or nullptr if the
  // process's one table is in use (another text on other threads).  Give it back with
  // give_back() before another borrow on this thread.
  static SharedMergeTable* borrow(size_t bytes);
  static void give_back(SharedMergeTable* table);

 private:
  static constexpr size_t kMaxProbes = 64;
  struct Slot {
    std::atomic<uint64_t> tag{0};  // hash | 1; 0: empty
    std::atomic<uint32_t> at{0};   // arena offset + 1 of the entry; 0: not yet written
  };
  static size_t key_words(size_t n) { return (n + 3) / 4; }
  // Sizes the table for 2^bits slots and empties it (no other thread may use it).
  void reset(int bits);

  // Words of the arena for `words` more of this thread's entries, or nullptr when full.
  // A thread takes the arena kChunkWords at a time: one shared counter bumped per entry
  // was a cache line that both cores wrote on every insert.
  uint32_t* take(size_t words);
  static constexpr size_t kChunkWords = 1024;

  // Read by every find and insert; written only by reset().
  std::unique_ptr<Slot[]> slots_;
  std::unique_ptr<uint32_t[]> arena_;
  size_t mask_ = 0, arena_words_ = 0;
  size_t dirty_slots_ = 0;  // slots [0, dirty) may be set: cleared by the next reset
  uint64_t generation_ = 0;  // bumped by reset(): a thread's chunk of an older one is void
  alignas(64) std::atomic<size_t> arena_used_{0};  // words handed out in chunks (may pass arena_words_)
  char pad_[64 - sizeof(std::atomic<size_t>)];
};

}  // namespace tf::byte_level
