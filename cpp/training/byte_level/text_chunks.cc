// UTF-8 validation and repair for the training input (see text_chunks.h).
#include "training/byte_level/text_chunks.h"

namespace tf::train {

namespace {

// Length of the valid UTF-8 sequence at d[i], or 0 if it is ill-formed; *subpart gets the
// length of its maximal valid prefix (at least 1), which is what one U+FFFD replaces.
size_t valid_sequence(const uint8_t* d, size_t n, size_t i, size_t* subpart) {
  uint8_t b = d[i];
  *subpart = 1;
  if (b < 0x80) return 1;
  size_t need;
  uint8_t lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (b >= 0xC2 && b <= 0xDF) {
    need = 2;
  } else if (b >= 0xE0 && b <= 0xEF) {
    need = 3;
    if (b == 0xE0) lo = 0xA0;
    if (b == 0xED) hi = 0x9F;
  } else if (b >= 0xF0 && b <= 0xF4) {
    need = 4;
    if (b == 0xF0) lo = 0x90;
    if (b == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  for (size_t k = 1; k < need; ++k) {
    if (i + k >= n) return 0;
    uint8_t c = d[i + k];
    uint8_t l = k == 1 ? lo : 0x80, h = k == 1 ? hi : 0xBF;
    if (c < l || c > h) return 0;
    *subpart = k + 1;
  }
  return need;
}

}  // namespace

size_t utf8_first_invalid(const uint8_t* d, size_t n) {
  size_t i = 0, sub;
  while (i < n) {
    if (d[i] < 0x80) {
      ++i;
      continue;
    }
    size_t len = valid_sequence(d, n, i, &sub);
    if (len == 0) return i;
    i += len;
  }
  return n;
}

void utf8_replace_invalid(const uint8_t* d, size_t n, std::string* out) {
  static const char kReplacement[] = "\xEF\xBF\xBD";
  out->reserve(out->size() + n + 16);
  size_t i = 0, sub;
  while (i < n) {
    size_t len = d[i] < 0x80 ? 1 : valid_sequence(d, n, i, &sub);
    if (len == 0) {
      out->append(kReplacement, 3);
      i += sub;
    } else {
      out->append(reinterpret_cast<const char*>(d + i), len);
      i += len;
    }
  }
}

}  // namespace tf::train
