// GrowBuffer: a growable array of trivially copyable values in malloc'd memory; IdBuffer,
// its token ids, is handed to numpy as is.
//
// It grows with realloc, which for large blocks moves pages (mremap) instead of copying,
// and is trimmed to its size at the end; so the peak memory of encoding a large text is
// about the size of the result, not twice it as with a vector that doubles and copies.
// An append is a capacity test and a memcpy (std::string::append and vector::insert are
// out-of-line calls), which PieceCache's key and id stores want too.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <type_traits>

namespace tf {

template <class T>
class GrowBuffer {
  static_assert(std::is_trivially_copyable_v<T>, "moved by realloc and memcpy");

 public:
  GrowBuffer() = default;
  GrowBuffer(const GrowBuffer&) = delete;
  GrowBuffer& operator=(const GrowBuffer&) = delete;
  ~GrowBuffer() { std::free(data_); }

  void reserve(size_t cap) {
    if (cap > cap_) resize_storage(cap);
  }
  void append(const T* values, size_t n) {
    if (size_ + n > cap_) resize_storage((size_ + n) + (size_ + n) / 2 + 1024);
    std::memcpy(data_ + size_, values, n * sizeof(T));
    size_ += n;
  }
  size_t size() const { return size_; }
  const T* data() const { return data_; }
  // Empties it, keeping its storage.
  void clear() { size_ = 0; }
  // Drops the values from index n on (n <= size()).
  void truncate(size_t n) { size_ = n; }
  // Trims the storage and gives up ownership: the caller frees it with std::free.
  T* release() {
    if (size_ < cap_) resize_storage(size_ == 0 ? 1 : size_);
    T* d = data_;
    data_ = nullptr;
    size_ = cap_ = 0;
    return d;
  }

 private:
  void resize_storage(size_t cap) {
    void* p = std::realloc(data_, cap * sizeof(T));
    if (p == nullptr) throw std::bad_alloc();
    data_ = static_cast<T*>(p);
    cap_ = cap;
  }
  T* data_ = nullptr;
  size_t size_ = 0;
  size_t cap_ = 0;
};

using IdBuffer = GrowBuffer<uint32_t>;

}  // namespace tf
