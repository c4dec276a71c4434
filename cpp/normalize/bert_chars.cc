// BertCharTable (bert_chars.h).
#include "normalize/bert_chars.h"

#include <stdexcept>

namespace tf::wordpiece {

BertCharTable::BertCharTable(std::string flag_bytes, const std::vector<std::pair<uint32_t, std::vector<uint32_t>>>& mapped,
                             bool nfd)
    : flags_(std::move(flag_bytes)), nfd_(nfd) {
  if (flags_.size() != kLimit) throw std::invalid_argument("BertCharTable: flags must hold 0x110000 bytes");
  for (const auto& [cp, outs] : mapped) {
    if (cp >= kLimit) throw std::invalid_argument("BertCharTable: code point out of range");
    index_[cp] = {static_cast<uint32_t>(out_.size()), static_cast<uint32_t>(outs.size())};
    out_.insert(out_.end(), outs.begin(), outs.end());
  }
  for (uint32_t c = 0; c < 128; ++c) {
    if (flags(c) & kDropped) continue;  // 0: the general path drops it
    if (!(flags(c) & kMapped)) {
      ascii_out_[c] = static_cast<uint8_t>(c);
      continue;
    }
    auto [first, count] = mapping(c);
    ascii_out_[c] = (count == 1 && out_[first] < 128) ? static_cast<uint8_t>(out_[first]) : 0;
  }
}

std::pair<uint32_t, uint32_t> BertCharTable::mapping(uint32_t cp) const {
  auto it = index_.find(cp);
  return it == index_.end() ? std::pair<uint32_t, uint32_t>{0, 0} : it->second;
}

}  // namespace tf::wordpiece
