#include "common/offset_limit.h"

namespace tf {

std::atomic<size_t> g_hf_text_limit{kMaxOffsetBytes};

size_t set_hf_text_limit(size_t bytes) {
  if (bytes == 0 || bytes > kMaxOffsetBytes) bytes = kMaxOffsetBytes;
  return g_hf_text_limit.exchange(bytes, std::memory_order_relaxed);
}

std::string too_long_message(const char* what, size_t bytes) {
  const size_t limit = hf_text_limit();
  std::string m = std::string(what) + " " + std::to_string(bytes) + " bytes, past the " + std::to_string(limit) + " bytes ";
  m += limit == kMaxOffsetBytes ? "(4 GiB) that 32-bit offsets allow" : "allowed (a test limit)";
  return m + "; split the text";
}

}  // namespace tf
