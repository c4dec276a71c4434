#include "models/byte_level/vocab/token_table.h"

#include <algorithm>

namespace tf::byte_level {

void TokenTable::Index::init(size_t count) {
  size_t cap = 16;
  while (cap * 3 < count * 4 + 4) cap <<= 1;  // load <= 3/4: probes of misses are cheap (fingerprints)
  slots_.assign(cap, Slot{0, kNoToken, 0});
  fingerprints_.assign(cap, 0);
  mask_ = cap - 1;
}

bool TokenTable::Index::insert(const TokenTable& t, const uint8_t* p, size_t n, uint32_t id, uint32_t* other) {
  uint64_t h = hash_bytes(p, n);
  for (uint64_t i = h & mask_;; i = (i + 1) & mask_) {
    if (fingerprints_[i] == 0) {
      slots_[i] = Slot{load_head(p, n), id, len_tag(n, h)};
      fingerprints_[i] = fingerprint(h);
      return true;
    }
    if (t.bytes(slots_[i].id) == std::string_view(reinterpret_cast<const char*>(p), n)) {
      *other = slots_[i].id;
      return false;
    }
  }
}

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
  // Tokens are indexed by id (and so are the tables built from them): ids far beyond the
  // number of tokens would cost memory for the ids that are not there (16 GB for an id
  // near 2^31), so they are refused.
  if (bound > kMaxSparseBound && bound / 4 > tokens.size()) {
    *error = "token id " + std::to_string(bound - 1) + " is too large for " + std::to_string(tokens.size()) +
             " tokens: ids must be below " + std::to_string(kMaxSparseBound) +
             " or at most 4 times the number of tokens (tokenforge indexes tokens by id)";
    return false;
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
  size_t words = 1;
  while (words * 64 < count_ * 16) words <<= 1;
  filter_.assign(words, 0);
  filter_mask_ = words - 1;
  for (auto& t : tokens) {
    uint64_t h = hash_bytes(reinterpret_cast<const uint8_t*>(t.first.data()), t.first.size());
    filter_[(h >> 6) & filter_mask_] |= uint64_t{1} << (h & 63);
  }
  index_.init(count_);
  for (auto& t : tokens) {
    uint32_t other = 0;
    if (!index_.insert(*this, reinterpret_cast<const uint8_t*>(t.first.data()), t.first.size(), t.second, &other)) {
      *error = "duplicate token bytes for ids " + std::to_string(other) + " and " + std::to_string(t.second);
      return false;
    }
  }
  return true;
}

uint64_t TokenTable::digest() const {
  uint64_t h = mix64(id_bound());
  for (uint32_t id = 0; id < id_bound(); ++id) {
    if (!has(id)) continue;
    std::string_view b = bytes(id);
    h = mix64(h ^ hash_bytes(reinterpret_cast<const uint8_t*>(b.data()), b.size()) ^ id);
  }
  return h;
}

bool TokenTable::same_tokens(const TokenTable& other) const {
  if (id_bound() != other.id_bound() || size() != other.size()) return false;
  for (uint32_t id = 0; id < id_bound(); ++id) {
    if (has(id) != other.has(id)) return false;
    if (has(id) && bytes(id) != other.bytes(id)) return false;
  }
  return true;
}

}  // namespace tf::byte_level
