// TokenTable: the vocabulary of a byte-level model, token bytes <-> id.
//
// Token bytes live in one arena; lookups by bytes go through an open-addressing hash
// table (linear probing, load <= 1/2).  A 16-byte slot holds the id, the token's length,
// 24 bits of its hash and its first 8 bytes, so a lookup of a token of up to 8 bytes
// touches one cache line of the table and nothing else; longer tokens compare the rest
// in the arena.  O(len) per lookup.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "util/byte_hash.h"

namespace tf {

constexpr uint32_t kNoToken = 0xFFFFFFFFu;

class TokenTable {
 public:
  // `tokens` pairs token bytes with an id.  Fails (returns false and sets *error) on a
  // duplicate id or duplicate bytes.
  bool build(std::vector<std::pair<std::string, uint32_t>> tokens, std::string* error);

  uint32_t find(const uint8_t* p, size_t n) const { return find_hashed(p, n, hash_bytes(p, n)); }
  // find() with h = hash_bytes(p, n) already computed.
  inline uint32_t find_hashed(const uint8_t* p, size_t n, uint64_t h) const;
  uint32_t find(std::string_view s) const {
    return find(reinterpret_cast<const uint8_t*>(s.data()), s.size());
  }

  bool has(uint32_t id) const { return id < starts_.size() && starts_[id] != kHole; }
  // The bytes of a present id (check has() first).
  std::string_view bytes(uint32_t id) const {
    return std::string_view(arena_.data() + starts_[id], lengths_[id]);
  }
  // One past the largest id (ids may have holes).
  uint32_t id_bound() const { return static_cast<uint32_t>(starts_.size()); }
  size_t size() const { return count_; }
  size_t max_token_len() const { return max_len_; }

 private:
  static constexpr uint32_t kHole = 0xFFFFFFFFu;
  struct Slot {
    uint64_t head;     // first 8 bytes, zero padded
    uint32_t id;       // kNoToken when empty
    uint32_t len_tag;  // min(len, 255) << 24 | 24 bits of hash
  };
  static uint32_t len_tag(size_t n, uint64_t h) {
    return static_cast<uint32_t>((n < 255 ? n : 255) << 24) | static_cast<uint32_t>(h >> 40);
  }
  std::string arena_;
  std::vector<uint32_t> starts_;   // id -> start in arena_, kHole where no token has that id
  std::vector<uint32_t> lengths_;  // id -> byte length
  static uint8_t fingerprint(uint64_t h) {
    uint8_t f = static_cast<uint8_t>(h >> 56);
    return f == 0 ? 1 : f;
  }
  std::vector<Slot> slots_;
  // One byte per slot (0: empty), probed before the slot: a lookup of bytes that are not a
  // token, the common case while merging, then reads only this array, which is 16 times
  // smaller than slots_ and stays in the L2 cache.
  std::vector<uint8_t> fingerprints_;
  uint64_t mask_ = 0;
  size_t count_ = 0;
  size_t max_len_ = 0;
};

inline uint32_t TokenTable::find_hashed(const uint8_t* p, size_t n, uint64_t h) const {
  if (n > max_len_ || slots_.empty()) return kNoToken;
  uint8_t f = fingerprint(h);
  for (uint64_t i = h & mask_;; i = (i + 1) & mask_) {
    uint8_t fi = fingerprints_[i];
    if (fi == 0) return kNoToken;
    if (fi != f) continue;
    const Slot& s = slots_[i];
    if (s.len_tag == len_tag(n, h) && s.head == load_head(p, n)) {
      if (n <= 8) return s.id;
      // Below 255 bytes len_tag holds the exact length.
      if ((n < 255 || lengths_[s.id] == n) && std::memcmp(arena_.data() + starts_[s.id] + 8, p + 8, n - 8) == 0)
        return s.id;
    }
  }
}

}  // namespace tf
