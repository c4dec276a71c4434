#include "models/sentencepiece/spm_vocab_wire.h"

#include <cstdint>
#include <cstring>

#include "normalize/spm_normalizer.h"

namespace tf::spm {

namespace {

// A protobuf varint at s[*pos, n) (at most 10 bytes), or false.
bool varint(const uint8_t* s, size_t n, size_t* pos, uint64_t* out) {
  uint64_t v = 0;
  for (int shift = 0; shift < 70 && *pos < n; shift += 7) {
    const uint8_t b = s[(*pos)++];
    v |= static_cast<uint64_t>(b & 0x7F) << shift;
    if (b < 0x80) {
      *out = v;
      return true;
    }
  }
  return false;
}

bool valid_utf8(const uint8_t* s, size_t n) {
  for (size_t i = 0; i < n;) {
    if (s[i] < 0x80) {
      ++i;
      continue;
    }
    const size_t len = utf8_char_len(s + i, n - i);
    if (len == 0) return false;
    i += len;
  }
  return true;
}

bool read_piece(const uint8_t* s, size_t n, SpmPieceSpec* piece) {
  size_t pos = 0;
  while (pos < n) {
    uint64_t key, v;
    if (!varint(s, n, &pos, &key)) return false;
    switch (key) {
      case (1 << 3) | 2:  // piece: string
        if (!varint(s, n, &pos, &v) || v > n - pos || !valid_utf8(s + pos, v)) return false;
        piece->text.assign(reinterpret_cast<const char*>(s + pos), v);
        pos += v;
        break;
      case (2 << 3) | 5:  // score: float
        if (n - pos < 4) return false;
        std::memcpy(&piece->score, s + pos, 4);  // little-endian, as on every supported host
        pos += 4;
        break;
      case (3 << 3) | 0: {  // type: enum, as int32
        if (!varint(s, n, &pos, &v)) return false;
        const int64_t t = static_cast<int32_t>(static_cast<uint32_t>(v));
        piece->type = static_cast<uint8_t>(t < 0 || t > 255 ? 0 : t);
        break;
      }
      default:
        return false;
    }
  }
  return true;
}

}  // namespace

bool read_model_pieces(std::string_view data, std::vector<SpmPieceSpec>* pieces, std::string* rest) {
  const uint8_t* s = reinterpret_cast<const uint8_t*>(data.data());
  const size_t n = data.size();
  pieces->clear();
  rest->clear();
  size_t pos = 0;
  while (pos < n) {
    const size_t start = pos;
    uint64_t key, v;
    if (!varint(s, n, &pos, &key)) return false;
    const uint64_t field = key >> 3;
    const unsigned wire = key & 7;
    if (field == 0) return false;
    switch (wire) {
      case 0:
        if (!varint(s, n, &pos, &v)) return false;
        break;
      case 1:
        if (n - pos < 8) return false;
        pos += 8;
        break;
      case 2:
        if (!varint(s, n, &pos, &v) || v > n - pos) return false;
        if (field == 1) {
          pieces->emplace_back();
          if (!read_piece(s + pos, v, &pieces->back())) return false;
          pos += v;
          continue;
        }
        pos += v;
        break;
      case 5:
        if (n - pos < 4) return false;
        pos += 4;
        break;
      default:
        return false;
    }
    if (field == 1) return false;  // pieces with the wrong wire type: the full parser's error
    rest->append(data.substr(start, pos - start));
  }
  return true;
}

}  // namespace tf::spm
