#include "models/byte_level/cache/shared_merge_table.h"

#include <algorithm>
#include <mutex>
#include <new>

#if defined(__unix__) || defined(__APPLE__)
#include <pthread.h>
#endif

namespace tf::byte_level {

void SharedMergeTable::insert(const uint8_t* p, size_t n, uint64_t h, const uint32_t* ids, size_t count) {
  if (n > kMaxKey || count == 0 || 2 + key_words(n) + count > kChunkWords) return;
  uint32_t* e = take(2 + key_words(n) + count);
  if (e == nullptr) return;
  const size_t off = static_cast<size_t>(e - arena_.get());
  e[0] = static_cast<uint32_t>(n);
  e[1] = static_cast<uint32_t>(count);
  e[1 + key_words(n)] = 0;  // the key's last word is fully written (its padding zeroed)
  std::memcpy(e + 2, p, n);
  std::memcpy(e + 2 + key_words(n), ids, count * sizeof(uint32_t));
  const uint64_t tag = h | 1;
  for (size_t i = h & mask_, probes = 0; probes < kMaxProbes; i = (i + 1) & mask_, ++probes) {
    Slot& s = slots_[i];
    uint64_t t = s.tag.load(std::memory_order_relaxed);
    if (t == 0 && s.tag.compare_exchange_strong(t, tag, std::memory_order_relaxed)) {
      s.at.store(static_cast<uint32_t>(off + 1), std::memory_order_release);
      return;
    }
    if (t == tag) return;  // most likely the same string, stored by another thread
  }
}

namespace {

// This thread's chunk of the arena: [next, end) of the table's generation `generation`.
struct Chunk {
  uint64_t generation = 0;
  uint32_t* next = nullptr;
  uint32_t* end = nullptr;
};
thread_local Chunk t_chunk;

}  // namespace

uint32_t* SharedMergeTable::take(size_t words) {
  Chunk& c = t_chunk;
  if (c.generation != generation_ || static_cast<size_t>(c.end - c.next) < words) {
    const size_t off = arena_used_.fetch_add(kChunkWords, std::memory_order_relaxed);
    if (off + kChunkWords > arena_words_) return nullptr;  // full (arena_used_ stays past the end)
    c = Chunk{generation_, arena_.get() + off, arena_.get() + off + kChunkWords};
  }
  uint32_t* e = c.next;
  c.next += words;
  return e;
}

void SharedMergeTable::reset(int bits) {
  if (!slots_) {
    slots_.reset(new Slot[size_t{1} << kMaxBits]);
    arena_.reset(new uint32_t[(size_t{1} << kMaxBits) * kArenaWordsPerSlot]);
  }
  for (size_t i = 0; i < dirty_slots_; ++i) {
    slots_[i].tag.store(0, std::memory_order_relaxed);
    slots_[i].at.store(0, std::memory_order_relaxed);
  }
  const size_t slots = size_t{1} << bits;
  mask_ = slots - 1;
  arena_words_ = slots * kArenaWordsPerSlot;
  arena_used_.store(0, std::memory_order_relaxed);
  dirty_slots_ = slots;
  ++generation_;
}

namespace {

// The process's one table; never destroyed.  A child of fork() has no thread encoding
// a text (the forking thread is in none), so it may take the table whatever the parent did.
SharedMergeTable* g_table = nullptr;
std::atomic<bool> g_busy{false};

}  // namespace

SharedMergeTable* SharedMergeTable::borrow(size_t bytes) {
  static std::once_flag once;
  std::call_once(once, [] {
    g_table = new SharedMergeTable();
#if defined(__unix__) || defined(__APPLE__)
    pthread_atfork(nullptr, nullptr, [] { g_busy.store(false, std::memory_order_relaxed); });
#endif
  });
  bool expected = false;
  if (!g_busy.compare_exchange_strong(expected, true, std::memory_order_acquire)) return nullptr;
  int bits = kMinBits;
  while (bits < kMaxBits && (size_t{16} << bits) < bytes) ++bits;
  try {
    g_table->reset(bits);
  } catch (const std::bad_alloc&) {
    g_busy.store(false, std::memory_order_release);
    return nullptr;
  }
  return g_table;
}

void SharedMergeTable::give_back(SharedMergeTable* table) {
  if (table != nullptr) g_busy.store(false, std::memory_order_release);
}

}  // namespace tf::byte_level
