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
  while (cap * 3 < count_ * 4 + 4) cap <<= 1;  // load <= 3/4: probes of misses are cheap (fingerprints)
  slots_.assign(cap, Slot{0, kNoToken, 0});
  fingerprints_.assign(cap, 0);
  mask_ = cap - 1;
  for (auto& t : tokens) {
    const uint8_t* p = reinterpret_cast<const uint8_t*>(t.first.data());
    size_t n = t.first.size();
    uint64_t h = hash_bytes(p, n);
    uint32_t lt = len_tag(n, h);
    uint64_t head = load_head(p, n);
    for (uint64_t i = h & mask_;; i = (i + 1) & mask_) {
      Slot& s = slots_[i];
      if (s.id == kNoToken) {
        s = Slot{head, t.second, lt};
        fingerprints_[i] = fingerprint(h);
        break;
      }
      if (s.len_tag == lt && bytes(s.id) == t.first) {
        *error = "duplicate token bytes for ids " + std::to_string(s.id) + " and " + std::to_string(t.second);
        return false;
      }
    }
  }
  return true;
}


}  // namespace tf
