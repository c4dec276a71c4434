// Compact storage for the BPE merger's candidates (bpe_merger.h): hundreds of thousands of
// small records, each with a short list of positions, where std::vector's 24-byte header,
// its doubling and the copies when a big vector of them regrows are most of the memory.
//
// BpePositions: a list of 32-bit positions holding up to two in place and then a malloc'ed
// array grown to 6, 14, 30, ... entries (sizes that fill glibc's chunks).
// BpeChunks<T>: an index -> T store in chunks of 4096 that never move, so growing it never
// copies (or briefly doubles) what it holds.
// PairIdTable: (left, right) -> int32 for the merger's pair -> symbol map, open addressing
// with the key halves and the value side by side in 12 bytes, so a lookup reads one place.
// None is thread-safe; the first two are move-only.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <vector>

namespace tf::spm_train {

class BpePositions {
 public:
  BpePositions() = default;
  BpePositions(const BpePositions&) = delete;
  BpePositions& operator=(const BpePositions&) = delete;
  ~BpePositions() { release(); }

  void push_back(uint32_t p) {
    if (size_ == cap_) grow();
    data()[size_++] = p;
  }
  const uint32_t* data() const { return cap_ <= kInline ? u_.local : u_.heap; }
  uint32_t* data() { return cap_ <= kInline ? u_.local : u_.heap; }
  uint32_t size() const { return size_; }
  // Empties the list and frees its array.
  void release() {
    if (cap_ > kInline) std::free(u_.heap);
    cap_ = kInline;
    size_ = 0;
  }

 private:
  static constexpr uint32_t kInline = 2;
  void grow() {
    const uint32_t cap = cap_ <= kInline ? 6 : cap_ * 2 + 2;
    void* p = cap_ <= kInline ? std::malloc(size_t{cap} * 4) : std::realloc(u_.heap, size_t{cap} * 4);
    if (p == nullptr) throw std::bad_alloc();
    if (cap_ <= kInline) std::memcpy(p, u_.local, size_t{size_} * 4);
    u_.heap = static_cast<uint32_t*>(p);
    cap_ = cap;
  }
  union {
    uint32_t* heap;
    uint32_t local[kInline];
  } u_{};
  uint32_t size_ = 0, cap_ = kInline;
};

template <typename T>
class BpeChunks {
 public:
  T& operator[](size_t i) { return chunks_[i >> kShift][i & kMask]; }
  const T& operator[](size_t i) const { return chunks_[i >> kShift][i & kMask]; }
  size_t size() const { return size_; }
  // A new default T at index size() (then size() grows by one).
  T& add() {
    if ((size_ >> kShift) == chunks_.size()) chunks_.emplace_back(new T[size_t{1} << kShift]);
    return (*this)[size_++];
  }

 private:
  static constexpr unsigned kShift = 12;
  static constexpr size_t kMask = (size_t{1} << kShift) - 1;
  std::vector<std::unique_ptr<T[]>> chunks_;
  size_t size_ = 0;
};

class PairIdTable {
 public:
  // The value of (left, right), inserted as `init` when absent (*inserted tells which); the
  // reference stays valid until the next call.  left must not be 0xFFFFFFFF.
  int32_t& slot(uint32_t left, uint32_t right, int32_t init, bool* inserted) {
    if ((size_ + 1) * 4 > entries_.size() * 3) grow();
    for (size_t i = index(left, right);; i = (i + 1) & mask_) {
      Entry& e = entries_[i];
      if (e.left == left && e.right == right) {
        *inserted = false;
        return e.value;
      }
      if (e.left == kEmpty) {
        e = {left, right, init};
        ++size_;
        *inserted = true;
        return e.value;
      }
    }
  }
  size_t size() const { return size_; }

 private:
  static constexpr uint32_t kEmpty = 0xFFFFFFFFu;
  struct Entry {
    uint32_t left, right;
    int32_t value;
  };
  size_t index(uint32_t left, uint32_t right) const {
    const uint64_t key = (static_cast<uint64_t>(left) << 32) | right;
    return static_cast<size_t>((key * 0x9E3779B97F4A7C15ULL) >> shift_);
  }
  void grow() {
    const size_t capacity = entries_.empty() ? 1024 : entries_.size() * 2;
    std::vector<Entry> old(capacity, Entry{kEmpty, 0, 0});
    old.swap(entries_);
    mask_ = capacity - 1;
    shift_ = 64;
    for (size_t c = capacity; c > 1; c >>= 1) --shift_;
    for (const Entry& e : old) {
      if (e.left == kEmpty) continue;
      size_t i = index(e.left, e.right);
      while (entries_[i].left != kEmpty) i = (i + 1) & mask_;
      entries_[i] = e;
    }
  }
  std::vector<Entry> entries_;
  size_t mask_ = 0, size_ = 0;
  unsigned shift_ = 64;
};

}  // namespace tf::spm_train
