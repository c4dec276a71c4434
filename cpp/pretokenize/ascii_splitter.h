// AsciiSplitter: the pieces of ASCII text for the split patterns of scanner.h (cl100k /
// Llama 3, o200k, GPT-2, DeepSeek V3), 64 bytes at a time, without a branch per piece.
//
// The scanners in scanner.h find one piece per call, and each call's branches depend on
// the class of the piece's first characters, which varies at random in text: a branch
// mispredicted per piece or two, and each call waits on the previous one's end.  Here a
// window of 64 bytes starting at a piece start is classified in a few vector instructions
// into one 64-bit mask per character class, and the set of piece starts in the window
// comes out of shifts, ands and carries on those masks (ascii_split_rules.h states the
// rules and why they equal the regex's leftmost-first matching).  The pieces are then
// read off the mask with a count-trailing-zeros loop.
//
// Only what the window decides is emitted: a start is kept only before the first byte
// that is not ASCII (its class is unknown here), less two bytes of look-ahead, and not
// inside a run of whitespace that may continue past that point.  The last start kept
// becomes the next window's start, so a window advances ~55 bytes on English text.  When
// a window decides nothing (a non-ASCII character or a piece longer than the window at
// its start) the caller splits on with the exact scalar scanner, for at least the one
// piece and at most past the window's last non-ASCII byte.  A window with a non-ASCII
// byte among its first 16 is handed over so without being classified: on text of other
// scripts that is most windows, and they would decide little.  O(1) work per 64 bytes.
//
// The classification runs with AVX-512 (BW, VBMI: one vpermi2b table lookup per 64 bytes;
// VBMI2's vpcompressb writes the ends) when the CPU has it, else with AVX2 compares, 32
// bytes at a time (the ends written eight at a time from a table of bit positions), else
// with SSE2 compares (runtime dispatch: the build targets x86-64-v2).  The AVX-512 and
// AVX2 paths also classify the two-byte letters U+00C0..U+00FF (accented Latin letters)
// as letters, so that text in French, German or Spanish stays in the splitter; for the
// SSE path they are hard, as every byte >= 0x80 is (all exact, see latin1_letters in the
// .cc); set_ascii_split_level() forces any level or turns the splitter off, so tests
// cover every path on one machine.  Each level is faster than the one below it (figures:
// benchmarks/README.md).
#pragma once

#include <cstddef>
#include <cstdint>

#include "pretokenize/scanner.h"

namespace tf::scan {

enum class SplitLevel : int {
  kOff = 0,     // the scalar scanner only
  kSse = 1,     // SSE2 classification (x86-64 baseline)
  kAvx2 = 2,    // AVX2 classification, Latin-1 letters as letters
  kAvx512 = 3,  // AVX-512 BW + VBMI + VBMI2
};

// The best level this CPU runs (kOff where the splitter is not built: not x86-64).
SplitLevel best_ascii_split_level();
// The level in use; the first call picks the best one.
SplitLevel ascii_split_level();
// Sets the level (clamped to the best one); returns the previous level.  For tests and
// benchmarks: not meant to change while another thread encodes.
SplitLevel set_ascii_split_level(SplitLevel level);

// Whether `pattern` has a splitter here (every pattern of scanner.h has).
inline bool has_ascii_splitter(SplitPattern pattern) {
  return static_cast<int>(pattern) <= static_cast<int>(SplitPattern::kDeepSeekV3);
}

struct AsciiSplit {
  size_t count;            // ends written
  const uint8_t* resume;   // count == 0: split on with the scalar scanner up to here
};

// Splits from the piece start p: writes the ends of the successive pieces to ends[0..)
// (at most `room`, which must be >= 64), stopping when room runs low or at a window that
// decides nothing.  Each end is the start of the next piece; the last one is where to
// continue.  `pattern` must have a splitter and the level must not be kOff.
AsciiSplit ascii_split(SplitPattern pattern, const uint8_t* p, const uint8_t* end, const uint8_t** ends,
                       size_t room);

}  // namespace tf::scan
