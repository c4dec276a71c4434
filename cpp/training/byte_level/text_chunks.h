// Cutting a text into chunks that can be pre-tokenized independently, and UTF-8 checks.
//
// A chunk boundary must fall where the split pattern would end a piece anyway, or counting
// chunks in parallel would give other pieces than scanning the whole text.  For the GPT
// family of patterns (gpt2, cl100k, llama3, o200k) two places are always piece boundaries:
//   * after '\n' and before an ASCII letter or digit: no alternative of these patterns lets
//     a piece continue from a newline into a letter or digit (o200k's `[\r\n/]*` suffix can
//     continue into '/', which is why only letters and digits count);
//   * between an ASCII letter and ' ' followed by an ASCII letter ("a b" -> "a", " b").
// Patterns look at most one character past the end of a piece (`(?!\S)`, `$`), so a chunk
// [start, q) is scanned with one byte of the following text as look-ahead.
// What it leaves out: reading files (piece_counter.cc) and the scanners themselves.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace tf::train {

// True if position q (0 < q < size) of `d` is a chunk boundary as described above.
inline bool is_chunk_boundary(const uint8_t* d, size_t size, size_t q) {
  auto alpha = [](uint8_t c) { return static_cast<uint8_t>((c | 0x20) - 'a') < 26; };
  auto digit = [](uint8_t c) { return static_cast<uint8_t>(c - '0') < 10; };
  uint8_t before = d[q - 1], at = d[q];
  if (before == '\n') return alpha(at) || digit(at);
  return at == ' ' && alpha(before) && q + 1 < size && alpha(d[q + 1]);
}

// Offset of the first byte of `d` that does not start a valid UTF-8 sequence (or starts a
// truncated one), or `n` if the whole buffer is valid.
size_t utf8_first_invalid(const uint8_t* d, size_t n);

// Appends `d` to *out with every ill-formed sequence replaced by U+FFFD, one replacement per
// maximal subpart, as Python's bytes.decode("utf-8", errors="replace") does.
void utf8_replace_invalid(const uint8_t* d, size_t n, std::string* out);

}  // namespace tf::train
