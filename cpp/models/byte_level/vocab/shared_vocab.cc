#include "models/byte_level/vocab/shared_vocab.h"

#include <algorithm>
#include <mutex>
#include <vector>

namespace tf::byte_level {

namespace {

// Whether pieces holding a byte >= 0x80 are merged whole: when most tokens holding such
// bytes span two or more characters (o200k: 52k of 71k, Llama 3: 18k of 30k; cl100k: 1.2k
// of 5k), see ByteLevelBpe::encode_merged.
bool merges_wide_pieces_whole(const TokenTable& t) {
  size_t wide = 0, several = 0;
  for (uint32_t id = 0; id < t.id_bound(); ++id) {
    if (!t.has(id)) continue;
    size_t high = 0, leads = 0;
    for (char c : t.bytes(id)) {
      high += static_cast<uint8_t>(c) >= 0x80;
      leads += static_cast<uint8_t>(c) >= 0xC0;
    }
    wide += high != 0;
    several += leads >= 2;
  }
  return several * 2 >= wide && wide != 0;
}

}  // namespace

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
  const TokenTable& t = fresh->table;
  std::vector<uint32_t>& pairs = fresh->pairs;
  pairs.resize(65536);
  for (uint32_t b = 0; b < 65536; ++b) {
    const uint8_t two[2] = {static_cast<uint8_t>(b & 255), static_cast<uint8_t>(b >> 8)};
    pairs[b] = t.find(two, 2);
  }
  // Two-byte strings, most of the lookups of the builds, from the direct table.
  auto lookup = [&](const uint8_t* q, size_t n) { return n == 2 ? pairs[q[0] | (q[1] << 8)] : t.find(q, n); };
  fresh->joins.build(t, lookup);
  fresh->chars.build(lookup);
  fresh->whole_wide = merges_wide_pieces_whole(t);
  live->push_back(fresh);
  return fresh;
}

}  // namespace tf::byte_level
