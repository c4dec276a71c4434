#include "models/byte_level/merge/backtrack_merge.h"

#include <algorithm>
#include <cstring>
#include <string_view>
#include <utility>

namespace tf::byte_level {

void BacktrackMerge::Joins::init(size_t count) {
  size_t size = 16;
  while (size < count * 2) size *= 2;
  entries_.assign(size, Entry{});
  mask_ = size - 1;
  filter_bits_ = 10;
  while (filter_bits_ < 22 && (size_t{1} << filter_bits_) < count * 16) ++filter_bits_;
  filter_.assign((size_t{1} << filter_bits_) / 64, 0);
}

void BacktrackMerge::Joins::insert(uint32_t x, uint32_t y, uint32_t c) {
  uint64_t key = (uint64_t{x} << 32) | y;
  uint64_t f = filter_bit(key);
  filter_[f >> 6] |= uint64_t{1} << (f & 63);
  size_t i = slot(key);
  while (entries_[i].token != kNoToken && entries_[i].key != key) i = (i + 1) & mask_;
  entries_[i] = Entry{key, c};
}

bool BacktrackMerge::build(const TokenTable& vocab, const TokenTrie& trie) {
  if (vocab.max_token_len() > kMaxTokenLen) return false;
  vocab_ = &vocab;
  trie_ = &trie;
  const uint32_t bound = vocab.id_bound();
  tokens_.assign(bound, Token{});
  // Each token's prefixes that are tokens, where the rest is a token too, give the joins.
  std::vector<std::pair<uint64_t, uint32_t>> joins;
  for (uint32_t id = 0; id < bound; ++id) {
    if (!vocab.has(id)) continue;
    std::string_view b = vocab.bytes(id);
    Token& t = tokens_[id];
    t.shorter = trie.shorter(id);
    t.node = trie.node_of(id);
    t.len = static_cast<uint32_t>(b.size());
    std::memcpy(&t.head, b.data(), std::min<size_t>(8, b.size()));
    const uint8_t* q = reinterpret_cast<const uint8_t*>(b.data());
    for (uint32_t a = t.shorter; a != kNoToken; a = trie.shorter(a)) {
      size_t k = trie.length(a);
      uint32_t rest = vocab.find(q + k, b.size() - k);
      if (rest != kNoToken) joins.emplace_back((uint64_t{a} << 32) | rest, id);
    }
  }
  // While finding the splits every join is in the hash (the checks visit tokens in id order,
  // all over the trie, where one probe beats a walk of misses); afterwards join() walks the
  // trie for right parts of up to kWalkMax bytes and only longer ones are kept.
  joins_.init(joins.size());
  for (auto& [key, c] : joins) joins_.insert(static_cast<uint32_t>(key >> 32), static_cast<uint32_t>(key), c);
  all_joins_ = true;

  // In rank order, with every lower token classified: merging a monotone t's bytes does
  // all merges of lower rank first, which leave [a, b] (then joined into t) iff a + b = t,
  // a and b rank lower, and they are compatible when only ranks below t count; the border
  // walk is exact for monotone a and b, and t is monotone iff such a pair exists.  Any
  // other token is tangled or an orphan, as merging its bytes tells.  The joins above list
  // t's candidates, grouped by t in id order.
  size_t j = 0;
  std::vector<uint32_t> parts;
  for (uint32_t id = 0; id < bound; ++id) {
    if (!vocab.has(id) || tokens_[id].len < 2) continue;
    while (j < joins.size() && joins[j].second < id) ++j;
    bool found = false;
    for (; j < joins.size() && joins[j].second == id; ++j) {
      uint32_t a = static_cast<uint32_t>(joins[j].first >> 32), b = static_cast<uint32_t>(joins[j].first);
      if (!found && a < id && b < id && tokens_[a].kind == kMonotone && tokens_[b].kind == kMonotone &&
          compatible(a, b, id)) {
        tokens_[id].left = a;
        tokens_[id].right = b;
        found = true;
      }
    }
    if (found) continue;
    if (tokens_[id].len > kMaxOddLen) return false;
    std::string_view b = vocab.bytes(id);
    merge_bytes(reinterpret_cast<const uint8_t*>(b.data()), b.size(), &parts);
    tokens_[id].kind = parts.size() == 1 ? kTangled : kOrphan;
  }
  // The search never tries an orphan: each token's next-shorter candidate skips them (and
  // encode() passes over one the trie gives as the longest).
  for (uint32_t id = 0; id < bound; ++id) {
    if (!vocab.has(id)) continue;
    uint32_t s = tokens_[id].shorter;
    while (s != kNoToken && tokens_[s].kind == kOrphan) s = trie.shorter(s);
    tokens_[id].shorter = s;
  }
  size_t long_joins = 0;
  for (auto& [key, c] : joins) long_joins += tokens_[static_cast<uint32_t>(key)].len > kWalkMax;
  joins_.init(long_joins);
  for (auto& [key, c] : joins) {
    uint32_t y = static_cast<uint32_t>(key);
    if (tokens_[y].len > kWalkMax) joins_.insert(static_cast<uint32_t>(key >> 32), y, c);
  }
  all_joins_ = false;
  return true;
}

void BacktrackMerge::merge_bytes(const uint8_t* p, size_t n, std::vector<uint32_t>* parts) const {
  // Part starts, and the rank of each part joined with the next (kNoToken: none); the
  // lowest rank goes first, the leftmost on ties, as in tiktoken.
  thread_local std::vector<uint32_t> start, rank;
  start.resize(n + 1);
  rank.resize(n + 1);
  for (size_t i = 0; i <= n; ++i) start[i] = static_cast<uint32_t>(i);
  size_t m = n;  // parts
  auto pair_rank = [&](size_t i) { return i + 1 < m ? vocab_->find(p + start[i], start[i + 2] - start[i]) : kNoToken; };
  for (size_t i = 0; i < m; ++i) rank[i] = pair_rank(i);
  while (m > 1) {
    size_t at = 0;
    for (size_t i = 1; i + 1 < m; ++i)
      if (rank[i] < rank[at]) at = i;
    if (rank[at] == kNoToken) break;
    start.erase(start.begin() + static_cast<std::ptrdiff_t>(at) + 1);
    rank.erase(rank.begin() + static_cast<std::ptrdiff_t>(at) + 1);
    --m;
    rank[at] = pair_rank(at);
    if (at > 0) rank[at - 1] = pair_rank(at - 1);
  }
  parts->clear();
  for (size_t i = 0; i < m; ++i) parts->push_back(vocab_->find(p + start[i], start[i + 1] - start[i]));
}

// A short right part is joined by walking the trie from the left part's node (cache-warm:
// these are the units the text keeps using); a long one through the hash of id pairs.
uint32_t BacktrackMerge::join(uint32_t x, const Token& tx, uint32_t y, const Token& ty) const {
  if (ty.len > kWalkMax || all_joins_) return joins_.find(x, y);
  uint8_t bytes[8];
  std::memcpy(bytes, &ty.head, 8);
  int32_t s = trie_->extend(tx.node, bytes, ty.len);
  return s < 0 ? kNoToken : trie_->token(s);
}

// Not inlined on purpose: the caller keeps the thread-local's address in a register
// instead of looking it up (__tls_get_addr in a shared library) on every pair.
__attribute__((noinline)) BacktrackMerge::Memo& BacktrackMerge::thread_memo(uint64_t owner) {
  thread_local Memo memo;
  if (memo.owner != owner) {
    memo.pairs.assign(size_t{1} << kMemoBits, 0);
    memo.fits.assign(size_t{1} << kMemoBits, Memo::Fit{});
    memo.owner = owner;
  }
  return memo;
}

bool BacktrackMerge::compatible_memo(Memo& memo, uint32_t left, uint32_t right) const {
  uint64_t key = (uint64_t{left} << 32) | (uint64_t{right} << 2) | 1;
  uint64_t& slot = memo.pairs[(((uint64_t{left} << 24) ^ right) * 0x9E3779B97F4A7C15ull) >> (64 - kMemoBits)];
  if ((slot | 2) == (key | 2)) return (slot >> 1) & 1;
  bool ok = compatible(left, right);
  slot = key | (uint64_t{ok} << 1);
  return ok;
}

uint32_t BacktrackMerge::first_fit(Memo& memo, uint32_t prev, uint32_t t) const {
  uint64_t key = (uint64_t{prev} << 32) | t;
  Memo::Fit& slot = memo.fits[(key * 0xD6E8FEB86659FD93ull) >> (64 - kMemoBits)];
  if (slot.key == key) return slot.fit;
  uint32_t f = t;
  while (f != kNoToken && (tokens_[f].kind == kOrphan || !compatible_memo(memo, prev, f))) f = tokens_[f].shorter;
  slot = Memo::Fit{key, f};
  return f;
}

// Merging left + right runs each side's merge tree in rank order (a monotone tree's
// ranks grow towards the root) until a pair across the border is merged first.  Walk the
// border's states backwards from (left, right), undoing the later of the two sides' last
// merges (the right one on equal ranks: among equal ranks the leftmost goes first).  In
// state (x, y) the pair x + y, of rank c, is merged across the border iff it comes before
// the merge that would consume x (c < x_limit: that one lies to the left) and the one that
// would consume y (c <= y_limit).
bool BacktrackMerge::compatible(uint32_t left, uint32_t right, uint32_t below) const {
  if ((tokens_[left].kind | tokens_[right].kind) != kMonotone) {
    // A tangled token's merges do not come in rank order: merge the pair's bytes.
    uint8_t bytes[2 * kMaxTokenLen];
    std::string_view a = vocab_->bytes(left), b = vocab_->bytes(right);
    std::memcpy(bytes, a.data(), a.size());
    std::memcpy(bytes + a.size(), b.data(), b.size());
    thread_local std::vector<uint32_t> parts;
    merge_bytes(bytes, a.size() + b.size(), &parts);
    return parts.size() == 2 && parts[0] == left && parts[1] == right;
  }
  uint32_t x = left, y = right;
  uint32_t x_limit = below, y_limit = below == kNoToken ? kNoToken : below - 1;
  while (true) {
    const Token& tx = tokens_[x];
    const Token& ty = tokens_[y];
    uint32_t c = join(x, tx, y, ty);
    if (c != kNoToken && c < x_limit && c <= y_limit) return false;
    bool x_byte = tx.left == kNoToken, y_byte = ty.left == kNoToken;
    if (!x_byte && (y_byte || x > y)) {
      x_limit = x;
      x = tx.right;
    } else if (!y_byte) {
      y_limit = y;
      y = ty.left;
    } else {
      return true;
    }
  }
}

bool BacktrackMerge::encode(const uint8_t* p, size_t n, std::vector<uint32_t>* out, uint64_t memo_owner) const {
  thread_local std::vector<uint64_t> dead;  // bit i: no encoding of the chunk passes position i
  dead.assign(n / 64 + 1, 0);
  const size_t base = out->size();
  size_t pos = 0;
  uint32_t next = trie_->longest_prefix(p, n);  // the longest token still to try at pos
  Memo& memo = thread_memo(memo_owner);
  size_t walked = 0;  // bytes of the longest candidates, about the trie's steps
  auto is_dead = [&](size_t at) { return (dead[at >> 6] >> (at & 63)) & 1; };
  while (pos < n) {
    uint32_t t = next;
    if (out->size() > base) {
      const uint32_t prev = out->back();
      if (t != kNoToken) t = first_fit(memo, prev, t);
      while (t != kNoToken && is_dead(pos + tokens_[t].len)) {
        t = tokens_[t].shorter;
        if (t != kNoToken) t = first_fit(memo, prev, t);
      }
    } else {
      while (t != kNoToken && (tokens_[t].kind == kOrphan || is_dead(pos + tokens_[t].len))) t = tokens_[t].shorter;
    }
    if (t != kNoToken) {
      out->push_back(t);
      pos += tokens_[t].len;
      next = trie_->longest_prefix(p + pos, n - pos);
      if (next != kNoToken) {
        walked += tokens_[next].len;
        if (walked > kWalkPerByte * pos + kWalkSlack) {
          out->resize(base);
          return false;
        }
      }
    } else {
      dead[pos >> 6] |= uint64_t{1} << (pos & 63);
      if (out->size() == base) return false;
      uint32_t last = out->back();
      out->pop_back();
      pos -= tokens_[last].len;
      next = tokens_[last].shorter;
    }
  }
  return true;
}

}  // namespace tf::byte_level
