#include "normalize/spm_normalizer.h"

#include "common/inline.h"
#include "common/byte_hash.h"

#include <algorithm>
#include <cstring>

namespace tf::spm {

namespace {

constexpr std::string_view kSpace = "\xE2\x96\x81";  // U+2581
constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// Writes a std::string from its start through a raw pointer into spare size (the caller
// trims it to size(); it is only grown, so a reused buffer is not zero-filled again):
// normalize() appends a few bytes at a time (a word, a ▁), and a library append call
// each time was a visible share of encoding English.  Keeps 16 bytes of slack so short copies are
// two overlapping fixed-size moves.
class OutWriter {
 public:
  OutWriter(std::string* s, size_t expect) : s_(s) {
    if (s_->size() < expect + kSlack) s_->resize(expect + kSlack);
  }
  void put(const char* p, size_t k) {
    if (at_ + k + kSlack > s_->size()) s_->resize(std::max(2 * s_->size(), at_ + k + kSlack));
    char* d = &(*s_)[at_];
    if (k >= 8 && k <= 16) {
      uint64_t a, b;
      std::memcpy(&a, p, 8);
      std::memcpy(&b, p + k - 8, 8);
      std::memcpy(d, &a, 8);
      std::memcpy(d + k - 8, &b, 8);
    } else if (k >= 4 && k < 8) {
      uint32_t a, b;
      std::memcpy(&a, p, 4);
      std::memcpy(&b, p + k - 4, 4);
      std::memcpy(d, &a, 4);
      std::memcpy(d + k - 4, &b, 4);
    } else if (k < 4) {
      for (size_t i = 0; i < k; ++i) d[i] = p[i];
    } else {
      std::memcpy(d, p, k);
    }
    at_ += k;
  }
  void put(std::string_view v) { put(v.data(), v.size()); }
  void put(char c) { put(&c, 1); }
  size_t size() const { return at_; }
  // (Byte by byte: a memcmp call for these 1- to 3-byte tests costs more than the test.)
  bool ends_with(std::string_view v) const {
    if (at_ < v.size()) return false;
    const char* p = s_->data() + at_ - v.size();
    for (size_t i = 0; i < v.size(); ++i) {
      if (p[i] != v[i]) return false;
    }
    return true;
  }
  void truncate(size_t size) { at_ = size; }

 private:
  static constexpr size_t kSlack = 16;
  std::string* s_;
  size_t at_ = 0;
};

}  // namespace

size_t utf8_char_len(const uint8_t* s, size_t n) {
  uint8_t c = s[0];
  if (c < 0x80) return 1;
  auto trail = [&](size_t i) { return i < n && (s[i] & 0xC0) == 0x80; };
  if (c >= 0xC2 && c <= 0xDF) return trail(1) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    if (!trail(1) || !trail(2)) return 0;
    uint32_t cp = ((c & 0x0Fu) << 12) | ((s[1] & 0x3Fu) << 6) | (s[2] & 0x3Fu);
    return (cp >= 0x800 && (cp < 0xD800 || cp > 0xDFFF)) ? 3 : 0;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    if (!trail(1) || !trail(2) || !trail(3)) return 0;
    uint32_t cp = ((c & 0x07u) << 18) | ((s[1] & 0x3Fu) << 12) | ((s[2] & 0x3Fu) << 6) | (s[3] & 0x3Fu);
    return (cp >= 0x10000 && cp <= 0x10FFFF) ? 4 : 0;
  }
  return 0;
}

SpmNormalizer::CharClass SpmNormalizer::classify(const uint8_t* bytes, size_t len) {
  bool hit = false;
  const int64_t node = trie_.walk(bytes, len, &hit);
  if (hit) return kRule;
  if (node < 0) return kPlain;
  // Every character some key continues with from here.
  auto mark = [&](uint32_t cp) { continues_[cp >> 6] |= uint64_t{1} << (cp & 63); };
  bool leaf;
  for (unsigned b1 = 0; b1 < 256; ++b1) {
    const int64_t n1 = trie_.step(node, static_cast<uint8_t>(b1), &leaf);
    if (n1 < 0) continue;
    if (b1 < 0x80) {
      mark(b1);
    } else if (b1 >= 0xC2 && b1 <= 0xDF) {
      for (unsigned b2 = 0x80; b2 < 0xC0; ++b2) {
        if (trie_.step(n1, static_cast<uint8_t>(b2), &leaf) >= 0) mark(((b1 & 0x1Fu) << 6) | (b2 & 0x3Fu));
      }
    } else if (b1 >= 0xE0 && b1 <= 0xEF) {
      for (unsigned b2 = 0x80; b2 < 0xC0; ++b2) {
        const int64_t n2 = trie_.step(n1, static_cast<uint8_t>(b2), &leaf);
        if (n2 < 0) continue;
        for (unsigned b3 = 0x80; b3 < 0xC0; ++b3) {
          if (trie_.step(n2, static_cast<uint8_t>(b3), &leaf) >= 0) {
            mark(((b1 & 0x0Fu) << 12) | ((b2 & 0x3Fu) << 6) | (b3 & 0x3Fu));
          }
        }
      }
    } else {
      continues_byte_[b1] = true;
    }
  }
  return kPlainUnlessContinued;
}

bool SpmNormalizer::may_continue(const uint8_t* s, size_t n) const {
  const uint8_t c = s[0];
  uint32_t cp;
  if (c < 0x80) {
    cp = c;
  } else if (c >= 0xC2 && c <= 0xDF && n >= 2 && (s[1] & 0xC0) == 0x80) {
    cp = ((c & 0x1Fu) << 6) | (s[1] & 0x3Fu);
  } else if (const uint32_t three = utf8_three_byte(s, n)) {
    cp = three;
  } else {
    // Not a BMP character: only a first byte no continuation starts with is safe.  (A
    // malformed byte that happens to be a continuation's lead byte is caught here too.)
    return continues_byte_[c] || (c >= 0xC2 && c <= 0xEF);
  }
  return (continues_[cp >> 6] >> (cp & 63)) & 1;
}

bool SpmNormalizer::init(std::string_view blob, const SpmNormalizerOptions& options, std::string* error) {
  options_ = options;
  bmp_class_.assign(0x10000 / 4, 0);
  for (uint8_t& c : ascii_class_) c = kPlain;
  continues_.assign(0x10000 / 64, 0);
  for (bool& b : continues_byte_) b = false;
  ascii_continues_[0] = ascii_continues_[1] = 0;
  output_utf8_ = true;
  if (blob.empty()) {
    set_run_tables();
    return true;
  }
  // The checks of sentencepiece 0.2.3's DecodePrecompiledCharsMap.
  uint32_t trie_size = 0;
  if (blob.size() <= 4) {
    *error = "precompiled_charsmap: Blob for normalization rule is broken.";
    return false;
  }
  std::memcpy(&trie_size, blob.data(), 4);  // little-endian, as written by sentencepiece
  if (trie_size >= blob.size() - 4) {
    *error = "precompiled_charsmap: Trie data size exceeds the input blob size.";
    return false;
  }
  if (trie_size < 1024 || (trie_size & 0x3FF) != 0) {
    *error = "precompiled_charsmap: Trie data size is not divisible by 1024.";
    return false;
  }
  trie_.assign(reinterpret_cast<const uint8_t*>(blob.data()) + 4, trie_size);
  charsmap_hash_ = hash_bytes(reinterpret_cast<const uint8_t*>(blob.data()), blob.size());
  replacements_.assign(blob.substr(4 + trie_size));
  replacements_.push_back('\0');  // a corrupt last string still ends
  output_utf8_ = true;
  for (size_t i = 0; i < replacements_.size();) {
    const size_t len = utf8_char_len(reinterpret_cast<const uint8_t*>(replacements_.data()) + i, replacements_.size() - i);
    if (len == 0) output_utf8_ = false;
    i += len == 0 ? 1 : len;
  }
  for (int b = 0; b < 256; ++b) first_byte_hit_[b] = trie_.has_first_byte(static_cast<uint8_t>(b));
  for (uint8_t c = 0; c < 0x80; ++c) ascii_class_[c] = classify(&c, 1);
  for (uint32_t cp = 0x80; cp < 0x10000; ++cp) {
    uint8_t b[3];
    size_t len;
    if (cp < 0x800) {
      b[0] = static_cast<uint8_t>(0xC0 | (cp >> 6));
      b[1] = static_cast<uint8_t>(0x80 | (cp & 0x3F));
      len = 2;
    } else {
      b[0] = static_cast<uint8_t>(0xE0 | (cp >> 12));
      b[1] = static_cast<uint8_t>(0x80 | ((cp >> 6) & 0x3F));
      b[2] = static_cast<uint8_t>(0x80 | (cp & 0x3F));
      len = 3;
    }
    // Only characters whose first byte starts a key can be anything but plain.
    const uint8_t cls = first_byte_hit_[b[0]] ? classify(b, len) : kPlain;
    bmp_class_[cp >> 2] |= static_cast<uint8_t>(cls << ((cp & 3) * 2));
  }
  ascii_continues_[0] = continues_[0];
  ascii_continues_[1] = continues_[1];
  set_run_tables();
  return true;
}

void SpmNormalizer::set_run_tables() {
  uint64_t stops[2] = {ascii_continues_[0], ascii_continues_[1]};
  for (unsigned c = 0; c < 128; ++c) {
    if (c == ' ' || ascii_class_[c] == kRule) stops[c >> 6] |= uint64_t{1} << (c & 63);
  }
  ascii_stops_.assign(stops);
  char2_.assign(2048 / 4, 0);
  char3_.assign(65536 / 4, 0);
  auto info = [&](uint32_t cp) -> uint8_t {
    if ((continues_[cp >> 6] >> (cp & 63)) & 1) return kContinues;
    return bmp_class(cp);
  };
  for (uint32_t i = 0; i < 2048; ++i) {
    const uint8_t v = i < 0x80 ? static_cast<uint8_t>(kRule) : info(i);  // C0, C1: overlong
    char2_[i >> 2] |= static_cast<uint8_t>(v << ((i & 3) * 2));
  }
  for (uint32_t i = 0; i < 65536; ++i) {
    const uint8_t v = i < 0x800 || (i >= 0xD800 && i < 0xE000) ? static_cast<uint8_t>(kRule) : info(i);
    char3_[i >> 2] |= static_cast<uint8_t>(v << ((i & 3) * 2));
  }
  plain4_rows_.assign(0x8000 / 64, 0);
  for (unsigned b0 = 0xF0; b0 <= 0xF4; ++b0) {
    for (unsigned b1 = 0x80; b1 < 0xC0; ++b1) {
      if ((b0 == 0xF0 && b1 < 0x90) || (b0 == 0xF4 && b1 >= 0x90)) continue;  // overlong, > U+10FFFF
      for (unsigned b2 = 0x80; b2 < 0xC0; ++b2) {
        const uint8_t b[3] = {static_cast<uint8_t>(b0), static_cast<uint8_t>(b1), static_cast<uint8_t>(b2)};
        bool hit = false;
        const int64_t node = trie_.empty() ? -1 : trie_.walk(b, 3, &hit);
        if (hit || node >= 0) continue;  // some key ends inside or goes on from these bytes
        const uint32_t row = ((b0 & 7u) << 12) | ((b1 & 0x3Fu) << 6) | (b2 & 0x3Fu);
        plain4_rows_[row >> 6] |= uint64_t{1} << (row & 63);
      }
    }
  }
}

// (Inlined into normalize_to: it is called once per word.)
TF_ALWAYS_INLINE size_t SpmNormalizer::plain_run(const uint8_t* s, size_t pos, size_t n) const {
  // Each character is looked at once: a kPlainUnlessContinued one stays pending until the
  // next character shows whether a key continues with it.
  bool pending = false;
  size_t prev = pos;  // where the pending character starts
  while (pos < n) {
    const uint8_t c = s[pos];
    size_t len;
    CharClass cls;
    bool continues;
    if (c < 0x80) {
      // ASCII, nearly all of it in Latin-script text: decided here without a call.
      if (c == ' ') break;
      cls = static_cast<CharClass>(ascii_class_[c]);
      if (cls == kRule) break;
      if (pending && ((ascii_continues_[c >> 6] >> (c & 63)) & 1)) return prev;
      // The ASCII characters after this one that stop nothing are plain, and so is each
      // one before them (its successor continues no key); the last may be pending.
      const size_t end = static_cast<size_t>(ascii_stops_.skip(s + pos + 1, s + n, s) - s);
      prev = end - 1;
      pending = ascii_class_[s[prev]] == kPlainUnlessContinued;
      pos = end;
      continue;
    } else if (c >= 0xE0 && c < 0xF0 && pos + 3 <= n) {
      const uint32_t b1 = s[pos + 1], b2 = s[pos + 2];
      if (((b1 & 0xC0) | ((b2 & 0xC0) >> 2)) != 0xA0) break;  // malformed: the general path
      const uint32_t cp = ((c & 0x0Fu) << 12) | ((b1 & 0x3Fu) << 6) | (b2 & 0x3Fu);
      len = 3;
      const uint8_t v = char_info(char3_, cp);
      if (v <= kPlainUnlessContinued) {
        // It continues no key, so whatever is pending stays plain; and so on while the
        // next characters are 3-byte ones of the same kind (CJK, kana) in a tight loop.
        pending = v == kPlainUnlessContinued;
        prev = pos;
        pos += 3;
        while (pos + 3 <= n && (s[pos] & 0xF0) == 0xE0) {
          const uint32_t c1 = s[pos + 1], c2 = s[pos + 2];
          if (((c1 & 0xC0) | ((c2 & 0xC0) >> 2)) != 0xA0) break;
          const uint8_t w = char_info(char3_, ((s[pos] & 0x0Fu) << 12) | ((c1 & 0x3Fu) << 6) | (c2 & 0x3Fu));
          if (w > kPlainUnlessContinued) break;
          pending = w == kPlainUnlessContinued;
          prev = pos;
          pos += 3;
        }
        continue;
      }
      cls = static_cast<CharClass>(v);
      continues = false;
      if (v == kContinues) {
        cls = bmp_class(cp);
        continues = true;
      }
    } else if (c >= 0xC2 && c <= 0xDF && pos + 1 < n && (s[pos + 1] & 0xC0) == 0x80) {
      const uint32_t cp = ((c & 0x1Fu) << 6) | (s[pos + 1] & 0x3Fu);
      len = 2;
      const uint8_t v = char_info(char2_, cp);
      cls = static_cast<CharClass>(v);
      continues = false;
      if (v == kContinues) {
        cls = bmp_class(cp);
        continues = true;
      }
    } else if (c >= 0xF0 && c <= 0xF4 && pos + 4 <= n) {
      const uint32_t b1 = s[pos + 1], b2 = s[pos + 2], b3 = s[pos + 3];
      if (((b1 & 0xC0) | ((b2 & 0xC0) >> 2) | ((b3 & 0xC0) >> 4)) != 0xA8) break;  // malformed
      const uint32_t row = ((c & 7u) << 12) | ((b1 & 0x3Fu) << 6) | (b2 & 0x3Fu);
      if (!((plain4_rows_[row >> 6] >> (row & 63)) & 1)) break;  // rules, overlong: the general path
      if (pending && continues_byte_[c]) return prev;
      pending = false;
      prev = pos;
      pos += 4;
      continue;
    } else {
      break;  // malformed bytes take the general path
    }
    if (cls == kRule) break;
    if (pending && continues) return prev;  // a key goes on from the pending character
    pending = cls == kPlainUnlessContinued;
    prev = pos;
    pos += len;
  }
  // The character at pos (if any) is not plain: it decides whether the pending one is.
  if (pending && pos < n && may_continue_fast(s + pos, n - pos)) return prev;
  return pos;
}

std::pair<std::string_view, size_t> SpmNormalizer::normalize_prefix(const uint8_t* s, size_t n) const {
  if (user_defined_ != nullptr && !user_defined_->empty()) {
    int32_t id;
    size_t len = user_defined_->longest_prefix(s, n, &id);
    if (len > 0) return {std::string_view(reinterpret_cast<const char*>(s), len), len};
  }
  if (first_byte_hit_[s[0]]) {
    uint32_t value = 0;
    size_t len = trie_.longest_prefix(s, n, &value);
    if (len > 0 && value < replacements_.size() - 1) {  // a value past the strings: no rule
      const char* r = replacements_.data() + value;
      return {std::string_view(r, std::strlen(r)), len};
    }
  }
  size_t len = utf8_char_len(s, n);
  if (len == 0) return {kReplacement, 1};
  return {std::string_view(reinterpret_cast<const char*>(s), len), len};
}

void SpmNormalizer::normalize_identity(const uint8_t* s, size_t n, std::string* out, bool first, bool last) const {
  // No rules and spaces kept: copy runs of well-formed text, escaping spaces and turning
  // each malformed byte into U+FFFD, exactly what the general loop does byte by byte.
  out->reserve(n + n / 4 + 8);
  const std::string_view space = options_.escape_whitespaces ? kSpace : std::string_view(" ");
  if (first && !options_.treat_whitespace_as_suffix && options_.add_dummy_prefix) out->append(space);
  size_t run = 0;
  for (size_t i = 0; i < n;) {
    const uint8_t c = s[i];
    if (c == ' ') {
      out->append(reinterpret_cast<const char*>(s + run), i - run);
      out->append(space);
      run = ++i;
    } else if (c < 0x80) {
      ++i;
    } else if (utf8_three_byte(s + i, n - i) != 0) {
      i += 3;
    } else {
      const size_t len = utf8_char_len(s + i, n - i);
      if (len == 0) {
        out->append(reinterpret_cast<const char*>(s + run), i - run);
        out->append(kReplacement);
        run = ++i;
      } else {
        i += len;
      }
    }
  }
  out->append(reinterpret_cast<const char*>(s + run), n - run);
  if (last && options_.treat_whitespace_as_suffix && options_.add_dummy_prefix) out->append(space);
}

void SpmNormalizer::normalize(std::string_view text, std::string* out, std::vector<uint32_t>* n2o) const {
  out->resize(normalize_to(text, out, n2o));
}

std::string_view SpmNormalizer::normalize_view(std::string_view text, std::string* buffer) const {
  return std::string_view(buffer->data(), normalize_to(text, buffer, nullptr));
}

size_t SpmNormalizer::normalize_to(std::string_view text, std::string* out, std::vector<uint32_t>* n2o, bool first,
                                   bool last) const {
  if (n2o) n2o->clear();
  const uint8_t* s = reinterpret_cast<const uint8_t*>(text.data());
  const size_t n = text.size();
  size_t pos = 0;
  uint32_t consumed = 0;
  if (n == 0) {
    if (n2o) n2o->push_back(0);  // matches sentencepiece: empty in, one offset out
    return 0;
  }
  if (trie_.empty() && !options_.remove_extra_whitespaces && n2o == nullptr) {
    out->clear();
    normalize_identity(s, n, out, first, last);
    return out->size();
  }
  const bool runs = user_defined_ == nullptr || user_defined_->empty();
  // A space no rule applies to here (indentation runs: skip the trie for them).
  // An ASCII character no rule applies to here: it stays as it is.
  auto plain_ascii = [&](size_t at) {
    const uint8_t c = s[at];
    return runs && c < 0x80 &&
           (ascii_class_[c] == kPlain ||
            (ascii_class_[c] == kPlainUnlessContinued && (at + 1 == n || !may_continue_fast(s + at + 1, n - at - 1))));
  };
  // A ' ' no key starts with is plain wherever it stands: runs of them (indentation) are
  // passed a word at a time.
  const bool space_plain = runs && ascii_class_[' '] == kPlain;
  auto skip_spaces = [&](size_t at) {
    constexpr uint64_t kSpaces = 0x2020202020202020ull;
    while (at + 8 <= n) {
      uint64_t w;
      std::memcpy(&w, s + at, 8);
      const uint64_t diff = w ^ kSpaces;
      if (diff != 0) return at + static_cast<size_t>(__builtin_ctzll(diff) / 8);
      at += 8;
    }
    while (at < n && s[at] == ' ') ++at;
    return at;
  };
  if (first && options_.remove_extra_whitespaces) {
    if (space_plain) pos = skip_spaces(pos);
    while (pos < n) {
      if (plain_ascii(pos)) {  // indentation, then most first characters: no trie walk
        if (s[pos] != ' ') break;
        ++pos;
        continue;
      }
      auto p = normalize_prefix(s + pos, n - pos);
      if (p.first != " ") break;
      pos += p.second;
    }
    consumed = static_cast<uint32_t>(pos);
    if (pos == n) {
      if (n2o) n2o->push_back(0);  // as sentencepiece: all-space input aligns like empty input
      return 0;
    }
  }
  OutWriter w(out, (n - pos) * 3 / 2 + 8);
  if (n2o) n2o->reserve((n - pos) * 3 / 2 + 8);
  auto add_space = [&]() {
    if (options_.escape_whitespaces) {
      w.put(kSpace);
      if (n2o) n2o->insert(n2o->end(), 3, consumed);
    } else {
      w.put(' ');
      if (n2o) n2o->push_back(consumed);
    }
  };
  if (first && !options_.treat_whitespace_as_suffix && options_.add_dummy_prefix) add_space();

  // (A part after the first starts after a character whose output has no space.)
  bool prev_space = first && options_.remove_extra_whitespaces;
  while (pos < n) {
    if (runs) {
      // Characters no rule touches are copied as a run.
      const size_t end = plain_run(s, pos, n);
      if (end > pos) {
        w.put(reinterpret_cast<const char*>(s + pos), end - pos);
        if (n2o) {
          for (size_t i = pos; i < end;) {
            const size_t len = utf8_char_len(s + i, end - i);
            n2o->insert(n2o->end(), len, consumed + static_cast<uint32_t>(i - pos));
            i += len;
          }
        }
        consumed += static_cast<uint32_t>(end - pos);
        pos = end;
        prev_space = false;
        if (pos == n) break;
      }
    }
    uint8_t c = s[pos];
    if (c == ' ' && space_plain && options_.remove_extra_whitespaces) {
      // A run of spaces: one ▁ (or ' ') unless one was just put, the rest dropped.
      const size_t end = skip_spaces(pos + 1);
      if (!prev_space) add_space();
      consumed += static_cast<uint32_t>(end - pos);
      pos = end;
      prev_space = true;
      continue;
    }
    std::string_view sp;
    size_t used;
    // Fast path: an ASCII character no rule applies to here (a space mostly: plain_run
    // stops at spaces, and NFKC has rules that start with one).
    if (c < 0x80 && runs &&
        (ascii_class_[c] == kPlain ||
         (ascii_class_[c] == kPlainUnlessContinued && (pos + 1 == n || !may_continue_fast(s + pos + 1, n - pos - 1))))) {
      sp = std::string_view(reinterpret_cast<const char*>(s + pos), 1);
      used = 1;
    } else {
      auto p = normalize_prefix(s + pos, n - pos);
      sp = p.first;
      used = p.second;
    }
    if (prev_space) {
      while (!sp.empty() && sp[0] == ' ') sp.remove_prefix(1);
    }
    if (!sp.empty()) {
      for (char ch : sp) {
        if (ch == ' ' && options_.escape_whitespaces) {
          w.put(kSpace);
          if (n2o) n2o->insert(n2o->end(), 3, consumed);
        } else {
          w.put(ch);
          if (n2o) n2o->push_back(consumed);
        }
      }
      prev_space = sp.back() == ' ';
    }
    consumed += static_cast<uint32_t>(used);
    pos += used;
    if (!options_.remove_extra_whitespaces) prev_space = false;
  }

  if (last && options_.remove_extra_whitespaces) {
    std::string_view space = options_.escape_whitespaces ? kSpace : std::string_view(" ");
    while (w.ends_with(space)) {
      size_t len = w.size() - space.size();
      if (n2o) {
        consumed = (*n2o)[len];
        n2o->resize(len);
      }
      w.truncate(len);
    }
  }
  if (last && options_.treat_whitespace_as_suffix && options_.add_dummy_prefix) add_space();
  if (n2o) n2o->push_back(consumed);
  return w.size();
}

}  // namespace tf::spm
