#include "common/offset_limit.h"

#include <atomic>

namespace tf {

namespace {
std::atomic<size_t> g_limit{kMaxOffsetBytes};
}  // namespace

size_t hf_text_limit() { return g_limit.load(std::memory_order_relaxed); }

size_t set_hf_text_limit(size_t bytes) {
  if (bytes == 0 || bytes > kMaxOffsetBytes) bytes = kMaxOffsetBytes;
  return g_limit.exchange(bytes, std::memory_order_relaxed);
}

std::string too_long_message(const char* what, size_t bytes) {
  const size_t limit = hf_text_limit();
  std::string m = std::string(what) + " " + std::to_string(bytes) + " bytes, past the " + std::to_string(limit) + " bytes ";
  m += limit == kMaxOffsetBytes ? "(4 GiB) that 32-bit offsets allow" : "allowed (a test limit)";
  return m + "; split the text";
}

}  // namespace tf
