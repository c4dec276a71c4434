#include "models/safe_cuts.h"

#include <algorithm>

namespace tf {

void SafeCuts::build(const TokenTable& vocab) {
  std::fill(two_.begin(), two_.end(), 0);
  std::fill(three_.begin(), three_.end(), 0);
  for (uint32_t id = 0; id < vocab.id_bound(); ++id) {
    if (!vocab.has(id)) continue;
    std::string_view t = vocab.bytes(id);
    const uint8_t* p = reinterpret_cast<const uint8_t*>(t.data());
    if (t.size() == 2) {
      uint32_t i = p[0] | (p[1] << 8);
      two_[i >> 6] |= uint64_t{1} << (i & 63);
    }
    for (size_t k = 0; k + 3 <= t.size(); ++k) {
      uint32_t i = slot(p + k);
      three_[i >> 6] |= uint64_t{1} << (i & 63);
    }
  }
}

}  // namespace tf
