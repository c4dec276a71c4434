// BigVector<T>: a growable array of a trivially copyable T for the trainer's large tables,
// grown in place by the operating system instead of by copying.
//
// Why not std::vector: the trainer's tables (units, pair records, position pools, index
// slots, heap) reach tens of megabytes by doubling.  A std::vector copies itself into a new
// block at every doubling, so for a moment it holds both copies, and the new block's pages
// are faulted in one 4 kB page at a time; on this kind of machine the page faults alone were
// a quarter of training time on text of rare pieces.  Here a table of 1 MB or more lives in
// its own mapping: growing it is mremap (the pages move, nothing is copied or faulted again,
// the old and new copies never coexist), and the mapping asks for transparent huge pages,
// so the random accesses of merging miss the TLB far less and a fault brings in 2 MB.
// Smaller tables use malloc/realloc.  Costs: at most one partly used 2 MB page per table.
// The element type must be trivially copyable (it is moved with memcpy/mremap); new
// elements from resize(n) are value-initialized, reserve() leaves capacity untouched.
#pragma once

#include <sys/mman.h>

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <new>
#include <type_traits>
#include <utility>

namespace tf::train {

template <typename T>
class BigVector {
  static_assert(std::is_trivially_copyable<T>::value, "BigVector moves elements as bytes");

 public:
  BigVector() = default;
  explicit BigVector(size_t n, const T& value = T()) { resize(n, value); }
  BigVector(const BigVector&) = delete;
  BigVector& operator=(const BigVector&) = delete;
  BigVector(BigVector&& o) noexcept { swap(o); }
  BigVector& operator=(BigVector&& o) noexcept {
    BigVector(std::move(o)).swap(*this);
    return *this;
  }
  ~BigVector() { release(); }

  void swap(BigVector& o) noexcept {
    std::swap(data_, o.data_);
    std::swap(size_, o.size_);
    std::swap(capacity_, o.capacity_);
    std::swap(mapped_, o.mapped_);
  }

  size_t size() const { return size_; }
  size_t capacity() const { return capacity_; }
  bool empty() const { return size_ == 0; }
  T* data() { return data_; }
  const T* data() const { return data_; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }
  T& back() { return data_[size_ - 1]; }
  const T& back() const { return data_[size_ - 1]; }

  void push_back(const T& v) {
    if (size_ == capacity_) grow(size_ + 1);
    data_[size_++] = v;
  }
  void pop_back() { --size_; }
  void clear() { size_ = 0; }

  // Appends [first, last), which must not point into this vector.
  void append(const T* first, const T* last) {
    size_t n = static_cast<size_t>(last - first);
    if (size_ + n > capacity_) grow(size_ + n);
    if (n != 0) std::memcpy(static_cast<void*>(data_ + size_), first, n * sizeof(T));
    size_ += n;
  }

  // Makes room for n more elements and returns where they go; the caller writes them and
  // then calls commit(n).
  T* extend_uninitialized(size_t n) {
    if (size_ + n > capacity_) grow(size_ + n);
    return data_ + size_;
  }
  void commit(size_t n) { size_ += n; }

  void resize(size_t n, const T& value = T()) {
    if (n > capacity_) reallocate(n);
    if (n > size_) std::fill(data_ + size_, data_ + n, value);
    size_ = n;
  }

  // Capacity for exactly n elements (rounded up to whole pages for a mapped table).
  void reserve(size_t n) {
    if (n > capacity_) reallocate(n);
  }

 private:
  static constexpr size_t kMapBytes = size_t{1} << 20;
  static constexpr size_t kPage = 4096;

  void grow(size_t need) { reallocate(std::max(need, capacity_ * 2)); }

  void reallocate(size_t n) {
    if (n > static_cast<size_t>(-1) / (2 * sizeof(T))) throw std::bad_alloc();
    size_t bytes = n * sizeof(T);
    void* p;
    if (bytes < kMapBytes) {  // stays small: malloc
      p = std::realloc(data_, bytes);
      if (p == nullptr) throw std::bad_alloc();
    } else {
      bytes = (bytes + kPage - 1) / kPage * kPage;
      if (mapped_ != 0) {
#ifdef MREMAP_MAYMOVE
        p = ::mremap(data_, mapped_, bytes, MREMAP_MAYMOVE);
        if (p == MAP_FAILED) throw std::bad_alloc();
#else  // no mremap (not Linux): a new mapping and a copy
        p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) throw std::bad_alloc();
        std::memcpy(p, static_cast<void*>(data_), size_ * sizeof(T));
        ::munmap(data_, mapped_);
#endif
      } else {
        p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
        ::madvise(p, bytes, MADV_HUGEPAGE);  // advice only: failure just means small pages
#endif
        if (size_ != 0) std::memcpy(p, static_cast<void*>(data_), size_ * sizeof(T));
        std::free(data_);
      }
      mapped_ = bytes;
      n = bytes / sizeof(T);
    }
    data_ = static_cast<T*>(p);
    capacity_ = n;
  }

  void release() {
    if (mapped_ != 0)
      ::munmap(data_, mapped_);
    else
      std::free(data_);
    data_ = nullptr;
    size_ = capacity_ = mapped_ = 0;
  }

  T* data_ = nullptr;
  size_t size_ = 0, capacity_ = 0;
  size_t mapped_ = 0;  // bytes mapped (0: data_ is from malloc)
};

}  // namespace tf::train
