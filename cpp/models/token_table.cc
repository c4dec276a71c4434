#include "models/token_table.h"

#include <algorithm>
#include <cstring>

#include "util/byte_hash.h"

namespace tf {

bool TokenTable::build(std::vector<std::pair<std::string, uint32_t>> tokens, std::string* error) {
  uint32_t bound = 0;
  size_t total = 0;
  for (auto& t : tokens) {
    if (t.second == kNoToken) {
      *error = "token id 4294967295 is reserved";
      return false;
    }
    bound = std::max(bound, t.second + 1);
    total += t.first.size();
  }
  starts_.assign(bound, kHole);
  lengths_.assign(bound, 0);
  arena_.clear();
  arena_.reserve(total);
  max_len_ = 0;
  for (auto& t : tokens) {
    if (starts_[t.second] != kHole) {
      *error = "duplicate token id " + std::to_string(t.second);
      return false;
    }
    starts_[t.second] = static_cast<uint32_t>(arena_.size());
    lengths_[t.second] = static_cast<uint32_t>(t.first.size());
    arena_ += t.first;
    max_len_ = std::max(max_len_, t.first.size());
  }
  count_ = tokens.size();
  size_t cap = 16;
  while (cap < count_ * 2 + 2) cap <<= 1;
  slots_.assign(cap, Slot{kNoToken, 0});
  mask_ = cap - 1;
  for (auto& t : tokens) {
    const uint8_t* p = reinterpret_cast<const uint8_t*>(t.first.data());
    uint64_t h = hash_bytes(p, t.first.size());
    uint32_t tag = static_cast<uint32_t>(h >> 32);
    for (uint64_t i = h & mask_;; i = (i + 1) & mask_) {
      Slot& s = slots_[i];
      if (s.id == kNoToken) {
        s = Slot{t.second, tag};
        break;
      }
      if (s.tag == tag && bytes(s.id) == t.first) {
        *error = "duplicate token bytes for ids " + std::to_string(s.id) + " and " + std::to_string(t.second);
        return false;
      }
    }
  }
  return true;
}

uint32_t TokenTable::find(const uint8_t* p, size_t n) const {
  if (n > max_len_ || slots_.empty()) return kNoToken;
  uint64_t h = hash_bytes(p, n);
  uint32_t tag = static_cast<uint32_t>(h >> 32);
  for (uint64_t i = h & mask_;; i = (i + 1) & mask_) {
    const Slot& s = slots_[i];
    if (s.id == kNoToken) return kNoToken;
    if (s.tag == tag && lengths_[s.id] == n && std::memcmp(arena_.data() + starts_[s.id], p, n) == 0) return s.id;
  }
}

}  // namespace tf
