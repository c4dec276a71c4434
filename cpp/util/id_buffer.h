// IdBuffer: a growable array of token ids in malloc'd memory, handed to numpy as is.
//
// It grows with realloc, which for large blocks moves pages (mremap) instead of copying,
// and is trimmed to its size at the end; so the peak memory of encoding a large text is
// about the size of the result, not twice it as with a vector that doubles and copies.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>

namespace tf {

class IdBuffer {
 public:
  IdBuffer() = default;
  IdBuffer(const IdBuffer&) = delete;
  IdBuffer& operator=(const IdBuffer&) = delete;
  ~IdBuffer() { std::free(data_); }

  void reserve(size_t cap) {
    if (cap > cap_) resize_storage(cap);
  }
  void append(const uint32_t* ids, size_t n) {
    if (size_ + n > cap_) resize_storage((size_ + n) + (size_ + n) / 2 + 1024);
    std::memcpy(data_ + size_, ids, n * sizeof(uint32_t));
    size_ += n;
  }
  size_t size() const { return size_; }
  // Trims the storage and gives up ownership: the caller frees it with std::free.
  uint32_t* release() {
    if (size_ < cap_) resize_storage(size_ == 0 ? 1 : size_);
    uint32_t* d = data_;
    data_ = nullptr;
    size_ = cap_ = 0;
    return d;
  }

 private:
  void resize_storage(size_t cap) {
    void* p = std::realloc(data_, cap * sizeof(uint32_t));
    if (p == nullptr) throw std::bad_alloc();
    data_ = static_cast<uint32_t*>(p);
    cap_ = cap;
  }
  uint32_t* data_ = nullptr;
  size_t size_ = 0;
  size_t cap_ = 0;
};

}  // namespace tf
