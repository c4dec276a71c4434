// ByteLevelBpe: tiktoken's byte-pair encoding of one pre-tokenized piece.
//
// Ranks are token ids; two adjacent parts may merge when their concatenated bytes are a
// token, and the merge with the lowest rank is applied first (leftmost on ties) until none
// applies.  A piece that is itself a token is emitted directly.  Short pieces use the
// quadratic scan tiktoken uses (fast for the typical 2-20 bytes); long pieces use a heap
// with lazy deletion over a linked list of parts, O(n log n), so no input is quadratic.
// See Sennrich et al. 2016 (BPE) and Radford et al. 2019 (byte-level BPE).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/piece_cache.h"
#include "models/token_table.h"

namespace tf {

class ByteLevelBpe {
 public:
  // Fails on duplicate ids or bytes.  Single bytes need not all be tokens, but a piece
  // containing a byte that is not a token cannot be encoded (see encode_piece).
  bool build(std::vector<std::pair<std::string, uint32_t>> ranks, std::string* error);

  const TokenTable& vocab() const { return vocab_; }

  // Appends the ids of piece [p, p + n) to *out.  Returns false if the piece holds a byte
  // that is not in the vocabulary (nothing is appended then).  `cache`, if given, must be
  // this vocabulary's (see cache()).
  bool encode_piece(const uint8_t* p, size_t n, std::vector<uint32_t>* out, PieceCache* cache = nullptr) const;

  // This thread's piece cache for this vocabulary.
  PieceCache& cache() const { return thread_cache(instance_); }

  // The pieces above this many bytes take the heap path.
  static constexpr size_t kShortPiece = 96;

 private:
  bool merge_short(const uint8_t* p, size_t n, std::vector<uint32_t>* out) const;
  bool merge_long(const uint8_t* p, size_t n, std::vector<uint32_t>* out) const;
  uint32_t rank_of(const uint8_t* p, size_t n) const { return vocab_.find(p, n); }

  TokenTable vocab_;
  uint32_t byte_token_[256];
  uint64_t instance_ = 0;  // process-unique, names this vocabulary's thread caches
};

}  // namespace tf
