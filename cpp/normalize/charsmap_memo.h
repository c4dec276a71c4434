// CharsmapMemo: what the `Precompiled` step does to one character below U+10000 looked up
// alone (leave it, replace it, or delete it), worked out the first time the character is
// seen and remembered.  The answer depends on the code point alone, so the
// charsmap's trie walk runs once per distinct character instead of once per character.
// Threads share the table: an entry is written with a relaxed atomic store, and threads
// that race on one entry store the same value.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace tf::hf {

class CharsmapMemo {
 public:
  static constexpr uint32_t kUnknown = 0;  // not seen yet
  static constexpr uint32_t kKeep = 1;     // the charsmap leaves it
  static constexpr uint32_t kDelete = 2;   // the charsmap replaces it by nothing
  static constexpr uint32_t kAsk = 3;      // not remembered: look it up each time
  // Anything else: a replacement, ((offset + 1) << 8) | length into the charsmap's strings.

  // Without `used` (no charsmap) nothing is allocated and get/put must not be called.
  explicit CharsmapMemo(bool used) : entries_(used ? new std::atomic<uint32_t>[kSize]() : nullptr) {}

  uint32_t get(uint32_t cp) const { return cp < kSize ? entries_[cp].load(std::memory_order_relaxed) : kAsk; }
  void put(uint32_t cp, uint32_t entry) const {
    if (cp < kSize) entries_[cp].store(entry, std::memory_order_relaxed);
  }

  // The entry of a replacement at `offset`, `length` bytes long (kAsk when it does not fit).
  static uint32_t replacement(size_t offset, size_t length) {
    return offset + 1 < (size_t{1} << 24) && length > 0 && length < 256
               ? static_cast<uint32_t>(((offset + 1) << 8) | length)
               : kAsk;
  }
  static size_t offset(uint32_t entry) { return (entry >> 8) - 1; }
  static size_t length(uint32_t entry) { return entry & 0xFF; }

 private:
  static constexpr uint32_t kSize = 0x10000;
  std::unique_ptr<std::atomic<uint32_t>[]> entries_;
};

}  // namespace tf::hf
