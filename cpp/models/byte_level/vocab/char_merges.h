// CharMerges: the BPE merge, alone, of every three-byte UTF-8 character (code points
// 0x800..0xFFFF): the ids tiktoken's merge gives its three bytes with nothing around them.
//
// Why: in a vocabulary where most CJK characters are not tokens (cl100k), SafeCuts cuts a
// run of them at almost every character, so a first-time piece becomes mostly chunks of
// one character (54k of 150k chunks of the first MB of the multi corpus).  A chunk between
// two safe cuts merges exactly as alone (safe_cuts.h), and alone its merge depends on its
// bytes only: this table answers such a chunk by one load, instead of a hashed probe of
// the per-thread ShortMergeCache (a cache miss in a table of megabytes) and, the first
// time, a merge.
// The merge of bytes a b c: if neither ab nor bc is a token, the three bytes; else the
// lower-ranked pair joins (ab on a tie, as tiktoken takes the leftmost), then abc if it is
// a token, else that pair and the other byte (reference/bpe.py, char_merges, the same).
// One 64-bit word per code point (512 KB; a run of text touches the lines of the
// characters it uses): up to three ids of 20 bits and their count; 0 where the answer is
// not kept (a byte that is not a token, an id >= 2^20, overlong code points < 0x800), and
// then the caller merges as before.  Built once per vocabulary (SharedVocab).
// O(1) per lookup.
#pragma once

#include <cstdint>
#include <vector>

#include "models/byte_level/vocab/token_table.h"
#include "common/inline.h"

namespace tf::byte_level {

class CharMerges {
 public:
  // `lookup(p, n)` (n = 1..3) is the id of bytes [p, p + n) or kNoToken.
  template <class Lookup>
  void build(Lookup lookup);

  // If [q, q + 3) is a three-byte character whose merge is kept, appends its ids to *out
  // and returns true; else returns false.
  TF_ALWAYS_INLINE bool append(const uint8_t* q, std::vector<uint32_t>* out) const {
    const uint32_t w = q[0] | static_cast<uint32_t>(q[1]) << 8 | static_cast<uint32_t>(q[2]) << 16;
    if ((w & 0xC0C0F0u) != 0x8080E0u) return false;  // 1110xxxx 10xxxxxx 10xxxxxx
    const uint32_t cp = ((w & 0x0Fu) << 12) | ((w >> 2) & 0xFC0u) | ((w >> 16) & 0x3Fu);
    const uint64_t e = table_[cp];
    if (e == 0) return false;
    // push_back each: a range insert is an out-of-line call, long for a few ids.
    const size_t count = static_cast<size_t>(e >> kCountShift);
    out->push_back(static_cast<uint32_t>(e & kIdMask));
    if (count > 1) out->push_back(static_cast<uint32_t>((e >> kIdBits) & kIdMask));
    if (count > 2) out->push_back(static_cast<uint32_t>((e >> (2 * kIdBits)) & kIdMask));
    return true;
  }

 private:
  static constexpr int kIdBits = 20;
  static constexpr uint64_t kIdMask = (uint64_t{1} << kIdBits) - 1;
  static constexpr int kCountShift = 62;

  std::vector<uint64_t> table_ = std::vector<uint64_t>(0x10000, 0);  // code point -> ids | count
};

template <class Lookup>
void CharMerges::build(Lookup lookup) {
  uint32_t byte[256];
  for (int b = 0; b < 256; ++b) {
    const uint8_t one = static_cast<uint8_t>(b);
    byte[b] = lookup(&one, 1);
  }
  for (uint32_t cp = 0x800; cp < 0x10000; ++cp) {
    const uint8_t b[3] = {static_cast<uint8_t>(0xE0 | (cp >> 12)), static_cast<uint8_t>(0x80 | ((cp >> 6) & 0x3F)),
                          static_cast<uint8_t>(0x80 | (cp & 0x3F))};
    uint32_t ids[3] = {byte[b[0]], byte[b[1]], byte[b[2]]};
    if (ids[0] == kNoToken || ids[1] == kNoToken || ids[2] == kNoToken) continue;
    size_t count = 3;
    const uint32_t left = lookup(b, 2), right = lookup(b + 1, 2);
    if (left != kNoToken || right != kNoToken) {
      const uint32_t whole = lookup(b, 3);
      count = whole != kNoToken ? 1 : 2;
      if (whole != kNoToken) {
        ids[0] = whole;
      } else if (left <= right) {
        ids[0] = left;
        ids[1] = ids[2];
      } else {
        ids[1] = right;
      }
    }
    uint64_t e = uint64_t{count} << kCountShift;
    bool fits = true;
    for (size_t i = 0; i < count; ++i) {
      fits = fits && ids[i] <= kIdMask;
      e |= uint64_t{ids[i] & kIdMask} << (i * kIdBits);
    }
    if (fits) table_[cp] = e;
  }
}

}  // namespace tf::byte_level
