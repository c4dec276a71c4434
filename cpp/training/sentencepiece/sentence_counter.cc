#include "training/sentencepiece/sentence_counter.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "training/byte_level/text_chunks.h"
#include "training/sentencepiece/piece_rules.h"

namespace tf::spm_train {

namespace {
constexpr std::string_view kSpaceUtf8 = "\xe2\x96\x81";
constexpr std::string_view kUnknownUtf8 = "\xe2\x96\x85";
constexpr size_t kReadBlock = size_t{1} << 20;

// Checks a block's UTF-8; false with *error naming the first bad byte.
bool check_utf8(std::string_view block, const std::string& path, uint64_t offset, std::string* error) {
  const size_t bad = train::utf8_first_invalid(reinterpret_cast<const uint8_t*>(block.data()), block.size());
  if (bad == block.size()) return true;
  *error = path + ": not UTF-8 (byte " + std::to_string(offset + bad) + ")";
  return false;
}
}  // namespace

char32_t decode_char(const uint8_t* s, size_t n, int* len) {
  const size_t l = spm::utf8_char_len(s, n);
  if (l == 0) {
    *len = 1;
    return 0xFFFD;
  }
  *len = static_cast<int>(l);
  if (l == 1) return s[0];
  if (l == 2) return ((s[0] & 0x1Fu) << 6) | (s[1] & 0x3Fu);
  if (l == 3) return ((s[0] & 0x0Fu) << 12) | ((s[1] & 0x3Fu) << 6) | (s[2] & 0x3Fu);
  return ((s[0] & 0x07u) << 18) | ((s[1] & 0x3Fu) << 12) | ((s[2] & 0x3Fu) << 6) | (s[3] & 0x3Fu);
}

size_t count_chars(std::string_view text) {
  const auto* s = reinterpret_cast<const uint8_t*>(text.data());
  size_t n = 0;
  for (size_t i = 0; i < text.size(); ++n) i += std::max<size_t>(1, spm::utf8_char_len(s + i, text.size() - i));
  return n;
}

bool SentenceCounter::init(std::string_view charsmap, const FrontEndOptions& options,
                           const std::vector<std::string>& meta_pieces, std::string* error) {
  options_ = options;
  if (!normalizer_.init(charsmap, options.normalizer, error)) return false;
  meta_.clear();
  for (const std::string& m : meta_pieces)
    if (!m.empty()) meta_.push_back(m);
  std::stable_sort(meta_.begin(), meta_.end(), [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  std::fill(std::begin(meta_first_), std::end(meta_first_), false);
  for (const std::string& m : meta_) meta_first_[static_cast<uint8_t>(m[0])] = true;
  return true;
}

bool SentenceCounter::accept(std::string_view line) {
  if (line.empty()) return false;
  if (line.size() > static_cast<size_t>(options_.max_sentence_length)) {
    ++stats_.too_long;
    return false;
  }
  if (line.find(kUnknownUtf8) != std::string_view::npos) {
    ++stats_.reserved;
    return false;
  }
  return true;
}

void SentenceCounter::add_block(std::string_view block) {
  stats_.bytes += block.size();
  size_t start = 0;
  while (start < block.size()) {
    size_t end = block.find('\n', start);
    if (end == std::string_view::npos) end = block.size();
    std::string_view line = block.substr(start, end - start);
    if (accept(line)) add_checked(line, 1);
    start = end + 1;
  }
}

bool SentenceCounter::add_file(const std::string& path, uint64_t start, uint64_t end, std::string* error,
                               bool* os_error) {
  *os_error = true;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *error = path + ": " + std::strerror(errno);
    return false;
  }
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  std::string buf;  // the carried partial line, then the bytes read after it
  uint64_t pos = start, offset = start;  // next byte to read; file offset of buf[0]
  while (pos < end) {
    const size_t keep = buf.size();
    const size_t want = static_cast<size_t>(std::min<uint64_t>(kReadBlock, end - pos));
    buf.resize(keep + want);
    ssize_t got;
    do {
      got = ::pread(fd, buf.data() + keep, want, static_cast<off_t>(pos));
    } while (got < 0 && errno == EINTR);
    if (got < 0) {
      *error = path + ": " + std::strerror(errno);
      return false;
    }
    buf.resize(keep + static_cast<size_t>(got));
    if (got == 0) break;
    pos += static_cast<uint64_t>(got);
    const size_t found = std::string_view(buf).substr(keep).rfind('\n');  // the carry holds none
    if (found == std::string_view::npos) continue;  // one long line so far: read on
    const size_t cut = keep + found;
    const std::string_view block(buf.data(), cut + 1);
    if (!check_utf8(block, path, offset, error)) {
      *os_error = false;
      return false;
    }
    add_block(block);
    offset += cut + 1;
    buf.erase(0, cut + 1);
  }
  if (!buf.empty()) {
    if (!check_utf8(buf, path, offset, error)) {
      *os_error = false;
      return false;
    }
    add_block(buf);
  }
  return true;
}

void SentenceCounter::add_line(std::string_view line, int64_t freq) {
  stats_.bytes += line.size() + 1;
  if (accept(line)) add_checked(line, freq);
}

void SentenceCounter::add_checked(std::string_view line, int64_t freq) {
  ++stats_.sentences;
  std::string_view norm = normalizer_.normalize_view(line, &norm_buffer_);
  if (!meta_.empty()) norm = replace_meta(norm, &replaced_);
  if (!norm.empty()) count_words(norm, freq);
}

// Meta pieces are valid UTF-8, so their first byte is never a continuation byte: a byte
// match is a character match, and the text is scanned byte by byte.
std::string_view SentenceCounter::replace_meta(std::string_view text, std::string* out) const {
  size_t i = 0, copied = 0;
  bool replaced = false;
  while (i < text.size()) {
    size_t matched = 0;
    if (meta_first_[static_cast<uint8_t>(text[i])]) {
      for (const std::string& m : meta_) {
        if (text.size() - i >= m.size() && std::memcmp(text.data() + i, m.data(), m.size()) == 0) {
          matched = m.size();
          break;
        }
      }
    }
    if (matched == 0) {
      ++i;
      continue;
    }
    if (!replaced) out->clear();
    replaced = true;
    out->append(text.data() + copied, i - copied);
    out->push_back('\x1f');
    i += matched;
    copied = i;
  }
  if (!replaced) return text;
  out->append(text.data() + copied, text.size() - copied);
  return *out;
}

// sentencepiece's word split: a word starts at the text's start and at each "▁" (with
// allow_whitespace_only_pieces, a run of "▁" stays one word); with
// treat_whitespace_as_suffix a word ends after its "▁" instead.  The last word of the text
// is marked kEndsSentence, the others kBeforeWord with the next word's first byte (the
// words cover the text, so that is the byte after the word).
void SentenceCounter::count_words(std::string_view text, int64_t freq) {
  if (!options_.split_by_whitespace) {
    words_.add(text, freq, kEndsSentence);
    return;
  }
  const bool allow_ws = options_.allow_whitespace_only_pieces;
  size_t word_start = 0, i = 0;
  bool in_ws = false;
  auto emit = [&](size_t end) {
    const WordEnds ends = end == text.size() ? kEndsSentence : kBeforeWord | static_cast<uint8_t>(text[end]);
    if (end > word_start) words_.add(text.substr(word_start, end - word_start), freq, ends);
    word_start = end;
  };
  const auto* s = reinterpret_cast<const uint8_t*>(text.data());
  if (!options_.treat_whitespace_as_suffix && !allow_ws) {
    // The usual case: a word starts at the start and at every "▁" (its bytes only ever
    // start a character in UTF-8, so a byte search finds exactly the characters).
    for (size_t at = text.find(kSpaceUtf8, 1); at != std::string_view::npos; at = text.find(kSpaceUtf8, at + 3))
      emit(at);
  } else if (options_.treat_whitespace_as_suffix) {
    while (i < text.size()) {
      int len;
      decode_char(s + i, text.size() - i, &len);
      const bool is_ws = text.compare(i, 3, kSpaceUtf8) == 0 && len == 3;
      if (is_ws) {
        in_ws = true;
      } else if (in_ws) {
        if (allow_ws) emit(i);
        in_ws = false;
      }
      i += static_cast<size_t>(len);
      if (i < text.size() && is_ws && !allow_ws) emit(i);
    }
  } else {
    while (i < text.size()) {
      int len;
      decode_char(s + i, text.size() - i, &len);
      const bool is_ws = len == 3 && text.compare(i, 3, kSpaceUtf8) == 0;
      if (i == 0 || (is_ws && (!in_ws || !allow_ws))) {
        emit(i);
        in_ws = true;
      }
      if (in_ws && !is_ws) in_ws = false;
      i += static_cast<size_t>(len);
    }
  }
  emit(text.size());
}

bool SentenceCounter::char_counts(std::unordered_map<char32_t, int64_t>* out, int64_t* total) const {
  *total = 0;
  bool ok = true;
  words_.for_each([&](std::string_view word, int64_t freq) {
    const auto* s = reinterpret_cast<const uint8_t*>(word.data());
    size_t i = 0;
    while (ok && i < word.size()) {
      int len;
      const char32_t c = decode_char(s + i, word.size() - i, &len);
      i += static_cast<size_t>(len);
      if (c == 0) continue;
      if (c == 0x20) ok = false;
      (*out)[c] += freq;
      *total += freq;
    }
  });
  return ok;
}

void release_free_memory() {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

void SentenceCounter::clear_words() {
  words_.clear();
  release_free_memory();
}

void SentenceCounter::merge(const SentenceCounter& other) {
  const WordTable& words = other.words_;
  for (size_t i = 0; i < words.size(); ++i) words_.add(words.word(i), words.count(i), words.ends(i));
  stats_.sentences += other.stats_.sentences;
  stats_.too_long += other.stats_.too_long;
  stats_.reserved += other.stats_.reserved;
  stats_.bytes += other.stats_.bytes;
}

}  // namespace tf::spm_train
