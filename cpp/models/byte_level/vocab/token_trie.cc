#include "models/byte_level/vocab/token_trie.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>

namespace tf::byte_level {

bool TokenTrie::build(const TokenTable& vocab) {
  const uint32_t bound = vocab.id_bound();
  if (bound >= kMaxIds) return false;
  // Sorted here by id with the first 8 bytes compared as one big-endian word (most
  // comparisons end there), so PieceTrie need not sort the strings themselves.
  std::vector<std::pair<uint64_t, uint32_t>> order;
  order.reserve(vocab.size());
  for (uint32_t id = 0; id < bound; ++id) {
    if (!vocab.has(id)) continue;
    std::string_view b = vocab.bytes(id);
    uint64_t head = 0;
    for (size_t k = 0; k < 8; ++k) head = (head << 8) | (k < b.size() ? static_cast<uint8_t>(b[k]) : 0);
    order.emplace_back(head, id);
  }
  std::sort(order.begin(), order.end(), [&](const auto& a, const auto& b) {
    if (a.first != b.first) return a.first < b.first;
    return vocab.bytes(a.second) < vocab.bytes(b.second);
  });
  std::vector<std::pair<std::string, int32_t>> keys;
  keys.reserve(order.size());
  for (auto& [head, id] : order) keys.emplace_back(std::string(vocab.bytes(id)), static_cast<int32_t>(id));
  PieceTrie trie;
  trie.build(std::move(keys));
  int32_t top = 0;
  for (size_t i = 0; i < trie.units(); ++i) top = std::max(top, trie.base(static_cast<int32_t>(i)));
  const size_t slots = std::max(trie.units(), static_cast<size_t>(top) + 257);
  links_.assign(slots, Link{0, -1});
  values_.assign(slots, -1);
  for (size_t i = 0; i < trie.units(); ++i) {
    // A free slot's check is -1 and so is the root's here (-2 in PieceTrie): no slot's
    // check is Walk::kDead.
    links_[i] = Link{trie.base(static_cast<int32_t>(i)), std::max(trie.check(static_cast<int32_t>(i)), -1)};
    values_[i] = trie.value(static_cast<int32_t>(i));
  }
  nodes_.assign(bound, -1);
  lengths_.assign(bound, 0);
  shorter_.assign(bound, kNoToken);
  for (uint32_t id = 0; id < bound; ++id) {
    if (!vocab.has(id)) continue;
    std::string_view b = vocab.bytes(id);
    int32_t node = 0;
    for (size_t k = 0; k < b.size(); ++k) {
      if (k > 0 && trie.value(node) >= 0) shorter_[id] = static_cast<uint32_t>(trie.value(node));
      node = trie.child(node, static_cast<uint8_t>(b[k]));
    }
    nodes_[id] = node;
    lengths_[id] = static_cast<uint32_t>(b.size());
  }
  for (int b = 0; b < 256; ++b) byte_node_[b] = trie.child(0, static_cast<uint8_t>(b));
  byte_pairs_.assign(65536, BytePair{kNoToken, 0, Walk{0, kDead}});
  for (int b = 0; b < 256; ++b) {
    if (byte_node_[b] < 0) continue;
    for (int c = 0; c < 256; ++c) {
      int32_t s = trie.child(byte_node_[b], static_cast<uint8_t>(c));
      if (s < 0) continue;
      byte_pairs_[b | (c << 8)] = BytePair{trie.value(s) >= 0 ? static_cast<uint32_t>(trie.value(s)) : kNoToken, 0, Walk{trie.base(s), s}};
    }
  }
  return true;
}

}  // namespace tf::byte_level
