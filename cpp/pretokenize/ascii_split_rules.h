// The piece starts of a 64-byte ASCII window, from its class masks (see ascii_splitter.h).
//
// Bit i of a mask stands for byte i of the window; `X << 1` is "the previous byte is in
// X", `X >> 1` "the next byte is".  Bit 0 is a piece start, and the regexes never look
// behind a piece start, so the window begins as if the text began there: shifts bring in
// zeros, a class of no character.  Classes: L letters (U upper, Lo lower), N digits,
// NL \r \n, SP ' ', WS \t \v \f, Q ', SL / (also in O), O every other ASCII byte
// (punctuation, symbols, controls that are not whitespace).  S = NL|SP|WS.
//
// A piece starts at byte i (b, after a) exactly when (derived from the patterns'
// alternatives in order, and checked against the regexes by tests/property):
//   b letter:  a digit or newline; or a in O|Q not itself starting a piece (then it ends
//              a punctuation run, `[^\s\p{L}\p{N}]++`, and cannot lead the word); or a a
//              letter that ends a contraction; o200k also: b upper after a lower (CamelCase).
//              A letter after SP/WS continues: that space always starts a piece, as lead.
//   b digit:   a not a digit, or b is 3k digits into its run (`\p{N}{1,3}`).
//   b O|Q:     a not in O|Q|SP (a punctuation run goes on through O|Q, after an optional
//              space); o200k: also after the tail `[\r\n/]*` of a punctuation piece, but
//              a '/' continues that tail, and a ' that opens a contraction does not start.
//   b newline: a letter or digit (after punctuation it joins its tail, after whitespace
//              `\s*[\r\n]` takes it).
//   b SP/WS:   a not whitespace; or a a newline in a punctuation piece's tail, or the last
//              newline of its whitespace run (`\s*[\r\n]` stops there); or a SP/WS and b
//              the run's last byte (`\s+(?!\S)` leaves it to lead the next piece).
// Contractions: cl100k's `'(?i:[sdmt]|ll|ve|re)` matches where a ' starts a piece;
// o200k's suffix `(?i:'s|...)` where a ' follows a word's letters (not the letters of a
// previous contraction: "it's's" is "it's" + "'s").
// GPT-2 (`'s|'t|...| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`) is simpler: only a
// space leads a run, newlines are whitespace like any other, contractions are lower case.
// DeepSeek V3's three Splits have rules of their own (deepseek_v3_starts).
#pragma once

#include <cstdint>

#include "common/inline.h"

namespace tf::scan {

struct AsciiClasses {
  uint64_t hard;                 // bytes >= 0x80 (and padding past the text's end)
  uint64_t L, U, N, NL, SP, WS, Q, SL, O;
  uint64_t sdmt, rv, e, l;       // contraction letters, either case
  uint64_t latin;                // the Latin-1 letters classified as L (both bytes); 0 where they are hard
  uint64_t ctl;                  // control bytes that are not whitespace (in O)
};

// What a window decides.
struct WindowStarts {
  uint64_t starts;  // piece starts; only those below `limit` are decided
  int limit;        // 0..62; 0: the window decides nothing
};

namespace rules {

constexpr uint64_t kMod3 = 0x9249249249249249ull;  // bits 0, 3, 6, ...

// Starts of digit groups: every third digit of a run, from its first (`\p{N}{1,3}`).
// A run's start plus the run itself carries through the run (x + seed clears the run
// from the seed up and sets the bit after it): one add per residue of the start mod 3.
TF_ALWAYS_INLINE uint64_t digit_starts(uint64_t N) {
  const uint64_t first = N & ~(N << 1);
  uint64_t d = 0;
  for (int r = 0; r < 3; ++r) {
    const uint64_t m = kMod3 << r;
    const uint64_t run = ((N + (first & m)) ^ N) & N;  // the runs that start at residue r
    d |= run & m;
  }
  return d;
}

// Bits of `within` reachable from a bit of `seed` going down through `within` only
// (suffix-or in log steps: after the step of d, a bit sees 2d bits ahead).
TF_ALWAYS_INLINE uint64_t fill_down(uint64_t seed, uint64_t within) {
  uint64_t f = seed & within, g = within;
  for (int d = 1; d < 64; d *= 2) {
    f |= (f >> d) & g;
    g &= g >> d;
  }
  return f;
}

// Starts at SP/WS bytes, given the newlines that end a punctuation piece (`tail`).  A run's
// last blank starts a piece (`\s+(?!\S)` gives it back) unless a byte of `keeps` follows:
// DeepSeek V3's digits, which end the subject, so that the run stays whole.
TF_ALWAYS_INLINE uint64_t space_starts(const AsciiClasses& c, uint64_t tail, uint64_t keeps = 0) {
  const uint64_t S = c.NL | c.SP | c.WS, blank = c.SP | c.WS;
  const uint64_t later_nl = fill_down(c.NL, S) >> 1;        // a newline follows in the run
  const uint64_t last_nl = c.NL & ~later_nl;
  const uint64_t run_last = S & ~((S | keeps) >> 1);
  return blank & (~(S << 1) | ((c.NL & (tail | last_nl)) << 1) | ((blank << 1) & run_last));
}

// The decided limit: two bytes of look-ahead before the first hard byte, and not inside
// a run of whitespace reaching it (whose end decides its pieces).
TF_ALWAYS_INLINE int decided_limit(const AsciiClasses& c) {
  const int h = c.hard ? __builtin_ctzll(c.hard) : 64;
  if (h < 3) return 0;
  int v = h - 2;
  const uint64_t S = c.NL | c.SP | c.WS;
  if ((S >> (v - 1)) & 1) {
    const uint64_t below = ~S & ((uint64_t{1} << v) - 1);
    v = below ? 64 - __builtin_clzll(below) : 0;
  }
  return v;
}

}  // namespace rules

// cl100k (both spellings: they differ only at the end of the text, never decided here),
// and with kOneDigit Qwen 2's, where every digit starts a piece (`\p{N}`).
template <bool kOneDigit>
TF_ALWAYS_INLINE WindowStarts cl100k_family_starts(const AsciiClasses& c) {
  using namespace rules;
  const uint64_t OQ = c.O | c.Q, OQSP = OQ | c.SP;
  const uint64_t q_start = c.Q & ~(OQSP << 1);
  const uint64_t two = ((c.rv << 1) & c.e) | ((c.l << 1) & c.l);   // re ve ll ending here
  const uint64_t contraction_end = ((q_start << 1) & c.sdmt) | ((q_start << 2) & two);
  const uint64_t letter = c.L & (((c.N | c.NL) << 1) | ((OQ << 1) & (OQSP << 2)) | (contraction_end << 1));
  const uint64_t punct = OQ & ~(OQSP << 1);
  const uint64_t newline = c.NL & ((c.L | c.N) << 1);
  const uint64_t seeds = c.NL & (OQ << 1);  // at most one per run of newlines: the add carries it
  const uint64_t tail = ((c.NL + seeds) ^ c.NL) & c.NL;
  const uint64_t digit = kOneDigit ? c.N : digit_starts(c.N);
  const uint64_t starts = letter | digit | punct | newline | space_starts(c, tail);
  return WindowStarts{starts, decided_limit(c)};
}
TF_ALWAYS_INLINE WindowStarts cl100k_starts(const AsciiClasses& c) { return cl100k_family_starts<false>(c); }
TF_ALWAYS_INLINE WindowStarts qwen2_starts(const AsciiClasses& c) { return cl100k_family_starts<true>(c); }

// o200k.  The contraction suffix of a word depends on whether the letter before its '
// ends an earlier contraction; chains ("a's's") need a few rounds, more than 4 give up.
TF_ALWAYS_INLINE WindowStarts o200k_starts(const AsciiClasses& c) {
  using namespace rules;
  const uint64_t OQ = c.O | c.Q, OQSP = OQ | c.SP, Lo = c.L & ~c.U;
  const uint64_t two = ((c.rv << 1) & c.e) | ((c.l << 1) & c.l);
  const uint64_t maybe = c.Q & (c.L << 1) & ((c.sdmt >> 1) | (two >> 2));
  uint64_t quote = maybe, contraction_end = 0;  // ' of a word's contraction suffix; its last letter
  for (int round = 0;; ++round) {
    contraction_end = ((quote << 1) & c.sdmt) | ((quote << 2) & two);
    const uint64_t next = maybe & ~(contraction_end << 1);
    if (next == quote) break;
    if (round == 4) return WindowStarts{0, 0};
    quote = next;
  }
  // `[\r\n/]*` after a punctuation run: from each newline after O|Q up through newlines and
  // '/'.  A run of those may hold several such newlines ("./\n/\n"); the add carries from
  // the first to the run's end and sets the others' bits, which the final | puts back.
  const uint64_t T = c.NL | c.SL, seeds = c.NL & (OQ << 1);
  const uint64_t tail = (((T + seeds) ^ T) & T) | seeds;
  const uint64_t punct = ((OQ & ~c.SL & (~(OQSP << 1) | (tail << 1))) | (c.SL & ~((OQSP | tail) << 1))) & ~quote;
  const uint64_t letter = c.L & (((c.N | c.NL) << 1) | ((OQ & ~(punct | quote)) << 1) | (contraction_end << 1) |
                                 (c.U & (Lo << 1) & ~(quote << 2)));
  const uint64_t newline = c.NL & ((c.L | c.N) << 1);
  const uint64_t starts = letter | digit_starts(c.N) | punct | newline | space_starts(c, tail);
  return WindowStarts{starts, decided_limit(c)};
}

// GPT-2: a letter, digit or punctuation run starts after anything but its own class and a
// space; a ' that starts a piece and is followed by a contraction takes it.
TF_ALWAYS_INLINE WindowStarts gpt2_starts(const AsciiClasses& c) {
  using namespace rules;
  const uint64_t OQ = c.O | c.Q, OQSP = OQ | c.SP, lower = ~c.U;
  const uint64_t sdmt = c.sdmt & lower, e = c.e & lower, l = c.l & lower, rv = c.rv & lower;
  const uint64_t two = ((rv << 1) & e) | ((l << 1) & l);
  const uint64_t q_start = c.Q & ~(OQSP << 1);
  const uint64_t opens2 = q_start & (sdmt >> 1), opens3 = q_start & (two >> 2);
  const uint64_t contraction_end = (opens2 << 1) | (opens3 << 2);
  const uint64_t letter =
      c.L & (~((c.L | c.SP | c.Q) << 1) | ((c.Q & ~(opens2 | opens3)) << 1) | (contraction_end << 1));
  const uint64_t digit = c.N & ~((c.N | c.SP) << 1);
  const uint64_t punct = OQ & ~(OQSP << 1);
  const uint64_t S = c.NL | c.SP | c.WS, run_last = S & ~(S >> 1);
  const uint64_t space = S & (~(S << 1) | ((S << 1) & run_last));
  return WindowStarts{letter | digit | punct | space, decided_limit(c)};
}

// DeepSeek V3 (deepseek_v3_scanner.h).  Split 1 makes every `\p{N}{1,3}` a piece and ends
// the third Split's subject there; within it the alternatives at a piece start are A1
// punctuation + ASCII letters, A2 an optional lead (a space or tab) + letters, A3 an optional
// space + a punctuation run + CR/LF*, A4 `\s*[\r\n]+`, A5 `\s+(?!\S)` (the subject's end
// counts as no \S: a run before a digit stays whole), A6 `\s+`.  So, by the byte b and the
// one before it, a:
//   b punctuation (P: every ASCII one, O|Q):  a neither P nor a space (a space before it
//              always starts a piece and leads it by A3; after a P the run goes on).
//   b letter:  a a newline or digit; or a a P that does not start a piece (it ends a run or
//              follows a leading space); after a P that does, A1 takes the letters.
//   b newline: a a letter or digit (after P it is A3's tail, after whitespace A4's).
//   b space/tab: as in cl100k (after non-space, after a tail or last newline, the last
//              blank of a run), except that the last blank before a digit does not start.
// Control bytes are gaps of no alternative and the Latin-1 letters are letters for A2 but not
// A1: both are left to the scalar scanner (hard here).
TF_ALWAYS_INLINE WindowStarts deepseek_v3_starts(const AsciiClasses& in) {
  using namespace rules;
  AsciiClasses c = in;
  c.hard |= c.latin | c.ctl;
  c.L &= ~c.latin;
  const uint64_t P = (c.O | c.Q) & ~c.hard;
  const uint64_t punct = P & ~((P | c.SP) << 1);
  const uint64_t letter = c.L & ((c.NL | c.N | (P & ~punct)) << 1);
  const uint64_t newline = c.NL & ((c.L | c.N) << 1);
  const uint64_t seeds = c.NL & (P << 1);
  const uint64_t tail = ((c.NL + seeds) ^ c.NL) & c.NL;
  const uint64_t space = space_starts(c, tail, c.N);
  return WindowStarts{letter | digit_starts(c.N) | punct | newline | space, decided_limit(c)};
}

}  // namespace tf::scan
