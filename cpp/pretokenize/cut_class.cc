#include "pretokenize/cut_class.h"

#include <algorithm>

#include "common/unicode/unicode.h"

namespace tf {

CutClass::CutClass(std::vector<Range> ranges, bool runs) : bmp_(0x10000 / 64, 0), runs_(runs) {
  for (const Range& r : ranges) {
    const uint32_t last = std::min<uint32_t>(r.second, 0x10FFFF);
    for (uint32_t cp = r.first; cp <= last && cp < 0x10000; ++cp) bmp_[cp >> 6] |= uint64_t{1} << (cp & 63);
    if (last >= 0x10000) astral_.emplace_back(std::max<uint32_t>(r.first, 0x10000), last);
  }
  ascii_[0] = bmp_[0];
  ascii_[1] = bmp_[1];
  std::sort(astral_.begin(), astral_.end());
}

bool CutClass::contains(uint32_t cp) const {
  if (cp < 0x10000) return (bmp_[cp >> 6] >> (cp & 63)) & 1;
  auto it = std::upper_bound(astral_.begin(), astral_.end(), Range{cp, 0xFFFFFFFFu});
  return it != astral_.begin() && std::prev(it)->second >= cp;
}

const uint8_t* CutClass::stretch_end(const uint8_t* p, const uint8_t* end) const {
  int len;
  const bool inside = contains(decode_utf8(p, end, &len));
  p += len;
  if (inside && !runs_) return p;
  while (p < end) {
    if (*p < 0x80) {  // the common case: an ASCII byte, one bit test
      if (((ascii_[*p >> 6] >> (*p & 63)) & 1) != inside) return p;
      ++p;
      continue;
    }
    if (contains(decode_utf8(p, end, &len)) != inside) return p;
    p += len;
  }
  return p;
}

}  // namespace tf
