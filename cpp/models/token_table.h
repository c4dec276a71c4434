// TokenTable: the vocabulary of a byte-level model, token bytes <-> id.
//
// Token bytes live in one arena; lookups by bytes go through an open-addressing hash
// table (linear probing, load <= 1/2) of ids tagged with 32 bits of their hash, so a
// probe rarely touches the arena.  O(len) per lookup.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tf {

constexpr uint32_t kNoToken = 0xFFFFFFFFu;

class TokenTable {
 public:
  // `tokens` pairs token bytes with an id.  Fails (returns false and sets *error) on a
  // duplicate id or duplicate bytes.
  bool build(std::vector<std::pair<std::string, uint32_t>> tokens, std::string* error);

  uint32_t find(const uint8_t* p, size_t n) const;
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
    uint32_t id;
    uint32_t tag;
  };
  std::string arena_;
  std::vector<uint32_t> starts_;   // id -> start in arena_, kHole where no token has that id
  std::vector<uint32_t> lengths_;  // id -> byte length
  std::vector<Slot> slots_;
  uint64_t mask_ = 0;
  size_t count_ = 0;
  size_t max_len_ = 0;
};

}  // namespace tf
