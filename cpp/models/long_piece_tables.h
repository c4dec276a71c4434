// LongPieceTables: the tables only long pieces need (TokenTrie for the chunks' merges, and
// BacktrackMerge for chunks longer than kMaxTrieChunk), each built on first use, once,
// from whichever thread asks first, so a vocabulary that never meets a long piece never
// pays for them.  Movable; reset() forgets them (the vocabulary changed).
#pragma once

#include <memory>
#include <mutex>

#include "models/backtrack_merge.h"
#include "models/token_table.h"
#include "models/token_trie.h"

namespace tf {

class LongPieceTables {
 public:
  void reset() { slot_ = std::make_unique<Slot>(); }

  // The trie of `vocab` (always the same vocabulary), or nullptr if it cannot have one.
  const TokenTrie* trie(const TokenTable& vocab) const {
    std::call_once(slot_->trie_once, [&] {
      auto t = std::make_unique<TokenTrie>();
      if (t->build(vocab)) slot_->trie = std::move(t);
    });
    return slot_->trie.get();
  }

  // The backtracking merge of `vocab`, or nullptr if it is not merge-closed.
  const BacktrackMerge* backtrack(const TokenTable& vocab) const {
    const TokenTrie* t = trie(vocab);
    if (t == nullptr) return nullptr;
    std::call_once(slot_->backtrack_once, [&] {
      auto m = std::make_unique<BacktrackMerge>();
      if (m->build(vocab, *t)) slot_->backtrack = std::move(m);
    });
    return slot_->backtrack.get();
  }

 private:
  struct Slot {
    std::once_flag trie_once, backtrack_once;
    std::unique_ptr<TokenTrie> trie;
    std::unique_ptr<BacktrackMerge> backtrack;
  };
  std::unique_ptr<Slot> slot_ = std::make_unique<Slot>();
};

}  // namespace tf
