// SentenceCounter: sentencepiece's training front end, from raw lines to counted words.
//
// Each line is checked (empty lines, lines over max_sentence_length bytes and lines that
// already hold the unknown mark U+2585 are skipped and counted), normalized as the model
// will normalize it at encoding time (tf::SpmNormalizer with the chosen charsmap and
// whitespace options), every meta piece (<unk>, <s>, user-defined, ...) in the normalized
// text is replaced by U+001F, a boundary no piece crosses, and the result is cut into
// words at "▁" (split_by_whitespace) or kept whole, each marked as ending its sentence or
// being followed by another word (see count_words).  Words are counted in a WordTable, so
// memory grows with the distinct words, not with the corpus.  Character counts for the
// alphabet (character_coverage) are taken from the counted words at the end.
// O(bytes * longest charsmap key) to add text; not thread-safe (one counter per thread).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "normalize/spm_normalizer.h"
#include "training/sentencepiece/word_table.h"

namespace tf::spm_train {

struct FrontEndOptions {
  spm::SpmNormalizerOptions normalizer;
  int max_sentence_length = 4192;
  bool split_by_whitespace = true;
  bool treat_whitespace_as_suffix = false;
  bool allow_whitespace_only_pieces = false;
};

struct LineStats {
  uint64_t sentences = 0;  // lines kept
  uint64_t too_long = 0;   // lines over max_sentence_length bytes
  uint64_t reserved = 0;   // lines holding U+2585
  uint64_t bytes = 0;      // bytes seen, newlines included
};

class SentenceCounter {
 public:
  bool init(std::string_view charsmap, const FrontEndOptions& options, const std::vector<std::string>& meta_pieces,
            std::string* error);
  // Adds every '\n'-terminated line of block (the last may lack its '\n').
  void add_block(std::string_view block);
  // Adds the lines of bytes [start, end) of a file (start must be a line start; end past
  // the file's size means its end), read in blocks into one reused buffer.  On failure
  // returns false with *error set and *os_error true for a read error (false: the text is
  // not UTF-8; the lines before the bad one's block are counted).
  bool add_file(const std::string& path, uint64_t start, uint64_t end, std::string* error, bool* os_error);
  // Adds one line (no '\n' inside), with a frequency.
  void add_line(std::string_view line, int64_t freq);
  // Adds one line that passed the checks already (the caller sampled it).
  void add_checked(std::string_view line, int64_t freq);
  // Whether a line passes the length and reserved-character checks; counts rejects.
  bool accept(std::string_view line);

  const LineStats& stats() const { return stats_; }
  const WordTable& words() const { return words_; }
  // Empties the word table and hands the freed memory back to the system.
  void clear_words();
  // Calls f(word, count) for every counted word, in words()'s order (first seen first),
  // then empties the counter (clear_words).
  template <typename F>
  void drain_words(F&& f) {
    words_.for_each(f);
    clear_words();
  }
  // Code point -> count over the counted words (weighted by their counts); false if a
  // normalized word holds a space (escape_whitespaces off), which no piece may contain.
  bool char_counts(std::unordered_map<char32_t, int64_t>* out, int64_t* total) const;
  // Merges another counter's words into this one (counts added, bits OR-ed).
  void merge(const SentenceCounter& other);

 private:
  void count_words(std::string_view normalized, int64_t freq);
  // The text with every meta piece replaced by U+001F: `text` itself when it holds none,
  // else a view of *out.
  std::string_view replace_meta(std::string_view text, std::string* out) const;

  FrontEndOptions options_;
  spm::SpmNormalizer normalizer_;
  std::vector<std::string> meta_;  // meta pieces, longest first
  bool meta_first_[256] = {};
  std::string norm_buffer_, replaced_;
  WordTable words_;
  LineStats stats_;
};

// Decodes one UTF-8 character at s[0, n) (n >= 1): its code point, *len its length;
// a malformed byte gives U+FFFD with length 1.
char32_t decode_char(const uint8_t* s, size_t n, int* len);
// Hands the process's freed heap pages back to the system (glibc keeps them otherwise);
// called when a trainer's big tables are gone.
void release_free_memory();
// The number of characters decode_char reads from `text`.
size_t count_chars(std::string_view text);

}  // namespace tf::spm_train
