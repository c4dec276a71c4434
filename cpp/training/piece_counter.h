// PieceCounter: pre-tokenize a corpus and count its distinct pieces, on several threads.
//
// Input is cut into blocks of about 4 MB at chunk boundaries (text_chunks.h), so each
// block is split by the hand-written scanner of the pattern exactly as the whole text
// would be.  Files are read block by block with pread, never whole: memory grows with the
// number of distinct pieces (one PieceMap per thread, merged at the end), not with the
// size of the corpus.  Each file and each in-memory text is its own text: no piece spans
// two of them.  Pieces split elsewhere (a pattern without a scanner, split in Python by
// the `regex` module) can be added directly with add_pieces.
// What it leaves out: merging (bpe_trainer.h) and the patterns (pretokenize/).
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "pretokenize/scanner.h"
#include "training/piece_map.h"

namespace tf {

class PieceCounter {
 public:
  // `block_bytes` is the nominal block size (tests make it tiny to exercise the cuts).
  PieceCounter(SplitPattern pattern, int threads, uint64_t block_bytes = uint64_t{4} << 20);

  // Counts the pieces of each file.  Invalid UTF-8 is an error unless `replace_invalid`,
  // which decodes it the way Python's errors="replace" does.  On failure returns false
  // with a message naming the file (and the byte offset for bad UTF-8); *os_error tells
  // whether the failure came from the operating system.
  bool add_files(const std::vector<std::string>& paths, bool replace_invalid, std::string* error,
                 bool* os_error);

  // Counts the pieces of each text (valid UTF-8, as Python's str gives).
  void add_texts(const std::vector<std::string_view>& texts);

  // Counts pieces that were split elsewhere.
  void add_pieces(const std::vector<std::string_view>& pieces);

  // All pieces counted so far, merged across threads.
  const PieceMap& merged();

  // Input bytes processed so far; safe to read from another thread while counting.
  uint64_t bytes_done() const { return bytes_done_.load(std::memory_order_relaxed); }

  struct Source;  // one file or in-memory text (defined in piece_counter.cc)

 private:
  bool run(const std::vector<Source>& sources, bool replace_invalid, std::string* error,
           bool* os_error);

  NextPieceFn next_piece_;
  int threads_;
  uint64_t block_bytes_;
  std::vector<PieceMap> maps_;  // one per thread; maps_[0] holds the merge
  std::atomic<uint64_t> bytes_done_{0};
};

}  // namespace tf
