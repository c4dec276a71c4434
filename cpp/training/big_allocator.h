// BigAllocator: a std::allocator for the trainer's large tables that maps blocks of 1 MB
// or more straight from the operating system (mmap) and unmaps them when freed.
//
// Why: the trainer's tables grow by doubling while millions of small blocks come and go.
// Through malloc, glibc raises its mmap threshold after the first large free, so later
// large blocks land in the brk heap, and the freed old copies of grown tables stay there
// as holes that small blocks fragment: on mixed.txt a third of the heap sat free but
// resident.  Unmapping returns a grown table's old copy at once.  Smaller blocks use
// malloc as usual.  Not for small or short-lived containers (a system call per block).
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdlib>
#include <new>
#include <vector>

namespace tf {

template <typename T>
struct BigAllocator {
  using value_type = T;
  static constexpr size_t kMapBytes = size_t{1} << 20;

  BigAllocator() = default;
  template <typename U>
  BigAllocator(const BigAllocator<U>&) {}

  T* allocate(size_t n) {
    size_t bytes = n * sizeof(T);
    void* p;
    if (bytes >= kMapBytes) {
      p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (p == MAP_FAILED) throw std::bad_alloc();
    } else {
      p = std::malloc(bytes);
      if (p == nullptr && bytes != 0) throw std::bad_alloc();
    }
    return static_cast<T*>(p);
  }

  void deallocate(T* p, size_t n) {
    size_t bytes = n * sizeof(T);
    if (bytes >= kMapBytes)
      ::munmap(p, bytes);
    else
      std::free(p);
  }

  template <typename U>
  bool operator==(const BigAllocator<U>&) const { return true; }
  template <typename U>
  bool operator!=(const BigAllocator<U>&) const { return false; }
};

template <typename T>
using BigVector = std::vector<T, BigAllocator<T>>;

}  // namespace tf
