#include "normalize/hf_charsmap.h"

#include <cstring>

namespace tf::hf {

bool CharsmapShortest::init(std::string_view blob, std::string* error) {
  uint32_t size = 0;
  if (blob.size() < 4) {
    *error = "Precompiled: charsmap shorter than its header";
    return false;
  }
  std::memcpy(&size, blob.data(), 4);
  if (size > blob.size() - 4 || size % 4 != 0) {
    *error = "Precompiled: charsmap trie size exceeds the blob";
    return false;
  }
  trie_.assign(reinterpret_cast<const uint8_t*>(blob.data()) + 4, size);
  strings_.assign(blob.substr(4 + size));
  for (uint8_t b = 0; b < 128; ++b) {
    size_t len = 0;
    ascii_hit_[b] = shortest(&b, 1, &len) != nullptr;
  }
  return true;
}

const char* CharsmapShortest::shortest(const uint8_t* s, size_t n, size_t* len) const {
  uint32_t value = 0;
  if (trie_.longest_prefix(s, n, &value, 1) == 0 || value >= strings_.size()) return nullptr;
  const char* p = strings_.data() + value;
  const void* nul = std::memchr(p, 0, strings_.size() - value);
  *len = nul ? static_cast<const char*>(nul) - p : strings_.size() - value;
  return p;
}

}  // namespace tf::hf
