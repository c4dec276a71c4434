#include "models/shared_vocab.h"

#include <algorithm>
#include <mutex>
#include <vector>

namespace tf {

std::shared_ptr<const SharedVocab> share_vocab(TokenTable table) {
  auto fresh = std::make_shared<SharedVocab>(std::move(table));
  // Never destroyed: models may outlive static destruction at interpreter exit.
  static std::mutex* mu = new std::mutex;
  static auto* live = new std::vector<std::weak_ptr<const SharedVocab>>;
  std::lock_guard<std::mutex> lock(*mu);
  live->erase(std::remove_if(live->begin(), live->end(), [](const auto& w) { return w.expired(); }), live->end());
  for (const auto& w : *live) {
    std::shared_ptr<const SharedVocab> v = w.lock();
    if (v != nullptr && v->digest == fresh->digest && v->table.same_tokens(fresh->table)) return v;
  }
  // Built under the lock: a second model over the same new vocabulary waits for it
  // rather than building its own.
  // Two-byte strings, most of the lookups there, from a direct table.
  const TokenTable& t = fresh->table;
  std::vector<uint32_t> pairs(65536);
  for (uint32_t b = 0; b < 65536; ++b) {
    const uint8_t two[2] = {static_cast<uint8_t>(b & 255), static_cast<uint8_t>(b >> 8)};
    pairs[b] = t.find(two, 2);
  }
  auto lookup = [&](const uint8_t* q, size_t n) { return n == 2 ? pairs[q[0] | (q[1] << 8)] : t.find(q, n); };
  fresh->joins.build(t, lookup);
  fresh->chars.build(lookup);
  live->push_back(fresh);
  return fresh;
}

}  // namespace tf
