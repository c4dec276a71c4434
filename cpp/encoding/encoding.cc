#include "encoding/encoding.h"

#include <algorithm>

namespace tf {

namespace {

// Sinks receive the ids of each piece: one keeps them, the other only counts.
struct CollectSink {
  std::vector<uint32_t>* out;
  PieceCache* cache;
  bool piece(const ByteLevelBpe& m, const uint8_t* p, size_t n) { return m.encode_piece(p, n, out, cache); }
  void special(uint32_t id) { out->push_back(id); }
};

// Counts without keeping the ids.
struct CountSink {
  PieceCache* cache;
  size_t n = 0;
  std::vector<uint32_t> scratch;
  bool piece(const ByteLevelBpe& m, const uint8_t* p, size_t len) {
    size_t c = m.count_piece(p, len, &scratch, cache);
    n += c;
    return c > 0;
  }
  void special(uint32_t) { ++n; }
  size_t total() const { return n; }
};

std::string unencodable(const uint8_t* p, size_t n) {
  static const char* hex = "0123456789abcdef";
  std::string s = "cannot encode piece of ";
  s += std::to_string(n);
  s += " bytes: it holds a byte that is not a token (";
  for (size_t i = 0; i < n && i < 16; ++i) {
    s += "\\x";
    s += hex[p[i] >> 4];
    s += hex[p[i] & 15];
  }
  s += n > 16 ? "...)" : ")";
  return s;
}

}  // namespace

bool Encoding::build(std::vector<std::pair<std::string, uint32_t>> ranks,
                     std::vector<std::pair<std::string, uint32_t>> specials, int pattern, std::string* error) {
  if (!model_.build(std::move(ranks), error)) return false;
  if (!specials_.build(specials, error)) {
    *error = "special tokens: " + *error;
    return false;
  }
  all_specials_ = SpecialMatcher(std::move(specials));
  scanner_ = pattern < 0 ? nullptr : scanner_for(static_cast<SplitPattern>(pattern));
  return true;
}

template <typename Sink>
bool Encoding::encode_segment(const uint8_t* p, const uint8_t* end, Sink& sink, std::string* error) const {
  while (p < end) {
    const uint8_t* q = scanner_(p, end);
    if (!sink.piece(model_, p, q - p)) {
      *error = unencodable(p, q - p);
      return false;
    }
    p = q;
  }
  return true;
}

template <typename Sink>
bool Encoding::encode_with_specials(std::string_view text, const SpecialMatcher& allowed, Sink& sink,
                                    std::string* error) const {
  const uint8_t* s = reinterpret_cast<const uint8_t*>(text.data());
  size_t n = text.size(), start = 0;
  while (true) {
    SpecialMatcher::Match m = allowed.find(s, n, start);
    size_t stop = m.found ? m.pos : n;
    if (!encode_segment(s + start, s + stop, sink, error)) return false;
    if (!m.found) return true;
    sink.special(m.id);
    start = m.pos + m.len;
  }
}

bool Encoding::encode_ordinary(std::string_view text, std::vector<uint32_t>* out, std::string* error) const {
  CollectSink sink{out, &model_.cache()};
  const uint8_t* s = reinterpret_cast<const uint8_t*>(text.data());
  return encode_segment(s, s + text.size(), sink, error);
}

bool Encoding::encode(std::string_view text, const SpecialMatcher& allowed, std::vector<uint32_t>* out,
                      std::string* error) const {
  CollectSink sink{out, &model_.cache()};
  return encode_with_specials(text, allowed, sink, error);
}

bool Encoding::count(std::string_view text, const SpecialMatcher& allowed, size_t* n, std::string* error) const {
  CountSink sink{&model_.cache()};
  bool ok = encode_with_specials(text, allowed, sink, error);
  *n = sink.total();
  return ok;
}

bool Encoding::encode_pieces(const std::vector<std::string_view>& pieces, std::vector<uint32_t>* out,
                             std::string* error) const {
  for (std::string_view piece : pieces) {
    if (!encode_single_piece(piece, out, error)) return false;
  }
  return true;
}

bool Encoding::encode_single_piece(std::string_view piece, std::vector<uint32_t>* out, std::string* error) const {
  const uint8_t* p = reinterpret_cast<const uint8_t*>(piece.data());
  if (piece.empty()) return true;
  if (!model_.encode_piece(p, piece.size(), out)) {
    *error = unencodable(p, piece.size());
    return false;
  }
  return true;
}

bool Encoding::token_bytes(uint32_t id, std::string_view* bytes) const {
  if (model_.vocab().has(id)) {
    *bytes = model_.vocab().bytes(id);
    return true;
  }
  if (specials_.has(id)) {
    *bytes = specials_.bytes(id);
    return true;
  }
  return false;
}

long Encoding::decode(const uint32_t* ids, size_t n, std::string* out) const {
  for (size_t i = 0; i < n; ++i) {
    std::string_view b;
    if (!token_bytes(ids[i], &b)) return static_cast<long>(i);
    out->append(b.data(), b.size());
  }
  return -1;
}

uint32_t Encoding::max_token_value() const {
  uint32_t m = model_.vocab().id_bound();
  m = std::max(m, specials_.id_bound());
  return m == 0 ? 0 : m - 1;
}

}  // namespace tf
