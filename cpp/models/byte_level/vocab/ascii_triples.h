// AsciiTriples: for each string of three ASCII bytes, whether it is a token, and whether
// it begins an ASCII token of 4..15 bytes: an exact filter that answers most lookups of
// the merge of a new short ASCII piece without probing the short token index.
//
// Two bits per triple, indexed by its 21 bits (7 per byte), 512 KB per vocabulary; the
// triples of letters and digits take about 100 KB of it, so it stays in the L2 cache
// while the short index (4-8 MB) does not.  Exact: an ASCII string of 3 bytes that is a
// token has its first bit; one of 4..15 bytes that is a token has its first three bytes'
// second bit; a clear bit proves that the string is no token.  On random letters a new
// piece's merge asks a few lookups of 3 and 4 bytes, most of them no tokens, and each
// probe of the index was a cache miss; the filter answers most of them without a probe.
// O(1) per test; built in one pass over the tokens.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "models/byte_level/vocab/token_table.h"
#include "common/inline.h"

namespace tf::byte_level {

class AsciiTriples {
 public:
  void build(const TokenTable& vocab);

  // False if the ASCII string [p, p + len) (3 <= len <= 15; p[0..3] readable) is surely no
  // token; true if it may be one.
  TF_ALWAYS_INLINE bool may_be_token(const uint8_t* p, size_t len) const {
    uint32_t w;
    std::memcpy(&w, p, 4);
    return may_be_token_word(w, len);
  }
  // may_be_token of a string whose first three bytes are those of w (little-endian).
  TF_ALWAYS_INLINE bool may_be_token_word(uint32_t w, size_t len) const {
    const uint32_t at = 2 * index(w) + (len > 3);
    return (bits_[at >> 6] >> (at & 63)) & 1;
  }

 private:
  // The 21-bit index of the ASCII bytes w & 0x7F, w >> 8 & 0x7F, w >> 16 & 0x7F.
  static TF_ALWAYS_INLINE uint32_t index(uint32_t w) {
    return (w & 0x7F) | ((w >> 1) & 0x3F80) | ((w >> 2) & 0x1FC000);
  }

  std::vector<uint64_t> bits_;
};

}  // namespace tf::byte_level
