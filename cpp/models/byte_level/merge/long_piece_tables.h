// LongPieceTables: the tables only long pieces need (TokenTrie for the chunks' merges, and
// BacktrackMerge for chunks longer than kMaxTrieChunk and for shorter runs of one byte,
// see backtrack_for_run), each built once, from whichever thread asks first.  Building
// both takes about as long as the plain merges take for a few megabytes of long pieces
// (figures: benchmarks/README.md), so the tables are wanted only once the long pieces
// seen add up to kBuildAfter bytes (a piece that long at once): a program that meets a few
// long pieces never waits for them.  They depend on the vocabulary alone, so one set
// serves every model over an equal vocabulary (SharedVocab).
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>

#include "models/byte_level/merge/backtrack_merge.h"
#include "models/byte_level/vocab/token_table.h"
#include "models/byte_level/vocab/token_trie.h"

namespace tf::byte_level {

class LongPieceTables {
 public:
  static constexpr size_t kBuildAfter = size_t{512} << 10;

  // Counts n bytes of long pieces (or their weight, see ByteLevelBpe::merge_chunks); true
  // if the tables are wanted for the piece (and from then on).
  bool wanted(size_t n) const {
    if (ready()) return true;
    if (seen_.fetch_add(n, std::memory_order_relaxed) + n < kBuildAfter) return false;
    ready_.store(true, std::memory_order_relaxed);
    return true;
  }
  bool ready() const { return ready_.load(std::memory_order_relaxed); }

  // The trie of `vocab` (always the one these tables belong to), or nullptr if it cannot have one.
  const TokenTrie* trie(const TokenTable& vocab) const {
    std::call_once(trie_once_, [&] {
      auto t = std::make_unique<TokenTrie>();
      if (t->build(vocab)) trie_ = std::move(t);
    });
    return trie_.get();
  }

  // The backtracking merge of `vocab`, or nullptr if it cannot have one (backtrack_merge.h).
  const BacktrackMerge* backtrack(const TokenTable& vocab) const {
    const TokenTrie* t = trie(vocab);
    if (t == nullptr) return nullptr;
    std::call_once(backtrack_once_, [&] {
      auto m = std::make_unique<BacktrackMerge>();
      if (m->build(vocab, *t)) backtrack_ = std::move(m);
    });
    backtrack_built_.store(true, std::memory_order_release);
    return backtrack_.get();
  }

  // The backtracking merge for a chunk of n <= 256 bytes that repeats one byte (where it
  // is faster than the trie merge), or nullptr.  Unless a long piece built
  // it already, such chunks build it only once they add up to kRunsBeforeBacktrack bytes:
  // about what the build costs in the time they would save, so a program
  // pays at most about twice the better choice made in hindsight (ski rental).
  static constexpr size_t kRunsBeforeBacktrack = size_t{24} << 20;
  const BacktrackMerge* backtrack_for_run(const TokenTable& vocab, size_t n) const {
    if (backtrack_built_.load(std::memory_order_acquire)) return backtrack_.get();
    if (run_bytes_.fetch_add(n, std::memory_order_relaxed) + n < kRunsBeforeBacktrack) return nullptr;
    return backtrack(vocab);
  }

 private:
  mutable std::atomic<size_t> seen_{0};  // bytes of long pieces counted by wanted()
  mutable std::atomic<bool> ready_{false};
  mutable std::atomic<size_t> run_bytes_{0};  // bytes of medium runs counted by backtrack_for_run()
  mutable std::atomic<bool> backtrack_built_{false};  // backtrack() has run (backtrack_ is final)
  mutable std::once_flag trie_once_, backtrack_once_;
  mutable std::unique_ptr<TokenTrie> trie_;
  mutable std::unique_ptr<BacktrackMerge> backtrack_;
};

}  // namespace tf::byte_level
