// PositionLists: the BPE trainer's lists of positions (unit indices), one per heap entry.
//
// A list is written once when its pair gains occurrences, read once when the pair is
// merged, then dropped.  All lists live in one pool instead of a heap allocation each: a
// list of one position (most of them on text of rare pieces) is stored in its 16-byte
// header, longer ones in the pool, which is compacted when dropped lists fill half of it
// and it would otherwise grow.
// So a list costs 16 bytes plus 4 per position beyond the first, and no malloc; adding and
// dropping are O(size), compaction is amortized O(1) per position.
// What it leaves out: what the positions mean (bpe_trainer.h).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "training/byte_level/big_vector.h"

namespace tf::train {

class PositionLists {
 public:
  // A read-only view of one list; valid until the next add() or extend().
  struct View {
    const uint32_t* data;
    size_t size;
    const uint32_t* begin() const { return data; }
    const uint32_t* end() const { return data + size; }
  };

  // A new list holding p[0..n); returns its id (ids count up from 0).
  uint32_t add(const uint32_t* p, size_t n) {
    Header h{0, static_cast<uint32_t>(n), n == 1 ? p[0] : 0};
    if (n > 1) {
      maybe_compact(n);
      h.begin = pool_.size();
      pool_.append(p, p + n);
    }
    headers_.push_back(h);
    return static_cast<uint32_t>(headers_.size() - 1);
  }

  // A new list of n positions, to be written through data(id) before the next add; returns
  // its id.
  uint32_t add_uninitialized(size_t n) {
    Header h{0, static_cast<uint32_t>(n), 0};
    if (n > 1) {
      maybe_compact(n);
      h.begin = pool_.size();
      pool_.extend_uninitialized(n);
      pool_.commit(n);
    }
    headers_.push_back(h);
    return static_cast<uint32_t>(headers_.size() - 1);
  }
  uint32_t* data(uint32_t id) {
    Header& h = headers_[id];
    return h.size == 1 ? &h.single : pool_.data() + h.begin;
  }

  // Room for n more pooled positions without growing.
  void reserve(size_t n) { pool_.reserve(pool_.size() + n); }

  // Adds p[0..n) to list `id`, keeping it sorted without repeats.
  void extend(uint32_t id, const uint32_t* p, size_t n) {
    View v = get(id);
    std::vector<uint32_t> all(v.begin(), v.end());
    all.insert(all.end(), p, p + n);
    std::sort(all.begin(), all.end());
    all.erase(std::unique(all.begin(), all.end()), all.end());
    drop(id);
    Header h{0, static_cast<uint32_t>(all.size()), all.size() == 1 ? all[0] : 0};
    if (all.size() > 1) {
      maybe_compact(all.size());
      h.begin = pool_.size();
      pool_.append(all.data(), all.data() + all.size());
    }
    headers_[id] = h;
  }

  View get(uint32_t id) const {
    const Header& h = headers_[id];
    return View{h.size == 1 ? &h.single : pool_.data() + h.begin, h.size};
  }

  // Frees the positions of list `id` (its id stays taken).
  void drop(uint32_t id) {
    Header& h = headers_[id];
    if (h.size > 1) dead_ += h.size;
    h.size = 0;
  }

  size_t size() const { return headers_.size(); }

 private:
  struct Header {
    uint64_t begin;   // offset in pool_ when size > 1
    uint32_t size;
    uint32_t single;  // the position when size == 1
  };

  // Before appending n positions: if the pool is full and dropped lists fill half of it,
  // copy the live lists to a new pool instead of growing this one.
  void maybe_compact(size_t n) {
    if (pool_.size() + n <= pool_.capacity() || dead_ == 0 || dead_ * 2 < pool_.size()) return;
    BigVector<uint32_t> fresh;
    fresh.reserve(2 * (pool_.size() - dead_ + n));
    for (Header& h : headers_) {
      if (h.size <= 1) continue;
      uint64_t at = fresh.size();
      fresh.append(pool_.data() + h.begin, pool_.data() + h.begin + h.size);
      h.begin = at;
    }
    pool_.swap(fresh);
    dead_ = 0;
  }

  BigVector<Header> headers_;
  BigVector<uint32_t> pool_;
  uint64_t dead_ = 0;  // positions of dropped lists still in pool_
};

}  // namespace tf::train
