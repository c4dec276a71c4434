// SafeCuts: places inside a piece where no token can straddle, so the piece may be merged
// as independent chunks.
//
// tiktoken merges the adjacent pair of lowest rank until none is a token.  Cut the piece
// between bytes b-1 and b.  If no token of the vocabulary could cover both bytes, no merge
// ever joins across the cut (a merge makes a token), so the merges on either side never
// see each other: each side goes through exactly the merges it would go through alone, and
// the ids are those of the two sides merged separately.  A token covering bytes b-1 and b
// either is those two bytes, or has three bytes or more and then contains the three bytes
// b-2, b-1, b or the three bytes b-1, b, b+1.  So the cut is safe when the two bytes are
// not a token and neither three-byte string occurs inside any token.
//
// And when the two bytes occur in no token at all, no token covers them and the cut is
// safe without the three-byte tests (a fifth of the positions that reach those tests on
// multilingual text, cl100k).
// Kept as a byte per pair of bytes (64 KB: token / inside longer tokens only / in no
// token; a load and a compare, where a bit took four more instructions per position) and
// a hashed bit set of the three-byte strings of all tokens (128 KB, so it stays in the L2
// cache): a hash collision only forgoes a cut, never makes a wrong one.  On random
// letters most cuts fall every 15-30 bytes, on a run of Chinese characters that are not
// tokens at almost every character, so a long piece becomes many short merges instead of
// one big one; on a run of one repeated byte there is none (the long-piece merge handles
// those).  O(1) per position.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "models/byte_level/vocab/token_table.h"
#include "common/inline.h"

namespace tf::byte_level {

class SafeCuts {
 public:
  void build(const TokenTable& vocab);

  // From a cut *c of the piece [p, p + n), the next cut at the end of one of the next
  // kRunChars three-byte characters (each starting with a lead byte, 1110xxxx; a cut
  // inside one is not looked for, as the chunk merges alone as its parts do), or 0 if
  // none is found there (then next() goes on from *c).  The chunks of one character
  // before it go to one(c), without a return per chunk, and *c moves past them (if one(c)
  // refuses, c + 3 is returned).  In cl100k, most chunks of CJK text are one character
  // (CharMerges) and most others a few: one test per character, from one load, and no
  // pair scan per chunk (stepping such runs a character at a time inside next() as well
  // was no better; figures: benchmarks/README.md).
  // Only any subset of safe cuts is needed for exactness (reference/bpe.py, safe_cuts).
  static constexpr size_t kRunChars = 5;
  template <class One>
  TF_ALWAYS_INLINE size_t char_run(const uint8_t* p, size_t n, size_t* c, One one) const {
    for (size_t e = *c;;) {
      uint32_t w;
      if (e + 4 <= n) {
        std::memcpy(&w, p + e, 4);
        if (!lead3(w)) return 0;
      } else if (e + 3 == n && lead3(p[e])) {
        w = 0;  // the last character: n follows it
      } else {
        return 0;
      }
      e += 3;
      if (e != n && !boundary_cut(p, n, e, w)) {
        if (e - *c >= 3 * kRunChars) return 0;
        continue;
      }
      if (e - *c > 3 || !one(*c)) return e;
      *c = e;
      if (e == n) return n;
    }
  }
  static bool lead3(uint32_t v) { return (v & 0xF0u) == 0xE0u; }

  // The first b' >= b (0 < b) where the piece [p, p + n) may be cut, or n.  The same test
  // as at(), in one loop without the edge checks inside the piece: on random letters
  // nearly every pair is a token and the loop rarely leaves its first test.
  size_t next(const uint8_t* p, size_t n, size_t b) const {
    if (b < 2) {
      if (b < n && at(p, n, b)) return b;
      b = 2;
    }
    // Two positions per step while four bytes can be read at b - 1: both pairs from one
    // load, and one test when both are tokens (most positions of random letters).
    for (; b + 3 <= n; b += 2) {
      uint32_t w;
      std::memcpy(&w, p + b - 1, 4);
      const uint8_t k0 = pair_[w & 0xFFFFu], k1 = pair_[(w >> 8) & 0xFFFFu];
      if ((k0 & k1) == kToken) continue;  // both kToken (the kinds are 0, 1, 2)
      if (k0 != kToken && (k0 == kNowhere || !(bit(three_, slot(p + b - 2)) || bit(three_, slot(p + b - 1))))) {
        return b;
      }
      if (k1 != kToken && (k1 == kNowhere || !(bit(three_, slot(p + b - 1)) || bit(three_, slot(p + b))))) {
        return b + 1;
      }
    }
    for (; b + 1 < n; ++b) {
      const uint8_t kind = pair_[p[b - 1] | (p[b] << 8)];
      if (kind == kToken) continue;
      if (kind == kInside && (bit(three_, slot(p + b - 2)) || bit(three_, slot(p + b - 1)))) continue;
      return b;
    }
    return b < n && at(p, n, b) ? b : n;
  }

  // True if the piece [p, p + n) may be cut between bytes b - 1 and b (0 < b < n).
  bool at(const uint8_t* p, size_t n, size_t b) const {
    const uint8_t kind = pair_[p[b - 1] | (p[b] << 8)];
    if (kind != kInside) return kind == kNowhere;
    if (b >= 2 && bit(three_, slot(p + b - 2))) return false;
    return b + 1 >= n || !bit(three_, slot(p + b - 1));
  }

 private:
  // pair_[a | b << 8]: the two bytes a b are a token, or occur only inside longer tokens,
  // or in no token.
  static constexpr uint8_t kNowhere = 0, kToken = 1, kInside = 2;
  static constexpr int kThreeBits = 20;
  static uint32_t slot(const uint8_t* q) {
    return slot_of(q[0] | (q[1] << 8) | (static_cast<uint32_t>(q[2]) << 16));
  }
  static uint32_t slot_of(uint32_t t) { return (t * 0x9E3779B1u) >> (32 - kThreeBits); }  // t: three bytes
  static bool bit(const std::vector<uint64_t>& set, uint32_t i) { return (set[i >> 6] >> (i & 63)) & 1; }

  // at(p, n, b) for b >= 3, with w the four bytes from b - 3, the first of them a lead
  // byte (the end of a three-byte character a0 a1 a2 at b).  When the next character is
  // one too (b0 b1 b2, all four continuation bytes 10xxxxxx), exactly from two bit sets
  // of 2^16 bits (8 KB each) instead of the pair kinds and the hashed three-byte strings:
  // left_ by a1 a2 b0, set if a1 a2 b0 is inside a token or a2 b0 is a token; right_ by
  // a2 b0 b1, set if a2 b0 b1 is inside a token.  A pair a2 b0 in no token leaves both
  // clear (each string holds it), so the kNowhere shortcut needs no test of its own.  The
  // six varying bits of each continuation byte and the four of the lead byte make the
  // index, the fixed bits being checked first.  Exact where the hashed set's collisions
  // forwent cuts: on CJK text the exact bits find a few more safe cuts than the hashed set
  // did.  More chunks run more instructions (testing both bits without a branch ran more
  // still) but take less time on Japanese and Chinese (figures: benchmarks/README.md).
  TF_ALWAYS_INLINE bool boundary_cut(const uint8_t* p, size_t n, size_t b, uint32_t w) const {
    if ((w & 0xF0C0C000u) == 0xE0808000u) {  // a1, a2 continuation bytes, b0 a lead byte
      if (bit(left_, left_index(w))) return false;
      if (b + 1 >= n) return true;
      const uint8_t b1 = p[b + 1];
      if ((b1 & 0xC0u) == 0x80u) return !bit(right_, right_index(w, b1));
      return !bit(three_, slot(p + b - 1));
    }
    const uint8_t kind = pair_[(w >> 16) & 0xFFFFu];
    if (kind == kToken) return false;
    return kind == kNowhere || !(bit(three_, slot_of(w >> 8)) || (b + 1 < n && bit(three_, slot(p + b - 1))));
  }

  // The index of a1 a2 b0 in left_, for w = a0 a1 a2 b0 (low byte first): a1's six bits,
  // a2's six, b0's four.
  static uint32_t left_index(uint32_t w) { return ((w >> 8) & 0x3Fu) | ((w >> 10) & 0xFC0u) | ((w >> 12) & 0xF000u); }
  // The index of a2 b0 b1 in right_: a2's six bits, b0's four, b1's six.
  static uint32_t right_index(uint32_t w, uint8_t b1) {
    return ((w >> 16) & 0x3Fu) | ((w >> 18) & 0x3C0u) | (static_cast<uint32_t>(b1 & 0x3Fu) << 10);
  }

  std::vector<uint8_t> pair_ = std::vector<uint8_t>(65536, kNowhere);
  std::vector<uint64_t> left_ = std::vector<uint64_t>(65536 / 64, 0);
  std::vector<uint64_t> right_ = std::vector<uint64_t>(65536 / 64, 0);
  std::vector<uint64_t> three_ = std::vector<uint64_t>((size_t{1} << kThreeBits) / 64, 0);
};

}  // namespace tf::byte_level
