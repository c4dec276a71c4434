// SharedVocab: a byte-level vocabulary (TokenTable) held once per process for every model
// built over an equal one, with the tables derived from it on first use (LongPieceTables).
//
// Programs make many models over the same vocabulary (a fresh Encoding per worker or per
// request, tiktoken's and our own constructors called with the same ranks): they now
// share its ~8 MB table and the 40-100 MB long-piece tables, which are built once, not
// once per model.  What is shared depends on the vocabulary alone, never on text encoded
// (each model keeps its own piece caches), and so are its two-byte table, the JoinIndex of
// its non-ASCII tokens and the CharMerges of its three-byte characters.  Registered weakly: a vocabulary no model uses
// any more is freed.  Finding an equal one costs a hash of the tokens and, on a match, one
// comparison of them (O(n) in the tokens' bytes).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "models/byte_level/vocab/char_merges.h"
#include "models/byte_level/vocab/join_index.h"
#include "models/byte_level/merge/long_piece_tables.h"
#include "models/byte_level/vocab/token_table.h"

namespace tf::byte_level {

struct SharedVocab {
  explicit SharedVocab(TokenTable t) : table(std::move(t)), digest(table.digest()) {}
  const TokenTable table;
  const uint64_t digest;
  // Built by share_vocab before it is shared, not changed after:
  std::vector<uint32_t> pairs;  // 65536 entries: two bytes b0 | b1 << 8 -> id or kNoToken
  JoinIndex joins;
  CharMerges chars;
  // Pieces holding a byte >= 0x80 are merged whole, without SafeCuts (ByteLevelBpe::encode_merged).
  bool whole_wide = false;
  const LongPieceTables long_tables;  // built lazily; thread-safe
};

// The live SharedVocab whose tokens equal `table`'s, or a new one holding `table`.
// Thread-safe.
std::shared_ptr<const SharedVocab> share_vocab(TokenTable table);

}  // namespace tf::byte_level
