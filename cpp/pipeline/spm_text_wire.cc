#include "pipeline/spm_text_wire.h"

#include <cstring>
#include <utility>

namespace tf::spm {

namespace {

void put_varint(uint64_t v, std::string* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7F) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

size_t varint_size(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

void put_bytes(char key, std::string_view s, std::string* out) {
  out->push_back(key);
  put_varint(s.size(), out);
  out->append(s);
}

// The size of a piece's message body, to write its length before it without a copy.
size_t piece_size(const SpmTextPiece& p) {
  size_t n = 1 + varint_size(p.piece.size()) + p.piece.size() + 1 + varint_size(p.id) + 1 + varint_size(p.begin) +
             1 + varint_size(p.end);
  if (p.has_surface) n += 1 + varint_size(p.surface.size()) + p.surface.size();
  return n;
}

}  // namespace

void write_spm_text(std::string_view text, const std::vector<SpmTextPiece>& pieces, const float* score,
                    std::string* out) {
  put_bytes(0x0A, text, out);  // field 1, text
  for (const SpmTextPiece& p : pieces) {
    out->push_back(0x12);  // field 2, a piece
    put_varint(piece_size(p), out);
    put_bytes(0x0A, p.piece, out);
    out->push_back(0x10);
    put_varint(p.id, out);
    if (p.has_surface) put_bytes(0x1A, p.surface, out);
    out->push_back(0x20);
    put_varint(p.begin, out);
    out->push_back(0x28);
    put_varint(p.end, out);
  }
  if (score != nullptr) {  // field 3, a float32, little-endian
    out->push_back(0x1D);
    char raw[4];
    std::memcpy(raw, score, 4);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    std::swap(raw[0], raw[3]);
    std::swap(raw[1], raw[2]);
#endif
    out->append(raw, 4);
  }
}

void write_spm_nbest_item(std::string_view message, std::string* out) { put_bytes(0x0A, message, out); }

}  // namespace tf::spm
