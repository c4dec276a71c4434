// TokenTable: the trainer's tokens (id -> bytes), and the id of the bytes of two tokens
// joined, found without reading those bytes.
//
// A merge asks whether a+b is a token already (HF reuses the id when two merges build the
// same bytes, as a+bc and ab+c).  Hashing the joined string costs its length, and runs of
// one letter build tokens of 65 536 bytes.  Instead each token keeps a polynomial hash of
// its bytes modulo the Mersenne prime 2^61 - 1 and base^length, so that
// hash(a+b) = hash(a) * base^|b| + hash(b): O(1) per lookup, with bytes compared only
// when the hashes match (a true repeat, or a collision, which costs a comparison and
// nothing else).  Open addressing with linear probing at load <= 1/2.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "common/byte_hash.h"

namespace tf::train {

class TokenTable {
 public:
  TokenTable() : slots_(1024, kEmpty) {}

  // Adds a token that is not in the table yet (the single bytes); returns its id.
  uint32_t add(std::string bytes) {
    uint64_t h = 0, pw = 1;
    for (unsigned char c : bytes) {
      h = add_mod(mul_mod(h, kBase), c + 1u);
      pw = mul_mod(pw, kBase);
    }
    return insert(std::move(bytes), h, pw);
  }

  // The id of the bytes of a then b, added as a new token if no token has them yet.
  uint32_t join(uint32_t a, uint32_t b) {
    uint64_t h = add_mod(mul_mod(meta_[a].hash, meta_[b].power), meta_[b].hash);
    const std::string &x = tokens_[a], &y = tokens_[b];
    size_t mask = slots_.size() - 1;
    for (size_t i = mix64(h) & mask; slots_[i] != kEmpty; i = (i + 1) & mask) {
      uint32_t id = slots_[i];
      const std::string& t = tokens_[id];
      if (meta_[id].hash == h && t.size() == x.size() + y.size() && t.compare(0, x.size(), x) == 0 &&
          t.compare(x.size(), y.size(), y) == 0)
        return id;
    }
    return insert(x + y, h, mul_mod(meta_[a].power, meta_[b].power));
  }

  // The bytes of a then b as a new id even when a token has them already (minbpe's rule).
  uint32_t append(uint32_t a, uint32_t b) {
    uint64_t h = add_mod(mul_mod(meta_[a].hash, meta_[b].power), meta_[b].hash);
    return insert(tokens_[a] + tokens_[b], h, mul_mod(meta_[a].power, meta_[b].power));
  }

  size_t size() const { return tokens_.size(); }
  const std::vector<std::string>& tokens() const { return tokens_; }

 private:
  static constexpr uint64_t kMod = (uint64_t{1} << 61) - 1;
  static constexpr uint64_t kBase = 0x1f3d5b79a2c4e687ull % kMod;
  static constexpr uint32_t kEmpty = 0xFFFFFFFFu;

  // Results are always reduced to [0, kMod): equal strings must get equal hashes however
  // they were split.
  static uint64_t mul_mod(uint64_t a, uint64_t b) {
    __uint128_t p = static_cast<__uint128_t>(a) * b;
    uint64_t s = (static_cast<uint64_t>(p) & kMod) + static_cast<uint64_t>(p >> 61);
    s = (s & kMod) + (s >> 61);
    return s >= kMod ? s - kMod : s;
  }
  static uint64_t add_mod(uint64_t a, uint64_t b) {
    uint64_t s = a + b;
    return s >= kMod ? s - kMod : s;
  }

  uint32_t insert(std::string bytes, uint64_t h, uint64_t pw) {
    uint32_t id = static_cast<uint32_t>(tokens_.size());
    tokens_.push_back(std::move(bytes));
    meta_.push_back(Meta{h, pw});
    if (2 * tokens_.size() > slots_.size()) {
      slots_.assign(2 * slots_.size(), kEmpty);
      for (uint32_t t = 0; t < id; ++t) place(meta_[t].hash, t);
    }
    place(h, id);
    return id;
  }

  void place(uint64_t h, uint32_t id) {
    size_t mask = slots_.size() - 1;
    size_t i = mix64(h) & mask;
    while (slots_[i] != kEmpty) i = (i + 1) & mask;
    slots_[i] = id;
  }

  struct Meta {
    uint64_t hash, power;  // of the token's bytes, modulo kMod
  };
  std::vector<std::string> tokens_;
  std::vector<Meta> meta_;
  std::vector<uint32_t> slots_;
};

}  // namespace tf::train
