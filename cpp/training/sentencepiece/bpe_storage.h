// Compact storage for the BPE merger's candidates (bpe_merger.h): hundreds of thousands of
// small records, each with a short list of positions, where std::vector's 24-byte header,
// its doubling and the copies when a big vector of them regrows are most of the memory.
//
// BpePositions: a list of 32-bit positions holding up to two in place and then a malloc'ed
// array grown to 6, 14, 30, ... entries (sizes that fill glibc's chunks).
// BpeChunks<T>: an index -> T store in chunks of 4096 that never move, so growing it never
// copies (or briefly doubles) what it holds.
// Neither is thread-safe; both are move-only.
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

}  // namespace tf::spm_train
