// TokenTable: the vocabulary of a byte-level model, token bytes <-> id.
//
// Token bytes live in one arena.  Lookups by bytes go through one open-addressing hash
// index (linear probing, load <= 3/4), behind a bit filter of 16 bits per token.  The
// index probes a byte array of hash fingerprints first (a lookup of bytes that are not a
// token, the common case while merging, reads only that), then a 16-byte slot holding the
// id, the length, 24 bits of hash and the first 8 bytes, so a token of up to 8 bytes is
// confirmed without reading the arena.  O(len) per lookup.  (Strings of up to 15 bytes,
// most lookups of real text, are answered by ShortTokenIndex before they get here; a
// second small index of the low ids, tried for L2 residency, did not pay: see
// benchmarks/README.md.)
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/byte_hash.h"

namespace tf::byte_level {

constexpr uint32_t kNoToken = 0xFFFFFFFFu;

class TokenTable {
 public:
  // build() refuses ids of kMaxSparseBound and above unless there are at least a quarter
  // as many tokens as the largest id.
  static constexpr uint32_t kMaxSparseBound = uint32_t{1} << 24;

  // `tokens` pairs token bytes with an id.  Fails (returns false and sets *error) on a
  // duplicate id or duplicate bytes, or ids too sparse (kMaxSparseBound).
  bool build(std::vector<std::pair<std::string, uint32_t>> tokens, std::string* error);

  uint32_t find(const uint8_t* p, size_t n) const { return find_hashed(p, n, hash_bytes(p, n)); }
  // find() with h = hash_bytes(p, n) already computed.
  uint32_t find_hashed(const uint8_t* p, size_t n, uint64_t h) const {
    if (n > max_len_ || !maybe(h)) return kNoToken;
    return index_.find(*this, p, n, h);
  }
  // False if no token has hash h: one bit of a filter of 16 bits per token (a single
  // cache access; most byte strings tried while merging are not tokens).
  bool maybe(uint64_t h) const { return (filter_[(h >> 6) & filter_mask_] >> (h & 63)) & 1; }
  void prefetch(uint64_t h) const { __builtin_prefetch(&filter_[(h >> 6) & filter_mask_]); }
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

  // A hash of the (id, bytes) pairs, and whether two tables hold the same pairs (however
  // they were ordered when built): how equal vocabularies are found to share tables.
  uint64_t digest() const;
  bool same_tokens(const TokenTable& other) const;

 private:
  static constexpr uint32_t kHole = 0xFFFFFFFFu;

  // The open-addressing index over the tokens.
  class Index {
   public:
    void init(size_t count);
    // Adds a token; false if an equal one is there already (its id goes to *other).
    bool insert(const TokenTable& t, const uint8_t* p, size_t n, uint32_t id, uint32_t* other);
    inline uint32_t find(const TokenTable& t, const uint8_t* p, size_t n, uint64_t h) const;

   private:
    struct Slot {
      uint64_t head;     // first 8 bytes, zero padded
      uint32_t id;
      uint32_t len_tag;  // min(len, 255) << 24 | 24 bits of hash
    };
    static uint32_t len_tag(size_t n, uint64_t h) {
      return static_cast<uint32_t>((n < 255 ? n : 255) << 24) | static_cast<uint32_t>(h >> 40);
    }
    static uint8_t fingerprint(uint64_t h) {
      uint8_t f = static_cast<uint8_t>(h >> 56);
      return f == 0 ? 1 : f;
    }
    std::vector<uint8_t> fingerprints_;  // 0: empty slot
    std::vector<Slot> slots_;
    uint64_t mask_ = 0;
  };

  std::string arena_;
  std::vector<uint32_t> starts_;   // id -> start in arena_, kHole where no token has that id
  std::vector<uint32_t> lengths_;  // id -> byte length
  Index index_;
  std::vector<uint64_t> filter_;  // bit (h >> 6 & mask) * 64 + (h & 63) set for every token's hash h
  uint64_t filter_mask_ = 0;
  size_t count_ = 0;
  size_t max_len_ = 0;
};

inline uint32_t TokenTable::Index::find(const TokenTable& t, const uint8_t* p, size_t n, uint64_t h) const {
  uint8_t f = fingerprint(h);
  for (uint64_t i = h & mask_;; i = (i + 1) & mask_) {
    uint8_t fi = fingerprints_[i];
    if (fi == 0) return kNoToken;
    if (fi != f) continue;
    const Slot& s = slots_[i];
    if (s.len_tag == len_tag(n, h) && s.head == load_head(p, n)) {
      if (n <= 8) return s.id;
      // Below 255 bytes len_tag holds the exact length.
      if ((n < 255 || t.lengths_[s.id] == n) &&
          std::memcmp(t.arena_.data() + t.starts_[s.id] + 8, p + 8, n - 8) == 0)
        return s.id;
    }
  }
}

}  // namespace tf::byte_level
