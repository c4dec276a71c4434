// ShortMergeCache: the BPE merge (the ids of merging its bytes, without the whole-token
// shortcut) of byte strings of 1..15 bytes met before, found by one cache line.
//
// Keyed by the string's exact ShortTokenIndex::Key (two words that spell it, no pointer
// to its bytes) and that key's hash; an entry of 32 bytes holds its ids inline (up to
// kInlineIds, most short pieces have 1-3; more go to an arena), so a hit reads one line
// instead of a slot, its key and its ids in three places (PieceCache's general table),
// and a table of the short pieces of a few MB of text keeps to about the L2 cache.
// Serves both uses of merges of short strings: whole pieces that are not tokens (whose
// ids are their merge) and the short chunks of longer pieces (see SafeCuts), which on
// text without spaces recur in many distinct pieces; a whole piece of one chunk is looked
// up once, not again as its chunk.  A string that is a token may be stored too (as a
// chunk): its merge need not be that token, which is why pieces that are tokens are
// answered by the short index before this cache is asked.
// Open addressing (linear probing), at most half full: it starts at 256 KB and doubles up
// to 8 MB (128k strings: the short pieces and chunks of 4 MB of multilingual text take
// half of that; capped lower, encoding that text again was slower).  Then it is full: an
// insertion replaces the entry at its home slot (the probe chains stay intact, since no
// entry is ever emptied; it is all cleared in the rare case that home slots fill it to
// three quarters), so recent strings stay here.  PieceCache clears it when it clears
// itself.  O(1) per find / insert.  Not thread-safe (one per thread
// and vocabulary, inside PieceCache).  32-byte entries rather than 64 with 11 ids: half
// the lines per probe, a little faster on cold text (figures: benchmarks/README.md).
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "models/byte_level/vocab/short_token_index.h"

namespace tf::byte_level {

class ShortMergeCache {
 public:
  using Key = ShortTokenIndex::Key;
  static constexpr size_t kMaxLen = ShortTokenIndex::kMaxLen;
  static constexpr size_t kInlineIds = 4;

  ShortMergeCache() : entries_(kMinEntries) {}

  // h = ShortTokenIndex::hash(k) throughout.
  // Appends the ids stored for k and returns true, or returns false.
  bool find(Key k, uint64_t h, std::vector<uint32_t>* out) const {
    for (size_t i = h >> shift_;; i = (i + 1) & mask_) {
      const Entry& e = entries_[i];
      if (e.hi == 0) return false;  // empty (a key's hi holds its length)
      if (e.lo == k.lo && (e.hi & kKeyBits) == k.hi) {
        const size_t inline_count = e.hi >> kCountShift;
        if (inline_count != 0) {
          // push_back each (at most kInlineIds): a range insert is an out-of-line call,
          // long for one to four ids.
          for (size_t j = 0; j < inline_count; ++j) out->push_back(e.ids[j]);
        } else {
          out->insert(out->end(), spill_.data() + e.ids[0], spill_.data() + e.ids[0] + e.ids[1]);
        }
        return true;
      }
    }
  }

  // Starts loading the entry find(k, h) reads first.
  void prefetch(uint64_t h) const { __builtin_prefetch(&entries_[h >> shift_]); }

  // Stores the ids of k (absent: just missed by find), maybe in place of another string.
  void insert(Key k, uint64_t h, const uint32_t* ids, size_t count);
  void clear();

 private:
  // The key's hi has the length in bits 56..59 (<= 15) and zeros above: the count of
  // inline ids goes there.
  static constexpr int kCountShift = 60;
  static constexpr uint64_t kKeyBits = (uint64_t{1} << kCountShift) - 1;
  struct alignas(32) Entry {
    uint64_t lo = 0;
    uint64_t hi = 0;  // the key's hi | inline ids << kCountShift (0: spilled); 0: empty
    uint32_t ids[kInlineIds] = {};  // spilled: ids[0], ids[1] are their offset in spill_ and count
  };
  static_assert(sizeof(Entry) == 32, "two entries per cache line");
  static constexpr int kMinBits = 13, kMaxBits = 18;
  static constexpr size_t kMinEntries = size_t{1} << kMinBits, kMaxEntries = size_t{1} << kMaxBits;
  static constexpr size_t kMaxSpill = size_t{1} << 20;  // ids (4 MB): then no more spill

  void grow();

  std::vector<Entry> entries_;
  size_t mask_ = kMinEntries - 1;
  int shift_ = 64 - kMinBits;
  size_t used_ = 0;
  std::vector<uint32_t> spill_;
};

}  // namespace tf::byte_level
