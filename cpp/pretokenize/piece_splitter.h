// PieceSplitter: the pieces of one segment, in order, one end per next() call.
//
// Where the ASCII splitter (ascii_splitter.h) decides them, pieces come from its batches
// (up to kBatch ends per call); elsewhere from the exact scalar scanner, one at a time,
// until past the bytes that stopped the splitter.  The scalar scanner is a template
// parameter so that it inlines into the caller's loop (see with_scanner).
#pragma once

#include <cstddef>
#include <cstdint>

#include "pretokenize/ascii_splitter.h"
#include "common/inline.h"

namespace tf::scan {

template <typename NextPiece>
class PieceSplitter {
 public:
  PieceSplitter(SplitPattern pattern, const uint8_t* p, const uint8_t* end, NextPiece next_piece)
      : pattern_(pattern), scan_(p), end_(end), scalar_until_(p), next_piece_(next_piece),
        bulk_(has_ascii_splitter(pattern) && ascii_split_level() != SplitLevel::kOff) {}

  // How many of the pieces handed out so far came from the ASCII splitter.
  size_t split_in_bulk() const { return bulk_count_; }

  // Whether every piece has been handed out.
  bool done() const { return read_ == count_ && scan_ >= end_; }

  // The end of the next piece (which starts at the previous one's end); !done() first.
  TF_ALWAYS_INLINE const uint8_t* next() {
    if (read_ == count_) refill();
    return ends_[read_++];
  }

 private:
  static constexpr size_t kBatch = 256;

  void refill() {
    read_ = 0;
    if (bulk_ && scan_ >= scalar_until_) {
      AsciiSplit r = ascii_split(pattern_, scan_, end_, ends_, kBatch);
      scalar_until_ = r.resume;
      if (r.count > 0) {
        count_ = r.count;
        bulk_count_ += r.count;
        scan_ = ends_[count_ - 1];
        return;
      }
    }
    ends_[0] = scan_ = next_piece_(scan_, end_);
    count_ = 1;
  }

  SplitPattern pattern_;
  const uint8_t* scan_;          // where splitting goes on
  const uint8_t* end_;
  const uint8_t* scalar_until_;  // the scalar scanner splits up to here
  NextPiece next_piece_;
  bool bulk_;
  size_t read_ = 0, count_ = 0, bulk_count_ = 0;
  const uint8_t* ends_[kBatch];
};

}  // namespace tf::scan
