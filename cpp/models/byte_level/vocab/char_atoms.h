// CharAtoms: the two- and three-byte characters of a piece that may enter tiktoken's merge
// as one part (their token) instead of as bytes, with the same ids as the byte-level merge.
//
// tiktoken starts every piece from single bytes.  A character c of k bytes that is a token
// reaches that token through k - 1 merges of its own bytes, and on text without spaces
// (Chinese, Japanese, Russian...) those merges are most of the work of a first-time merge,
// each a lookup of a few bytes in an index too big for the L2 cache.  Starting c as its
// token is exact when, at that place in the chunk:
//  1. c's bytes merge alone into c's token (merge-closed for c), and maxrank(c), the
//     highest rank used on the way, is known;
//  2. no token covers part of c and bytes outside it (edge(): a token starting inside c
//     and ending after it begins with a suffix of c followed by the byte after c, one
//     ending inside c ends with the byte before c and a prefix of c);
//  3. every token other than c that holds c's bytes has a rank above maxrank(c).
// By 2, while c is unfinished no merge joins its bytes with outside ones, so its own
// merges go exactly as alone; by 3, a merge that joins the finished c with a neighbour
// ranks above all of c's own, so doing c's merges first changes no choice of the byte-level
// merge (reference/bpe.py, char_atoms and bpe_merge_atoms, holds the same rules, with an
// exact check of 2).
// 1 and 3 are checked per character when built (atom_, 256 KB by code point below 0x10000;
// four-byte characters stay bytes); 2 per occurrence with a hashed bit set of the few
// hundred (edge bytes, neighbour byte) keys that tokens hold (8 KB): a collision only
// forgoes an atom.  On the multi corpus most of the non-ASCII characters of pieces that
// are not tokens become atoms.  O(1) per character.
// (Tried: the one-edge-byte keys from two exact 16 KB tables indexed by the two bytes, and
// the two-byte keys only for characters flagged in atom_: fewer instructions, but no
// faster, and English slower in some runs from code layout alone; dropped.  Figures:
// benchmarks/README.md.)
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "models/byte_level/vocab/token_table.h"
#include "common/inline.h"

namespace tf::byte_level {

class CharAtoms {
 public:
  void build(const TokenTable& vocab);

  // If bytes [i, i + k) of the piece b[0, n) are a character that may start as one part
  // (k = 2 or 3), returns k and sets *id to its token; else returns 1.  b[i - 1] and
  // b[i, i + 4) must be readable (a copy of the piece with a byte before it and zeros
  // after): one load for the character and the byte after it, and one branch on all edge
  // keys.  A neighbour that is not there reads as a zero byte, so a key of it may refuse
  // an atom (no token holds a zero byte next to such a character in practice); refusing
  // an atom is always exact.
  TF_ALWAYS_INLINE size_t at(const uint8_t* b, size_t n, size_t i, uint32_t* id) const {
    uint32_t w;
    std::memcpy(&w, b + i, 4);  // little-endian: b[i] in the low byte
    const uint32_t before = b[i - 1];
    if ((w & 0xC0C0F0u) == 0x8080E0u) {  // 1110xxxx 10xxxxxx 10xxxxxx
      const uint32_t cp = ((w & 0x0Fu) << 12) | ((w >> 2) & 0xFC0u) | ((w >> 16) & 0x3Fu);
      if (cp < 0x800 || i + 3 > n) return 1;
      const uint32_t t = atom_[cp];
      const uint32_t next = w & 0xFF000000u;  // the byte after c, as end_key places it
      const uint32_t bad = static_cast<uint32_t>(cont(w >> 24)) |
                           bit(mix(((w >> 8) & 0xFFFFu) | 2u << 16 | 1u << 18 | next)) |
                           bit(mix(((w >> 16) & 0xFFu) | 1u << 16 | 1u << 18 | next)) |
                           bit(mix((w & 0xFFu) | 1u << 16 | before << 24)) |
                           bit(mix((w & 0xFFFFu) | 2u << 16 | before << 24));
      if ((t == kNoToken) | (bad != 0)) return 1;
      *id = t;
      return 3;
    }
    if ((w & 0xC0E0u) == 0x80C0u && (w & 0x1Eu) != 0) {  // 110xxxxx 10xxxxxx, not overlong
      if (i + 2 > n) return 1;
      const uint32_t t = atom_[((w & 0x1Fu) << 6) | ((w >> 8) & 0x3Fu)];
      const uint32_t next = (w >> 16) & 0xFFu;
      const uint32_t bad = static_cast<uint32_t>(cont(next)) |
                           bit(mix(((w >> 8) & 0xFFu) | 1u << 16 | 1u << 18 | next << 24)) |
                           bit(mix((w & 0xFFu) | 1u << 16 | before << 24));
      if ((t == kNoToken) | (bad != 0)) return 1;
      *id = t;
      return 2;
    }
    return 1;
  }

  static TF_ALWAYS_INLINE bool cont(uint32_t b) { return (b & 0xC0) == 0x80; }

 private:
  static constexpr int kKeyBits = 16;
  // Keys of the two edge cases: m = 1 or 2 edge bytes at q and the neighbour byte.
  static TF_ALWAYS_INLINE uint32_t end_key(const uint8_t* q, size_t m, uint32_t next) {
    return mix(pack(q, m) | static_cast<uint32_t>(m) << 16 | 1u << 18 | next << 24);
  }
  static TF_ALWAYS_INLINE uint32_t start_key(uint32_t before, const uint8_t* q, size_t m) {
    return mix(pack(q, m) | static_cast<uint32_t>(m) << 16 | before << 24);
  }
  static TF_ALWAYS_INLINE uint32_t pack(const uint8_t* q, size_t m) {
    return m == 1 ? q[0] : q[0] | static_cast<uint32_t>(q[1]) << 8;
  }
  static TF_ALWAYS_INLINE uint32_t mix(uint32_t v) { return (v * 0x9E3779B1u) >> (32 - kKeyBits); }
  TF_ALWAYS_INLINE uint32_t bit(uint32_t i) const { return static_cast<uint32_t>((keys_[i >> 6] >> (i & 63)) & 1); }
  void set(uint32_t i) { keys_[i >> 6] |= uint64_t{1} << (i & 63); }

  std::vector<uint32_t> atom_ = std::vector<uint32_t>(0x10000, kNoToken);  // code point -> token
  std::vector<uint64_t> keys_ = std::vector<uint64_t>((size_t{1} << kKeyBits) / 64, 0);
};

}  // namespace tf::byte_level
