#include "models/byte_level/vocab/ascii_triples.h"

namespace tf::byte_level {

void AsciiTriples::build(const TokenTable& vocab) {
  bits_.assign(size_t{1} << (22 - 6), 0);
  for (uint32_t id = 0; id < vocab.id_bound(); ++id) {
    if (!vocab.has(id)) continue;
    std::string_view s = vocab.bytes(id);
    if (s.size() < 3 || s.size() > 15) continue;
    bool ascii = true;
    for (char c : s) ascii = ascii && static_cast<uint8_t>(c) < 0x80;
    if (!ascii) continue;
    uint32_t w = 0;
    std::memcpy(&w, s.data(), 3);
    const uint32_t at = 2 * index(w) + (s.size() > 3);
    bits_[at >> 6] |= uint64_t{1} << (at & 63);
  }
}

}  // namespace tf::byte_level
