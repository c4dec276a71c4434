#include "models/byte_level/chunking/safe_cuts.h"

#include <algorithm>

namespace tf::byte_level {

namespace {

bool continuation(uint8_t c) { return (c & 0xC0u) == 0x80u; }
void set(std::vector<uint64_t>& bits, uint32_t i) { bits[i >> 6] |= uint64_t{1} << (i & 63); }

}  // namespace

void SafeCuts::build(const TokenTable& vocab) {
  std::fill(pair_.begin(), pair_.end(), kNowhere);
  std::fill(three_.begin(), three_.end(), 0);
  std::fill(left_.begin(), left_.end(), 0);
  std::fill(right_.begin(), right_.end(), 0);
  // left_index of the string c1 c2 c3 and right_index of x c1 c2 (built as boundary_cut's w).
  auto left_of = [](uint8_t c1, uint8_t c2, uint8_t c3) {
    return left_index((uint32_t{c1} << 8) | (uint32_t{c2} << 16) | (uint32_t{c3} << 24));
  };
  auto right_of = [](uint8_t x, uint8_t c1, uint8_t c2) {
    return right_index((uint32_t{x} << 16) | (uint32_t{c1} << 24), c2);
  };
  for (uint32_t id = 0; id < vocab.id_bound(); ++id) {
    if (!vocab.has(id)) continue;
    std::string_view t = vocab.bytes(id);
    const uint8_t* p = reinterpret_cast<const uint8_t*>(t.data());
    if (t.size() == 2) {
      pair_[p[0] | (p[1] << 8)] = kToken;
      // A token a2 b0: no cut between them, whatever a1.
      if (continuation(p[0]) && lead3(p[1])) {
        for (uint32_t c = 0x80; c < 0xC0; ++c) set(left_, left_of(static_cast<uint8_t>(c), p[0], p[1]));
      }
    } else {
      for (size_t k = 0; k + 2 <= t.size(); ++k) {
        uint8_t& kind = pair_[p[k] | (p[k + 1] << 8)];
        if (kind == kNowhere) kind = kInside;
      }
    }
    for (size_t k = 0; k + 3 <= t.size(); ++k) {
      set(three_, slot(p + k));
      if (continuation(p[k]) && continuation(p[k + 1]) && lead3(p[k + 2])) set(left_, left_of(p[k], p[k + 1], p[k + 2]));
      if (continuation(p[k]) && lead3(p[k + 1]) && continuation(p[k + 2])) {
        set(right_, right_of(p[k], p[k + 1], p[k + 2]));
      }
    }
  }
}

}  // namespace tf::byte_level
