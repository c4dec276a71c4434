// ByteLevelBpe: tiktoken's byte-pair encoding of one pre-tokenized piece.
//
// One rule: ranks are token ids; two adjacent parts may merge when their concatenated
// bytes are a token, and the merge of lowest rank is applied first (leftmost on ties)
// until none applies.  A piece that is itself a token is emitted directly
// (Sennrich et al. 2016; Radford et al. 2019).  Every path below computes exactly that;
// each has a plain-Python oracle in tokenforge/reference/fast_paths.py.
//
// Routing (short_route / long_route below are the one place that decides):
//
//   piece that is not a token         | route       | routine
//   ----------------------------------+-------------+----------------------------------------
//   ASCII, 2..4 bytes                 | kTinyAscii  | merge_tiny_ascii (pair ranks, <= 2 lookups)
//   ASCII, 5..15 bytes                | kShortAscii | short merge cache, else merge_ascii while
//                                     |             | the first-sight filter is on, merge_parts off
//   non-ASCII, <= 256 bytes, in a     | kWhole      | (short) merge cache, else merge_parts,
//   vocabulary of many multi-char     |             | which starts characters as one part and
//   tokens (whole_wide, e.g. o200k)   |             | joins parts by id (merge_joins)
//   anything else                     | kChunks     | (short) merge cache, else merge_chunks
//
//   merge_chunks cuts the piece where no token can straddle (SafeCuts) and merges each
//   chunk of m bytes alone, the first line that applies:
//     runs of 3-byte characters (CJK) in pieces of <= 256 bytes: per character, CharMerges
//     m = 1, 2; one 3-byte character      byte table, pair table, CharMerges
//     LongPieceTables wanted (pieces > 64 bytes met often), m <= kMaxTrieChunk, and the
//       piece > 256 bytes or m > 15       merge_medium_chunk: BacktrackMerge for a run of
//                                         one byte, else the trie merge (trie_chunk_merge.h)
//     m <= 256                            merge_short: short merge cache (m <= 15), else
//                                         merge_parts, O(m^2 / vector width)
//     otherwise                           merge_long: BacktrackMerge, or the bucket queue
//                                         (near-linear, so no input is quadratic)
//
// Lookups: byte strings of up to 15 bytes in the ShortTokenIndex (one cache line each),
// longer ones in the TokenTable.  Caches are per thread (ByteLevelCache): whole pieces of
// up to 512 bytes, and strings of up to 15 bytes in its ShortMergeCache.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "models/byte_level/vocab/ascii_triples.h"
#include "models/byte_level/vocab/char_atoms.h"
#include "models/byte_level/vocab/join_index.h"
#include "common/thread_cache.h"
#include "models/byte_level/cache/byte_level_cache.h"
#include "models/byte_level/chunking/safe_cuts.h"
#include "models/byte_level/vocab/shared_vocab.h"
#include "models/byte_level/vocab/short_token_index.h"
#include "models/byte_level/vocab/token_table.h"
#include "common/byte_hash.h"
#include "common/inline.h"

namespace tf::byte_level {

class ByteLevelBpe {
 public:
  // Fails on duplicate ids or bytes.  Single bytes need not all be tokens, but a piece
  // containing a byte that is not a token cannot be encoded (see encode_piece).
  bool build(std::vector<std::pair<std::string, uint32_t>> ranks, std::string* error);

  const TokenTable& vocab() const { return *vocab_; }

  // Appends the ids of piece [p, p + n) to *out.  Returns false if the piece holds a byte
  // that is not in the vocabulary (nothing is appended then).  `cache` is this
  // vocabulary's cache of the calling thread (cache()), never null.
  // Inline: pieces of up to 15 bytes that are tokens are answered here by the short index
  // (most pieces of real text), without a call; the rest go to encode_nontoken or
  // encode_piece_slow.
  inline bool encode_piece(const uint8_t* p, size_t n, std::vector<uint32_t>* out, ByteLevelCache* cache) const;

  // Whole pieces of at most ShortTokenIndex::kMaxLen bytes that are tokens are answered by
  // one probe of the short index (most pieces of real text); the encoder's loop looks them
  // up itself, prefetching each probe a few pieces ahead, and calls
  // encode_short_nontoken_keyed() on a miss.
  const ShortTokenIndex& short_index() const { return short_; }
  // Pieces longer than kMaxLen are rarely tokens and usually new: the encoder hashes them
  // a few pieces ahead (h = hash_bytes(p, n)) and prefetch_long() starts loading what
  // encode_long() = encode_piece will probe first.
  void prefetch_long(uint64_t h, ByteLevelCache* cache) const {
    vocab_->prefetch(h);
    cache->prefetch(h);
  }
  bool encode_long(const uint8_t* p, size_t n, uint64_t h, std::vector<uint32_t>* out, ByteLevelCache* cache) const {
    return encode_piece_slow(p, n, h, out, cache);
  }
  // encode_piece of a piece known not to be a token.
  bool encode_nontoken(const uint8_t* p, size_t n, std::vector<uint32_t>* out, ByteLevelCache* cache) const;
  // encode_nontoken of a piece of 1..ShortTokenIndex::kMaxLen bytes with key k and
  // h = ShortTokenIndex::hash(k) (cache not null): inline when the piece's merge is in the
  // cache, which on text it mostly is, else out of line.
  TF_ALWAYS_INLINE bool encode_short_nontoken_keyed(const uint8_t* p, size_t n, ShortTokenIndex::Key k, uint64_t h,
                                                    std::vector<uint32_t>* out, ByteLevelCache* cache) const {
    return cached_short_nontoken(k, h, out, cache) || (n > 1 && encode_short_nontoken(p, n, k.lo, k.hi, h, out, cache));
  }


  // This thread's piece cache for this vocabulary.
  ByteLevelCache& cache() const { return thread_cache<ByteLevelCache>(instance_); }

  // Pieces and chunks above this many bytes are merged by merge_long (or, once the long
  // tables are built, merge_medium_chunk), not by the quadratic scan.
  static constexpr size_t kShortPiece = 256;

 private:
  // Merges a piece that is not a token chunk by chunk (see SafeCuts).
  bool encode_piece_slow(const uint8_t* p, size_t n, uint64_t h, std::vector<uint32_t>* out, ByteLevelCache* cache) const;
  // encode_piece of a piece known not to be a token (h = hash_bytes(p, n)): the piece
  // cache, else a merge.
  bool encode_merged(const uint8_t* p, size_t n, uint64_t h, std::vector<uint32_t>* out, ByteLevelCache* cache) const;
  // True if every byte of [p, p + n) is a token (a piece with one that is not cannot be encoded).
  bool bytes_are_tokens(const uint8_t* p, size_t n) const;
  // encode_merged of a piece of 2..ShortTokenIndex::kMaxLen bytes with key k = {lo, hi}
  // and h = ShortTokenIndex::hash(k), through cache->shorts().  The key comes as two
  // words: passed as a Key, GCC stored its two registers and read them back as one 16-byte
  // vector, a store-forwarding stall on every call.
  bool encode_short_nontoken(const uint8_t* p, size_t n, uint64_t lo, uint64_t hi, uint64_t h,
                             std::vector<uint32_t>* out, ByteLevelCache* cache) const;
  // The part of encode_short_nontoken that answers from cache->shorts(): appends the ids
  // and returns true if they are there (and the first-sight filter would ask it).
  TF_ALWAYS_INLINE static bool cached_short_nontoken(ShortTokenIndex::Key k, uint64_t h, std::vector<uint32_t>* out,
                                                     ByteLevelCache* cache) {
    const bool ascii = !k.has_high_byte();
    FirstSightFilter& filter = cache->first_sight();
    if (ascii && filter.on()) return false;  // encode_short_nontoken decides
    if (!cache->shorts().find(k, h, out)) return false;
    if (ascii) filter.looked_up(true);
    return true;
  }
  // whole_cached: the caller looks the whole piece up in, and adds it to, cache->shorts().
  bool merge_chunks(const uint8_t* p, size_t n, std::vector<uint32_t>* out, ByteLevelCache* cache,
                    bool whole_cached = false) const;
  // A chunk of 3..kMaxTrieChunk bytes once the trie is wanted: the trie merge, or the
  // backtracking one for a run (see merge_chunks).
  void merge_medium_chunk(const TokenTrie& trie, const uint8_t* q, size_t m, std::vector<uint32_t>* out) const;
  bool merge_short(const uint8_t* p, size_t n, std::vector<uint32_t>* out, ByteLevelCache* cache, bool cached) const;
  void merge_parts(const uint8_t* p, size_t n, std::vector<uint32_t>* out) const;
  // merge_parts of a whole ASCII piece of kTinyPiece + 1..ShortTokenIndex::kMaxLen bytes
  // with key k, its lookups filtered by AsciiTriples.
  void merge_ascii(ShortTokenIndex::Key k, size_t n, std::vector<uint32_t>* out) const;
  // The ASCII pieces that are no token and that encode_short_nontoken merges directly
  // (merge_tiny_ascii), without the short merge cache and the first-sight filter.
  static constexpr size_t kTinyPiece = 4;
  void merge_tiny_ascii(uint64_t lo, size_t n, std::vector<uint32_t>* out) const;
  // merge_parts of a chunk holding a byte >= 0x80; bytes: its copy, padded with a zero
  // byte before it and 16 after.
  void merge_joins(const uint8_t* p, size_t n, const uint8_t* bytes, std::vector<uint32_t>* out) const;
  static constexpr size_t kTrieAfter = 64;  // longer pieces count toward, and use, LongPieceTables
  static constexpr size_t kPrefetchChunk = 32;  // merge_parts prefetches the substrings of chunks up to this size
  bool merge_long(const uint8_t* p, size_t n, std::vector<uint32_t>* out) const;
  // The routing table of a piece that is not a token (see the header comment): the one
  // place that decides which merge it takes.
  enum class Route : uint8_t {
    kTinyAscii,   // merge_tiny_ascii: a fixed decision, no cache
    kShortAscii,  // first-sight filter, short merge cache, merge_ascii or merge_parts
    kWhole,       // merged whole by merge_parts (merge_joins): no safe cuts
    kChunks,      // merge_chunks: cut at safe cuts, each chunk merged alone
  };
  // Pieces of 2..15 bytes with key k.
  TF_ALWAYS_INLINE Route short_route(ShortTokenIndex::Key k, size_t n) const {
    if (k.has_high_byte()) return whole_wide_ ? Route::kWhole : Route::kChunks;
    return n <= kTinyPiece ? Route::kTinyAscii : Route::kShortAscii;
  }
  // Pieces of more than 15 bytes.
  Route long_route(const uint8_t* p, size_t n) const {
    return whole_wide_ && n <= kShortPiece && has_high_byte(p, n) ? Route::kWhole : Route::kChunks;
  }
  static bool has_high_byte(const uint8_t* p, size_t n) {
    uint64_t any = 0;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
      uint64_t w;
      std::memcpy(&w, p + i, 8);
      any |= w;
    }
    for (; i < n; ++i) any |= p[i];
    return (any & 0x8080808080808080ull) != 0;
  }

  // The id of bytes [p, p + n) (n >= 2), or kNoToken; h = hash_bytes(p, n).
  inline uint32_t lookup_hashed(const uint8_t* p, size_t n, uint64_t h) const;
  inline uint32_t lookup(const uint8_t* p, size_t n) const;

  // The vocabulary, shared with every model over an equal one, with the tables for the
  // chunks of long pieces (built on first use); vocab_ is &shared_->table.
  std::shared_ptr<const SharedVocab> shared_;
  const TokenTable* vocab_ = nullptr;
  ShortTokenIndex short_;  // tokens of 1..15 bytes
  AsciiTriples triples_;   // which ASCII strings of 3..15 bytes may be tokens
  const JoinIndex* joins_ = nullptr;  // &shared_->joins: joins making tokens that hold a byte >= 0x80
  const CharMerges* chars_ = nullptr;  // &shared_->chars: the merges of three-byte characters
  uint32_t byte_token_[256];
  bool all_bytes_ = false;  // every byte is a token (cl100k, o200k)
  bool whole_wide_ = false;  // shared_->whole_wide, kept beside the other fields the merges read
  const uint32_t* pair_token_ = nullptr;  // shared_->pairs: two bytes b0 | b1 << 8 -> id or kNoToken
  SafeCuts cuts_;
  CharAtoms atoms_;  // characters that enter merge_parts as one part
  uint64_t instance_ = 0;  // process-unique, names this vocabulary's thread caches
};

// Two-byte strings come from a direct table, strings of up to 15 bytes from the short
// index, longer ones from the vocabulary.
TF_ALWAYS_INLINE uint32_t ByteLevelBpe::lookup_hashed(const uint8_t* p, size_t n, uint64_t h) const {
  if (n == 2) return pair_token_[p[0] | (p[1] << 8)];
  if (n <= ShortTokenIndex::kMaxLen) return short_.find(ShortTokenIndex::key_exact(p, n));
  return vocab_->find_hashed(p, n, h);
}

TF_ALWAYS_INLINE bool ByteLevelBpe::encode_piece(const uint8_t* p, size_t n, std::vector<uint32_t>* out,
                                                 ByteLevelCache* cache) const {
  if (n - 1 < ShortTokenIndex::kMaxLen) {
    uint32_t id = short_.find(ShortTokenIndex::key_exact(p, n));
    if (id == kNoToken) return encode_nontoken(p, n, out, cache);
    out->push_back(id);
    return true;
  }
  return encode_piece_slow(p, n, hash_bytes(p, n), out, cache);
}

TF_ALWAYS_INLINE uint32_t ByteLevelBpe::lookup(const uint8_t* p, size_t n) const {
  if (n == 2) return pair_token_[p[0] | (p[1] << 8)];
  if (n > vocab_->max_token_len()) return kNoToken;  // before hashing: long runs join long parts
  if (n <= ShortTokenIndex::kMaxLen) return short_.find(ShortTokenIndex::key_exact(p, n));
  return vocab_->find_hashed(p, n, hash_bytes(p, n));
}

}  // namespace tf::byte_level
