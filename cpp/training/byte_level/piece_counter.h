// PieceCounter: pre-tokenize a corpus and count its distinct pieces, on several threads.
//
// Input is cut into blocks of about 4 MB (down to 1 MB when that gives each thread too
// few) at chunk boundaries (text_chunks.h), so each block is split by the hand-written
// scanner of the pattern exactly as the whole text would be.  Files are read block by
// block with pread, never whole: memory grows with the number of distinct pieces (one
// PieceMap per thread, merged at the end), not with the size of the corpus.  Per piece:
// O(its length) to scan and hash; short frequent pieces are tallied in a small per-thread
// cache, the rest go to the map with their slot prefetched.
// Each file and each in-memory text is its own text: no piece spans two of them, nor a
// special token (set_specials), which is skipped.  Pieces split elsewhere (a pattern
// without a scanner, split in Python by the `regex` module) can be added with add_pieces.
// What it leaves out: merging (bpe_trainer.h) and the patterns (pretokenize/).
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "pipeline/special_matcher.h"
#include "pretokenize/scanner.h"
#include "training/byte_level/piece_map.h"

namespace tf::train {

class PieceCounter {
 public:
  // `block_bytes` is the nominal block size (tests make it tiny to exercise the cuts).
  PieceCounter(SplitPattern pattern, int threads, uint64_t block_bytes = uint64_t{4} << 20);

  // Counts the pieces of each file.  Invalid UTF-8 is an error unless `replace_invalid`,
  // which decodes it the way Python's errors="replace" does.  On failure returns false
  // with a message naming the file (and the byte offset for bad UTF-8); *os_error tells
  // whether the failure came from the operating system.
  // `by_line` makes every line (with its '\n') a text of its own, as HF's
  // Tokenizer.train(files) reads files.
  bool add_files(const std::vector<std::string>& paths, bool replace_invalid, bool by_line, std::string* error,
                 bool* os_error);

  // Special tokens: their occurrences cut the text and are not counted (HF's trainer counts
  // them as ordinary text; skipping them lets "<|endoftext|>" separate documents).
  // Blocks are never cut inside one.  Set before adding input.
  void set_specials(const std::vector<std::string>& specials);

  // Counts the pieces of each text (valid UTF-8, as Python's str gives).
  void add_texts(const std::vector<std::string_view>& texts);

  // Counts pieces that were split elsewhere.
  void add_pieces(const std::vector<std::string_view>& pieces);

  // All pieces counted so far, merged across threads.
  const PieceMap& merged();

  // Frees the pieces (once the trainer has its own copy of them); counting starts afresh.
  void release() {
    for (PieceMap& m : maps_) m = PieceMap();
  }

  // Input bytes processed so far; safe to read from another thread while counting.
  uint64_t bytes_done() const { return bytes_done_.load(std::memory_order_relaxed); }

  struct Source;  // one file or in-memory text (defined in piece_counter.cc)

 private:
  bool run(const std::vector<Source>& sources, bool replace_invalid, bool by_line, std::string* error,
           bool* os_error);

  NextPieceFn next_piece_;
  int threads_;
  uint64_t block_bytes_;
  SpecialMatcher specials_;
  size_t max_special_ = 0;
  std::vector<PieceMap> maps_;  // one per thread; maps_[0] holds the merge
  std::atomic<uint64_t> bytes_done_{0};
};

}  // namespace tf::train
