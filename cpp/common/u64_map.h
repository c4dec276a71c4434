// U64Map: an open-addressing hash map from 64-bit keys to small values, for tables keyed by
// a pair of 32-bit ids packed into one key (UBPE's pair tables, the SentencePiece trainers'
// (left, right) -> symbol and (node, code point) -> child).  Linear probing over a
// power-of-two table kept at most half full (by default; see set_max_load), one
// multiply-shift hash; no erase; the all-ones key is reserved.  A default-constructed map
// allocates nothing until its first insert.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace tf {

inline uint64_t pack_pair(uint32_t left, uint32_t right) {
  return (static_cast<uint64_t>(left) << 32) | right;
}

template <typename V>
class U64Map {
 public:
  static constexpr uint64_t kEmpty = ~uint64_t{0};

  U64Map() = default;
  explicit U64Map(size_t expected) { reserve(expected); }

  // The value of `key`, or nullptr.
  const V* find(uint64_t key) const {
    if (keys_.empty()) return nullptr;
    for (size_t i = slot(key);; i = (i + 1) & mask_) {
      if (keys_[i] == key) return &values_[i];
      if (keys_[i] == kEmpty) return nullptr;
    }
  }
  V* find(uint64_t key) { return const_cast<V*>(static_cast<const U64Map*>(this)->find(key)); }

  // The value of `key`, inserted as `init` when absent.
  V& get_or_insert(uint64_t key, V init = V()) {
    if ((size_ + 1) * 8 > keys_.size() * max_eighths_) rehash(keys_.empty() ? 16 : keys_.size() * 2);
    size_t i = slot(key);
    for (; keys_[i] != kEmpty; i = (i + 1) & mask_) {
      if (keys_[i] == key) return values_[i];
    }
    keys_[i] = key;
    values_[i] = init;
    ++size_;
    return values_[i];
  }
  void set(uint64_t key, V value) { get_or_insert(key) = value; }

  // Room for n keys without growing.
  void reserve(size_t n) {
    size_t c = 16;
    while (c * max_eighths_ < n * 8) c *= 2;
    if (c > keys_.size()) rehash(c);
  }
  // The fullest the table may get, in eighths (4, half full, by default; at most 7):
  // fuller tables take less memory and probe longer.
  void set_max_load(unsigned eighths) { max_eighths_ = eighths < 1 ? 1 : eighths > 7 ? 7 : eighths; }
  size_t size() const { return size_; }
  // Calls f(key, value) for every entry, in table order (the same for the same inserts).
  template <class F>
  void for_each(F&& f) const {
    for (size_t i = 0; i < keys_.size(); ++i)
      if (keys_[i] != kEmpty) f(keys_[i], values_[i]);
  }

 private:
  size_t slot(uint64_t key) const { return static_cast<size_t>((key * 0x9E3779B97F4A7C15ULL) >> shift_); }
  void rehash(size_t capacity) {
    std::vector<uint64_t> old_keys(capacity, kEmpty);
    std::vector<V> old_values(capacity);
    old_keys.swap(keys_);
    old_values.swap(values_);
    mask_ = capacity - 1;
    shift_ = 64;
    for (size_t c = capacity; c > 1; c >>= 1) --shift_;
    size_ = 0;
    for (size_t i = 0; i < old_keys.size(); ++i) {
      if (old_keys[i] != kEmpty) get_or_insert(old_keys[i], old_values[i]);
    }
  }

  std::vector<uint64_t> keys_;
  std::vector<V> values_;
  size_t mask_ = 0;
  int shift_ = 64;
  size_t size_ = 0;
  size_t max_eighths_ = 4;
};

}  // namespace tf
