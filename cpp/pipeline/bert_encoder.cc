// BertEncoder (bert_encoder.h).
#include "pipeline/bert_encoder.h"

#include <tuple>

#include "common/offset_limit.h"
#include "common/unicode/unicode.h"

namespace tf::wordpiece {

struct BertEncoder::Scratch {
  std::vector<uint32_t> norm;  // normalized code points of the stretch
  std::vector<uint32_t> src;   // each one's source character (of the whole text)
  std::string word;            // one word in UTF-8
  std::vector<uint32_t> char_of;  // byte of `word` -> its character
  std::vector<SubwordSpan> pieces;
};

BertEncoder::BertEncoder(std::shared_ptr<const WordModel> model, std::shared_ptr<const BertCharTable> table,
                         std::vector<std::pair<std::string, uint32_t>> added,
                         std::shared_ptr<const WhitespaceClasses> whitespace)
    : model_(std::move(model)), table_(std::move(table)), added_(std::move(added)), whitespace_(std::move(whitespace)) {}

namespace {

uint32_t count_chars(const uint8_t* p, size_t n) {
  uint32_t k = 0;
  for (size_t i = 0; i < n; ++i) k += (p[i] & 0xC0) != 0x80;
  return k;
}

void put_utf8(std::string& s, uint32_t cp) {
  if (cp < 0x80) {
    s.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    s.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    s.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    s.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    s.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    s.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    s.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    s.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    s.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    s.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

}  // namespace

void BertEncoder::encode(std::string_view text, BertResult& out) const {
  thread_local Scratch s;
  out.clear();
  const auto* p = reinterpret_cast<const uint8_t*>(text.data());
  const size_t n = text.size();
  if (n > hf_text_limit()) {  // character offsets are 32-bit
    out.error = too_long_message("a text of", n);
    return;
  }
  size_t pos = 0;
  uint32_t chars = 0, word = 0;
  for (;;) {
    SpecialMatcher::Match m;
    if (!added_.empty() && pos < n) m = added_.find(p, n, pos);
    const size_t stop = m.found ? m.pos : n;
    if (stop > pos) {
      if (!stretch(p + pos, stop - pos, chars, &word, out, s)) {
        std::string error = std::move(out.error);
        out.clear();
        out.fallback = error.empty();
        out.error = std::move(error);
        return;
      }
      chars += count_chars(p + pos, stop - pos);
    }
    if (!m.found) break;
    if (word >= hf_text_limit()) {
      out.clear();
      out.error = "a text of more than " + std::to_string(word) + " words is longer than 32-bit word ids allow";
      return;
    }
    const uint32_t k = count_chars(p + m.pos, m.len);
    out.ids.push_back(static_cast<int32_t>(m.id));
    out.starts.push_back(chars);
    out.ends.push_back(chars + k);
    out.words.push_back(word++);
    chars += k;
    pos = m.pos + m.len;
  }
}

bool BertEncoder::stretch(const uint8_t* p, size_t n, uint32_t char_base, uint32_t* word, BertResult& out,
                          Scratch& s) const {
  const BertCharTable& t = *table_;
  s.norm.clear();
  s.src.clear();
  const uint8_t* const e = p + n;
  uint32_t ci = char_base;
  const bool nfd = t.nfd();
  while (p < e) {
    if (*p < 0x80) {
      const uint8_t o = t.ascii_out(*p);
      if (o != 0) {  // ASCII to one ASCII character
        s.norm.push_back(o);
        s.src.push_back(ci);
        ++p;
        ++ci;
        continue;
      }
    }
    int len = 1;
    const uint32_t cp = decode_utf8(p, e, &len);
    p += len;
    const uint8_t f = t.flags(cp);
    if (f & kDropped) {
      ++ci;
      continue;
    }
    uint32_t first = 0, count = 1;
    if (f & kMapped) std::tie(first, count) = t.mapping(cp);
    if (nfd && (f & kReorder)) return false;
    if (f & kCjk) {
      for (uint32_t c : {0x20u, cp, 0x20u}) {
        s.norm.push_back(c);
        s.src.push_back(ci);
      }
    } else if (f & kMapped) {
      for (uint32_t k = 0; k < count; ++k) {
        s.norm.push_back(t.out()[first + k]);
        s.src.push_back(ci);
      }
    } else {
      s.norm.push_back(cp);
      s.src.push_back(ci);
    }
    ++ci;
  }
  const size_t m = s.norm.size();
  if (out.ids.empty()) {  // a first guess of the token count (later stretches grow as usual)
    out.ids.reserve(m / 3);
    out.starts.reserve(m / 3);
    out.ends.reserve(m / 3);
    out.words.reserve(m / 3);
  }
  size_t i = 0;
  while (i < m) {
    size_t j = i + 1;
    if (whitespace_ != nullptr) {  // Whitespace: a run of one kind
      const int k = whitespace_->kind(s.norm[i]);
      if (k == WhitespaceClasses::kBlank) {
        ++i;
        continue;
      }
      while (j < m && whitespace_->kind(s.norm[j]) == k) ++j;
    } else {  // BertPreTokenizer: a run between spaces and punctuation, or one punctuation mark
      const uint8_t f = t.flags(s.norm[i]);
      if (f & kSpace) {
        ++i;
        continue;
      }
      if (!(f & kPunct)) {
        while (j < m && !(t.flags(s.norm[j]) & (kSpace | kPunct))) ++j;
      }
    }
    if (*word >= hf_text_limit()) {  // word ids are 32-bit
      out.error = "a text of more than " + std::to_string(*word) + " words is longer than 32-bit word ids allow";
      return false;
    }
    if (!word_pieces(i, j, (*word)++, out, s)) return false;
    i = j;
  }
  return true;
}

bool BertEncoder::word_pieces(size_t a, size_t b, uint32_t word, BertResult& out, Scratch& s) const {
  s.word.clear();
  bool ascii = true;
  for (size_t k = a; k < b; ++k) {
    const uint32_t c = s.norm[k];
    if (c >= 0x80) {
      ascii = false;
      break;
    }
    s.word.push_back(static_cast<char>(c));
  }
  if (!ascii) {  // bytes -> characters through char_of
    s.word.clear();
    s.char_of.clear();
    for (size_t k = a; k < b; ++k) {
      const size_t before = s.word.size();
      put_utf8(s.word, s.norm[k]);
      s.char_of.insert(s.char_of.end(), s.word.size() - before, static_cast<uint32_t>(k - a));
    }
    s.char_of.push_back(static_cast<uint32_t>(b - a));
  }
  if (s.word.size() > hf_text_limit()) {  // WordPiece's spans are 32-bit byte offsets
    out.error = too_long_message("a word of the normalized text has", s.word.size());
    return false;
  }
  s.pieces.clear();
  model_->tokenize(s.word, b - a, s.pieces);
  for (const SubwordSpan& pc : s.pieces) {
    const uint32_t c0 = ascii ? pc.start : s.char_of[pc.start];
    const uint32_t c1 = ascii ? pc.end : s.char_of[pc.end];  // one past the last character
    out.ids.push_back(pc.id);
    out.starts.push_back(s.src[a + c0]);
    out.ends.push_back(s.src[a + c1 - 1] + 1);
    out.words.push_back(word);
  }
  return true;
}

}  // namespace tf::wordpiece
