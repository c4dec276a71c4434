// PieceTally: what a counting thread adds pieces through, in front of its PieceMap.
//
// Two tricks against the cost of counting, which is probing a map far bigger than the
// cache: short frequent pieces are tallied in a small direct-mapped table, and the others
// wait in a queue of 8 while their map slot is prefetched.  O(1) per piece plus the map's
// own cost; the counts that reach the map are the same as adding every piece directly.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "training/byte_level/piece_map.h"
#include "common/byte_hash.h"

namespace tf::train {

// A direct-mapped cache of counts for pieces of up to 8 bytes in front of a PieceMap.
// Text is Zipfian: most pieces are short and frequent (" the", "\n"), so most additions
// stay in this 384 kB table instead of probing the big map and comparing arena bytes.
// An evicted entry hands its count to the map; flush() hands over the rest.
class PieceTally {
 public:
  explicit PieceTally(PieceMap* map) : map_(map), slots_(kSlots) {}
  ~PieceTally() { flush(); }

  void add(const uint8_t* p, size_t n) {
    if (n > 8) {
      to_map(p, n);
      return;
    }
    uint64_t key = 0;
    std::memcpy(&key, p, n);
    Slot& s = slots_[(mix64(key) + n) & (kSlots - 1)];
    if (s.len == n && s.key == key && s.count < 0xFFFFFFFFu) {
      ++s.count;
      s.score += s.score < kMaxScore;
      return;
    }
    if (s.score > 0) {  // a piece seen often keeps its slot (and ages); the newcomer goes to the map
      --s.score;
      to_map(p, n);
      return;
    }
    if (s.len != 0) map_->add(reinterpret_cast<const uint8_t*>(&s.key), s.len, s.count);
    s = Slot{key, static_cast<uint32_t>(n), 1, 0};
  }

  // Adds the queued pieces; call before the text they point into goes away.
  void drain() {
    for (size_t i = 0; i < pending_n_; ++i) {
      const Pending& q = pending_[(pending_head_ + i) % kAhead];
      map_->add_hashed(q.p, q.n, q.h, 1);
    }
    pending_n_ = pending_head_ = 0;
  }

  void flush() {
    drain();
    for (Slot& s : slots_) {
      if (s.len != 0) map_->add(reinterpret_cast<const uint8_t*>(&s.key), s.len, s.count);
      s = Slot{};
    }
  }

 private:
  // Map insertions wait in a short queue while their slot is prefetched: the map is far
  // bigger than the cache, and its probes were the cost of counting.  Pieces point into the
  // block being counted, so drain() must run before that block's buffer changes.
  void to_map(const uint8_t* p, size_t n) {
    uint64_t h = hash_bytes(p, n);
    map_->prefetch(h);
    if (pending_n_ == kAhead) {
      const Pending& q = pending_[pending_head_];
      map_->add_hashed(q.p, q.n, q.h, 1);
      pending_[pending_head_] = Pending{p, n, h};
      pending_head_ = (pending_head_ + 1) % kAhead;
      return;
    }
    pending_[(pending_head_ + pending_n_++) % kAhead] = Pending{p, n, h};
  }

  static constexpr size_t kAhead = 8;
  struct Pending {
    const uint8_t* p;
    size_t n;
    uint64_t h;
  };
  Pending pending_[kAhead];
  size_t pending_head_ = 0, pending_n_ = 0;
  static constexpr size_t kSlots = 1 << 14;
  static constexpr uint16_t kMaxScore = 8;
  struct Slot {
    uint64_t key = 0;  // the piece's bytes, zero-padded
    uint32_t len = 0;  // 0: empty
    uint32_t count = 0;
    uint16_t score = 0;  // hits minus misses, capped: who keeps the slot
  };
  PieceMap* map_;
  std::vector<Slot> slots_;
};

}  // namespace tf::train
