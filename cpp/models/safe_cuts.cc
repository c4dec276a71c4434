#include "models/safe_cuts.h"

#include <algorithm>

namespace tf {

void SafeCuts::build(const TokenTable& vocab) {
  std::fill(pair_.begin(), pair_.end(), kNowhere);
  std::fill(three_.begin(), three_.end(), 0);
  for (uint32_t id = 0; id < vocab.id_bound(); ++id) {
    if (!vocab.has(id)) continue;
    std::string_view t = vocab.bytes(id);
    const uint8_t* p = reinterpret_cast<const uint8_t*>(t.data());
    if (t.size() == 2) {
      pair_[p[0] | (p[1] << 8)] = kToken;
    } else {
      for (size_t k = 0; k + 2 <= t.size(); ++k) {
        uint8_t& kind = pair_[p[k] | (p[k + 1] << 8)];
        if (kind == kNowhere) kind = kInside;
      }
    }
    for (size_t k = 0; k + 3 <= t.size(); ++k) {
      uint32_t i = slot(p + k);
      three_[i >> 6] |= uint64_t{1} << (i & 63);
    }
  }
}

}  // namespace tf
